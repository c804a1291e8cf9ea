package repl

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgernode/ledger-node/pact/value"
)

// The prompts of the interactive loop, as P5 prints them.
const (
	Prompt             = "pact> "
	ContinuationPrompt = "....> "
	// InteractiveName is the file name errors in interactive input carry.
	InteractiveName = "<interactive>"
)

// Interactive runs the read-eval-print loop without line editing: it
// prompts with Prompt, reads lines from in until the input is balanced
// (see Balance), evaluates it as a REPL program, prints every non-unit
// result with eval.Pretty and every error with RenderError and a
// newline (P5's outputStrLn adds one), and prompts again. Lines that
// leave the input unbalanced get ContinuationPrompt. At
// the end of in it evaluates what is left, prints "goodbye" and returns
// nil; it returns an error only when in or out fails.
//
// It is the loop for a terminal that line editing cannot drive (a dumb
// terminal, or standard output redirected while a person types): Edit is
// the loop for a terminal and Pipe the one for input from a program.
// While it runs, print output goes to out as well.
func (r *Runner) Interactive(in io.Reader, out io.Writer) error {
	saved := r.Out
	r.Out = out
	defer func() { r.Out = saved }()

	w := &errWriter{w: out}
	br := bufio.NewReader(in)
	var buf strings.Builder
	var sc Balance
	for {
		if buf.Len() == 0 {
			w.print(Prompt)
		} else {
			w.print(ContinuationPrompt)
		}
		if w.err != nil {
			return w.err
		}
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		eof := err != nil
		buf.WriteString(line)
		sc.Feed(line)
		if eof || sc.Complete() {
			if eof && line == "" && buf.Len() > 0 {
				// The prompt was printed but nothing more came.
				w.print("\n")
			}
			if sc.HasCode() {
				r.evalInteractive(buf.String(), w, w)
			}
			buf.Reset()
			sc = Balance{}
		}
		if eof {
			w.print("goodbye\n")
			return w.err
		}
	}
}

// ErrInterrupt is what a LineEditor returns when the user cancels the
// line being typed (Ctrl-C).
var ErrInterrupt = errors.New("interrupted")

// A LineEditor reads lines from a person at a terminal, with editing and
// history (Terminal is the one on the process's terminal).
type LineEditor interface {
	// ReadLine shows prompt and returns the line typed, without its
	// end. It returns io.EOF when the user ends the session (Ctrl-D on
	// an empty line) and ErrInterrupt when the user cancels (Ctrl-C).
	ReadLine(prompt string) (string, error)
	// AddHistory records an entry the user may recall later.
	AddHistory(entry string)
}

// Edit runs the read-eval-print loop on a line editor: as Interactive,
// except that the editor prints the prompts and echoes the input, an
// interrupt drops the form being typed (the lines typed so far with it)
// and prompts afresh, and end of input leaves at once, dropping a form
// left unfinished, as P5's REPL does. Each complete form goes into the
// editor's history before it is evaluated (see HistoryEntry). It returns
// an error only when the editor or out fails.
func (r *Runner) Edit(ed LineEditor, out io.Writer) error {
	saved := r.Out
	r.Out = out
	defer func() { r.Out = saved }()

	w := &errWriter{w: out}
	var lines []string
	var sc Balance
	for {
		prompt := Prompt
		if len(lines) > 0 {
			prompt = ContinuationPrompt
		}
		line, err := ed.ReadLine(prompt)
		switch {
		case errors.Is(err, ErrInterrupt):
			lines, sc = nil, Balance{}
			continue
		case errors.Is(err, io.EOF):
			w.print("goodbye\n")
			return w.err
		case err != nil:
			return err
		}
		lines = append(lines, line)
		sc.Feed(line + "\n")
		if !sc.Complete() {
			continue
		}
		if sc.HasCode() {
			ed.AddHistory(HistoryEntry(lines))
			r.evalInteractive(strings.Join(lines, "\n")+"\n", w, w)
		}
		lines, sc = nil, Balance{}
		if w.err != nil {
			return w.err
		}
	}
}

