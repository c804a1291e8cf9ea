package repl_test

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/repl"
)

// testdataDir holds the project's own Pact test suite: one .repl file per
// area of the language, each self-contained, with its expectations taken
// from Pact 5.4's semantics (not from this interpreter's output).
const testdataDir = "../testdata"

func testdataFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testdataDir, "*.repl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .repl files in %s", testdataDir)
	}
	sort.Strings(files)
	return files
}

// TestTestdata runs every pact/testdata/*.repl file with a fresh REPL and
// reports each failed expect, expect-failure or expect-that, and the error
// that stopped the file, if any.
func TestTestdata(t *testing.T) {
	for _, f := range testdataFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".repl"), func(t *testing.T) {
			r := repl.New(io.Discard)
			err := r.LoadFile(f)
			for _, res := range r.Results {
				if !res.Passed {
					file := res.Loc.File
					if rel, err := filepath.Rel(testdataDir, file); err == nil && !strings.HasPrefix(rel, "..") {
						file = rel
					} else if file == "" {
						file = filepath.Base(f)
					}
					t.Errorf("%s:%d: %s", file, res.Loc.Start.Line, strings.ReplaceAll(res.Msg, "\n", " "))
				}
			}
			if err != nil {
				t.Errorf("%s: load stopped: %s", filepath.Base(f), repl.FormatError(err))
			}
			if len(r.Results) == 0 && err == nil {
				t.Errorf("%s: no expectations ran", filepath.Base(f))
			}
		})
	}
}

// specialForms are the forms P5's desugarer handles itself; each must be
// exercised by the suite like the natives.
var specialForms = []string{
	"if", "and", "or", "cond", "do", "let", "let*", "lambda", "enforce", "enforce-one",
	"with-capability", "try", "create-user-guard", "error", "pure",
}

// TestTestdataCoversNatives checks that every core native, every REPL
// native and every special form appears in application position in at
// least one file of the suite (comments and string literals do not count).
func TestTestdataCoversNatives(t *testing.T) {
	var all strings.Builder
	err := filepath.Walk(testdataDir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() || !(strings.HasSuffix(path, ".repl") || strings.HasSuffix(path, ".pact")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		all.WriteString(codeOnly(string(src)))
		all.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	code := all.String()
	var names []string
	names = append(names, eval.CoreNativeNames...)
	names = append(names, repl.ReplNativeNames...)
	names = append(names, specialForms...)
	var missing []string
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		re := regexp.MustCompile(`\(\s*` + regexp.QuoteMeta(n) + `[\s)]`)
		if !re.MatchString(code) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Errorf("not applied in any pact/testdata file: %s", strings.Join(missing, " "))
	}
}

// codeOnly blanks out comments and the contents of string literals, so
// that only code is searched.
func codeOnly(src string) string {
	var b strings.Builder
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inStr:
			if c == '\\' && i+1 < len(src) {
				i++
				b.WriteString("  ")
				continue
			}
			if c == '"' {
				inStr = false
				b.WriteByte(c)
				continue
			}
			if c == '\n' {
				b.WriteByte(c)
			} else {
				b.WriteByte(' ')
			}
		case c == '"':
			inStr = true
			b.WriteByte(c)
		case c == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
