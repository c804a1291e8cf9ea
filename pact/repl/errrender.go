package repl

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// P5Interactive is the name P5's REPL gives interactive input in the errors
// it prints (ours, InteractiveName, is what spans carry).
const P5Interactive = "(interactive)"

// RenderError renders err as P5's REPL prints an error (replError): a
// first line "file:line:col: message", with P5's 1-based line and 0-based
// column of the error's start; then the source lines of its span (from the
// first up to, not including, the last, and at least one), each numbered;
// a marker line of carets under the span's columns; and the call stack,
// a line a frame, innermost first ("  at(m.f.{hash} args):file:span").
// Every line ends in a newline, and there is an empty last line where the
// stack is empty, as T.unlines makes it.
//
// The source is the text of the file the error is in, as loaded last (P5
// keeps each file it loads), else the interactive input. An error with no
// position renders as FormatError's line and a newline.
func (r *Runner) RenderError(err error) string {
	loc, msg, stack, ok := errorParts(err)
	if !ok {
		return FormatError(err) + "\n"
	}
	name, src := r.errorSource(loc.File)
	startLine, startCol := int(loc.Start.Line)-1, int(loc.Start.Col)-1
	endLine, endCol := int(loc.End.Line)-1, int(loc.End.Col)-1
	if !loc.End.IsValid() {
		endLine, endCol = startLine, startCol
	}
	var se *syntax.Error
	if errors.As(err, &se) && loc.Start.Offset >= len(src) {
		// P5's lexer gives the end of input the span from there to the
		// start of the next line.
		endLine, endCol = startLine+1, 0
	}
	var b strings.Builder
	b.WriteString(name + ":" + strconv.Itoa(startLine+1) + ":" + strconv.Itoa(startCol) + ": " + msg + "\n")
	maxPad := len(strconv.Itoa(endLine+1)) + 1
	lines := textLines(src)
	n := max(1, endLine-startLine)
	for i := startLine; i < startLine+n && i >= 0 && i < len(lines); i++ {
		num := strconv.Itoa(i + 1)
		b.WriteString(strings.Repeat(" ", max(0, maxPad-len(num))) + num + " | " + lines[i] + "\n")
	}
	b.WriteString(strings.Repeat(" ", maxPad+1) + "| " + strings.Repeat(" ", max(0, startCol)) +
		strings.Repeat("^", max(1, endCol-startCol)) + "\n")
	for i, f := range stack {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("  at" + frameText(f) + ":" + spanText(f.Site))
	}
	b.WriteByte('\n')
	return b.String()
}

// errorParts takes apart an error that has a position.
func errorParts(err error) (loc syntax.Span, msg string, stack []value.StackFrame, ok bool) {
	var ee *value.Error
	if errors.As(err, &ee) {
		return ee.Loc, ee.Msg, ee.Stack, ee.Located
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		return se.Loc, se.Msg, nil, se.Loc.Start.IsValid()
	}
	return syntax.Span{}, "", nil, false
}

// errorSource is the name and text of the source an error in file is
// shown from: the file as loaded last, else the interactive input (P5's
// current source).
func (r *Runner) errorSource(file string) (string, string) {
	if src, ok := r.sources[file]; ok {
		return p5FileName(file), src
	}
	return P5Interactive, r.sources[InteractiveName]
}

func p5FileName(file string) string {
	if file == InteractiveName {
		return P5Interactive
	}
	return file
}

// remember keeps the text of a source being evaluated, for RenderError.
func (r *Runner) remember(name, src string) {
	if r.sources == nil {
		r.sources = make(map[string]string)
	}
	r.sources[name] = src
}

// textLines splits s into lines as Haskell's T.lines does: at each
// newline, with no empty last line after a final newline.
func textLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// spanText renders a span as P5's FileLocSpanInfo pretty prints:
// "file:startLine:startCol-endLine:endCol", all 0-based.
func spanText(s syntax.Span) string {
	end := s.End
	if !end.IsValid() {
		end = s.Start
	}
	return p5FileName(s.File) + ":" + strconv.Itoa(int(s.Start.Line)-1) + ":" + strconv.Itoa(int(s.Start.Col)-1) +
		"-" + strconv.Itoa(int(end.Line)-1) + ":" + strconv.Itoa(int(end.Col)-1)
}

// frameText renders a stack frame as P5 pretty prints it: the function's
// fully qualified name applied to its arguments, each abbreviated
// (AbbrevPretty).
func frameText(f value.StackFrame) string {
	var b strings.Builder
	b.WriteString("(" + f.Name())
	for _, a := range f.Args {
		b.WriteString(" " + abbrev(a))
	}
	b.WriteString(")")
	return b.String()
}

// abbrev renders a value as P5's AbbrevPretty: strings of 15 characters
// or more, long numbers, lists and objects are cut short with "...".
func abbrev(v value.Value) string {
	switch x := v.(type) {
	case value.String:
		s := string(x)
		if utf8.RuneCountInString(s) < 15 {
			return `"` + s + `"`
		}
		return `"` + takeRunes(s, 12) + `..."`
	case value.Integer:
		return cutText(15, value.Pretty(x))
	case value.Decimal:
		s := value.Pretty(x)
		if strings.HasSuffix(s, ".0") { // integral: never cut
			return s
		}
		return cutText(15, s)
	case value.List:
		parts := make([]string, 0, min(len(x), 10))
		for _, e := range x[:min(len(x), 10)] {
			parts = append(parts, abbrev(e))
		}
		return "[" + cutText(15, strings.Join(parts, " ")) + "]"
	case *value.Object:
		parts := make([]string, x.Len())
		for i := range parts {
			parts[i] = `"` + x.Key(i) + `": ` + value.Pretty(x.Val(i))
		}
		return "{" + cutText(15, strings.Join(parts, ",")) + "}"
	case value.Time:
		return value.FormatTime("%Y-%m-%d %H:%M:%S%Q %Z", x)
	case *value.Table:
		return cutText(20, value.Pretty(x))
	}
	return value.Pretty(v)
}

// cutText is P5's prettyAbbrevText: text longer than lim-3 characters
// keeps its first lim-3 and gets "...".
func cutText(lim int, s string) string {
	if utf8.RuneCountInString(s) <= lim-3 {
		return s
	}
	return takeRunes(s, lim-3) + "..."
}

func takeRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