// HistoryEntry is the history entry for a form typed on lines: the lines
// trimmed and joined by a space, so that the up arrow brings back the
// whole form on one line, or, when a line ends inside a string literal or
// a comment (where joining would change the program), the lines as
// typed, joined by a newline. History files keep an entry a line, so the
// caller stores the second kind a line at a time.
func HistoryEntry(lines []string) string {
	var b Balance
	parts := make([]string, 0, len(lines))
	for i, l := range lines {
		b.Feed(l)
		if i < len(lines)-1 && b.state != scanCode {
			return strings.Join(lines, "\n")
		}
		b.Feed("\n")
		// Only the white space Balance skips: other spaces are code.
		if t := strings.Trim(l, " \t\r\f\v"); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// PipeAborted is the line Pipe prints after the error that stopped it,
// P4's words for piped input.
const PipeAborted = "Aborting execution"

// Pipe runs REPL input that comes from a program or a file, as
// `pact < script` does: it reads forms as Interactive does, with no
// prompts and no "goodbye", and prints each non-unit result on out. The
// first error stops it: it prints the error with RenderError and then
// PipeAborted on errOut, and reads no further (P4's pipe mode; P5 prints
// prompts and goes on, so that a failing script exited 0). It reports
// whether all went well: no error, and no failed expect, expect-failure
// or expect-that (their results were printed). It returns an error only
// when in or out fails.
func (r *Runner) Pipe(in io.Reader, out, errOut io.Writer) (ok bool, err error) {
	saved := r.Out
	r.Out = out
	defer func() { r.Out = saved }()

	w := &errWriter{w: out}
	ew := &errWriter{w: errOut}
	br := bufio.NewReader(in)
	var buf strings.Builder
	var sc Balance
	for {
		line, rerr := br.ReadString('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return false, rerr
		}
		eof := rerr != nil
		buf.WriteString(line)
		sc.Feed(line)
		if (eof || sc.Complete()) && sc.HasCode() {
			if !r.evalInteractive(buf.String(), w, ew) {
				ew.print(PipeAborted + "\n")
				return false, firstErr(w.err, ew.err)
			}
		}
		if eof || sc.Complete() {
			buf.Reset()
			sc = Balance{}
		}
		if err := firstErr(w.err, ew.err); err != nil {
			return false, err
		}
		if eof {
			return len(r.Failures()) == 0, nil
		}
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// evalInteractive evaluates one entry, printing its results on w and its
// error on ew; it reports whether there was no error.
func (r *Runner) evalInteractive(src string, w, ew *errWriter) bool {
	if r.interrupt != nil {
		r.interrupt.Store(false) // an interrupt that came between evaluations stops none
	}
	r.evaluating.Store(true)
	vals, err := r.EvalSource(InteractiveName, src, true)
	r.evaluating.Store(false)
	for _, v := range vals {
		if _, unit := v.(value.Unit); !unit {
			w.print(value.Pretty(v) + "\n")
		}
	}
	if err != nil {
		ew.print(r.RenderError(err) + "\n")
		return false
	}
	return true
}

// errWriter keeps the first write error so the loop can stop on it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) print(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

// Balance decides, lexically, whether interactive input is complete: it
// counts the opening and closing parentheses, brackets and braces outside
// string literals and ; comments, and tracks whether a string literal is
// still open. It follows the lexer's rules for strings: backslash escapes
// one character, except that a backslash followed by white space starts a
// gap (\<white space>\) that may span lines.
//
// The zero value is the state before any input. Feed may be called with
// the input in pieces of any size; the result does not depend on where the
// input is cut.
type Balance struct {
	depth    int  // opening minus closing delimiters
	negative bool // more closing than opening delimiters at some point
	code     bool // something other than white space and comments seen
	state    scanState
	pending  []byte // an incomplete UTF-8 sequence held back in a gap
}

type scanState uint8

const (
	scanCode    scanState = iota
	scanComment           // after ';' up to the newline
	scanString            // inside "..."
	scanEscape            // after '\' inside a string
	scanGap               // inside a \<white space>\ gap
)

// Feed scans more input.
func (b *Balance) Feed(s string) {
	if len(b.pending) > 0 {
		s = string(b.pending) + s
		b.pending = b.pending[:0]
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch b.state {
		case scanCode:
			switch c {
			case ';':
				b.state = scanComment
			case '"':
				b.code = true
				b.state = scanString
			case '(', '[', '{':
				b.code = true
				b.depth++
			case ')', ']', '}':
				b.code = true
				b.depth--
				if b.depth < 0 {
					b.negative = true
				}
			case ' ', '\t', '\n', '\r', '\f', '\v':
			default:
				b.code = true
			}
		case scanComment:
			if c == '\n' {
				b.state = scanCode
			}
		case scanString:
			switch c {
			case '"':
				b.state = scanCode
			case '\\':
				b.state = scanEscape
			}
		case scanEscape:
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && n <= 1 && !utf8.FullRuneInString(s[i:]) {
					b.pending = append(b.pending, s[i:]...)
					return
				}
				if isGapSpace(r) {
					b.state = scanGap
				} else {
					b.state = scanString
				}
				i += n
				continue
			}
			if isGapSpace(rune(c)) {
				b.state = scanGap
			} else {
				b.state = scanString
			}
		case scanGap:
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && n <= 1 && !utf8.FullRuneInString(s[i:]) {
					b.pending = append(b.pending, s[i:]...)
					return
				}
				if !isGapSpace(r) {
					// An invalid gap: the lexer rejects it; carry on
					// as if the string went on.
					b.state = scanString
				}
				i += n
				continue
			}
			switch {
			case c == '\\':
				b.state = scanString
			case isGapSpace(rune(c)):
			case c == '"':
				b.state = scanCode
			default:
				b.state = scanString
			}
		}
		i++
	}
}

// Complete reports whether the input so far is a whole entry: no string
// literal open and no delimiter left unclosed. Input with a stray closing
// delimiter is complete too, so that the parser reports it.
func (b *Balance) Complete() bool {
	switch b.state {
	case scanString, scanEscape, scanGap:
		return false
	}
	return b.negative || b.depth <= 0
}

// Depth is the number of delimiters still open (negative when there are
// more closing than opening ones).
func (b *Balance) Depth() int { return b.depth }

// InString reports whether the input ends inside a string literal.
func (b *Balance) InString() bool {
	return b.state == scanString || b.state == scanEscape || b.state == scanGap
}

// HasCode reports whether the input holds anything but white space and
// comments.
func (b *Balance) HasCode() bool { return b.code }

// isGapSpace is the white space a string gap may contain: Haskell's isSpace,
// as the lexer uses.
func isGapSpace(r rune) bool {
	switch {
	case r == ' ', r >= '\t' && r <= '\r', r == 0xa0:
		return true
	case r < 0x100:
		return false
	}
	return unicode.Is(unicode.Zs, r)
}
