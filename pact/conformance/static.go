package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// staticCase is one program of upstream's list of programs Pact must
// refuse: its label, the error category and kind upstream's predicate
// accepts, and the program.
type staticCase struct {
	name     string
	category string // ParseError, DesugarError, ExecutionError, UserRecoverableError
	kind     string // the error constructor, without its prism's underscore
	src      string
}

var (
	// staticEntry is the head of one list entry: ("label", isXError _Kind,
	// then the program, a [text| block or a string literal.
	staticEntry = regexp.MustCompile(`\(\s*"([^"]+)"\s*,\s*is(Parse|Desugar|Execution|UserRecoverable)Error\s+_(\w+)\s*,\s*(\[text\||")`)
	// staticLetText and staticLetRepeat are the let-bound texts the
	// programs interpolate: a quasi-quoted block, or a repeated string.
	staticLetText   = regexp.MustCompile(`let\s+(\w+)\s*=\s*\[text\|`)
	staticLetRepeat = regexp.MustCompile(`let\s+(\w+)\s*=\s*T\.replicate\s+(\d+)\s+"([^"]*)"`)
	staticVar       = regexp.MustCompile(`\$(\w+)`)
)

// parseStaticTests reads the programs from upstream's StaticErrorTests.hs:
// each entry's label, predicate and [text| ... |] block, with the block's
// $name interpolations replaced by the let-bound texts they name.
func parseStaticTests(hs string) ([]staticCase, error) {
	vars := map[string]string{}
	for _, m := range staticLetRepeat.FindAllStringSubmatch(hs, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return nil, err
		}
		vars[m[1]] = strings.Repeat(m[3], n)
	}
	for _, m := range staticLetText.FindAllStringSubmatchIndex(hs, -1) {
		body, ok := quoted(hs[m[1]:])
		if !ok {
			return nil, fmt.Errorf("unterminated [text| block for %s", hs[m[2]:m[3]])
		}
		vars[hs[m[2]:m[3]]] = body
	}
	var out []staticCase
	for _, m := range staticEntry.FindAllStringSubmatchIndex(hs, -1) {
		var body string
		var ok bool
		if hs[m[8]] == '"' {
			body, ok = stringLit(hs[m[8]:])
		} else {
			body, ok = quoted(hs[m[1]:])
		}
		if !ok {
			return nil, fmt.Errorf("unterminated program for %s", hs[m[2]:m[3]])
		}
		var missing string
		body = staticVar.ReplaceAllStringFunc(body, func(v string) string {
			if s, ok := vars[v[1:]]; ok {
				return s
			}
			missing = v
			return v
		})
		if missing != "" {
			return nil, fmt.Errorf("%s: no text bound to %s", hs[m[2]:m[3]], missing)
		}
		out = append(out, staticCase{
			name:     hs[m[2]:m[3]],
			category: hs[m[4]:m[5]] + "Error",
			kind:     hs[m[6]:m[7]],
			src:      body,
		})
	}
	if len(out) == 0 {
		return nil, errors.New("no test programs found")
	}
	return out, nil
}

// quoted is the text of a [text| block whose opening s follows, up to its
// closing |]. NeatInterpolation's blank-line trimming and dedent do not
// change what Pact reads, only where; the text is left as written.
func quoted(s string) (string, bool) {
	end := strings.Index(s, "|]")
	if end < 0 {
		return "", false
	}
	return s[:end], true
}

// stringLit reads the Haskell string literal s starts with. Its escapes
// (\" and \\ in these programs) are Go's too.
func stringLit(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			return v, err == nil
		}
	}
	return "", false
}

// errorCategory names the Pact 5 error category an error of ours belongs
// to, as far as our error types tell it.
func errorCategory(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return "ParseError"
	}
	var ee *value.Error
	if errors.As(err, &ee) {
		switch ee.Kind {
		case value.ErrUser:
			return "UserRecoverableError"
		case value.ErrDesugar:
			return "DesugarError"
		}
		return "ExecutionError"
	}
	return "other"
}

// runStaticErrors runs each program of upstream's StaticErrorTests.hs as
// its runStaticTest does (a fresh REPL with the REPL natives and an empty
// database, the program as one REPL source, the first error ending it) and
// counts how many we refuse, and with which category. It returns the exit
// status: 1 if any program is accepted.
func runStaticErrors(path, only string, verbose bool) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cases, err := parseStaticTests(string(b))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
		return 2
	}
	var same, other, accepted, total int
	fmt.Println("| program | upstream | ours | |")
	fmt.Println("|---|---|---|---|")
	for _, c := range cases {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		total++
		err := runStatic(c)
		ours, mark := "accepted", "**accepted**"
		if err != nil {
			ours = errorCategory(err)
			if ours == c.category {
				same++
				mark = "ok"
			} else {
				other++
				mark = "other category"
			}
		} else {
			accepted++
		}
		fmt.Printf("| `%s` | %s %s | %s | %s |\n", c.name, c.category, c.kind, ours, mark)
		if verbose && err != nil {
			fmt.Fprintf(os.Stderr, "%s (%s %s): %s\n", c.name, c.category, c.kind, oneLine(repl.FormatError(err)))
		}
	}
	fmt.Printf("\n%d programs: %d refused with upstream's error category, %d refused with another, %d accepted.\n",
		total, same, other, accepted)
	if accepted > 0 {
		return 1
	}
	return 0
}

func runStatic(c staticCase) error {
	r := repl.New(io.Discard)
	return bounded(func() error {
		_, err := r.EvalSource(c.name, c.src, true)
		return err
	})
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
