package syntax

import (
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are small inputs that reach every production and error path.
var fuzzSeeds = []string{
	"", "x", "(+ 1 2)", "1.5", "-5x", "1.", ".5", `"a\nb"`, "\"a\\\n \\b\"", `"\q"`, "'sym",
	"[1, 2 3]", "[1 2, 3]", `{"a": 1, 'b: [true]}`, `{, "a": 1}`, `(bind o {"a" := a:integer} a)`,
	"(let ((x:[integer] [1])) x)", "(let* ((a 1)) a)", "(lambda (m:module{a, b.c}) (m::f))",
	"(defun f:object{s} (a:table{n.m.s}) @doc \"d\" @model [(property (> a 0))] a)",
	"(defconst c 1 \"d\")", "(use a.b \"h\" [x y])",
	"(module m 'g (defcap C (a) @managed a mgr true) (defcap E () @event 1) (defschema s a:integer b)" +
		" (deftable t:{s}) (defpact p () (step 1) (step-with-rollback 'e 2 3 @model [])) (implements i) (bless \"h\"))",
	"(interface i (defun f ()) (defcap c () @managed) (defpact p ()) (use m))",
	"(((((", ")))", "(f))", "(f) x", "`", "\xff", "é",
}

func FuzzLex(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := Lex("fuzz", src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if len(toks) == 0 || toks[len(toks)-1].Kind != EOF {
			t.Fatal("no EOF token")
		}
		prev := 0
		for _, tk := range toks {
			s, e := tk.Loc.Start, tk.Loc.End
			if s.Offset < prev || e.Offset < s.Offset || e.Offset > len(src) || !s.IsValid() {
				t.Fatalf("token %v has span %v-%v (offsets %d-%d) after %d", tk, s, e, s.Offset, e.Offset, prev)
			}
			prev = e.Offset
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, name := range []string{"token.pact", "fungible.pact", "token.repl"} {
		f.Add(readTestdata(f, name))
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := ParseExpr("fuzz", src); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("ParseExpr error of type %T", err)
			}
		}
		if _, err := ParseProgram("fuzz", src); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("ParseProgram error of type %T", err)
			}
		}
		f1, err := ParseRepl("fuzz", src)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Msg == "" || !e.Loc.Start.IsValid() {
				t.Fatalf("ParseRepl error %#v", err)
			}
			return
		}
		// Accepted input prints to source that parses to the same tree.
		printed := f1.String()
		f2, err := ParseRepl("fuzz", printed)
		if err != nil {
			// Printing can nest one level deeper than the input only where
			// the input was already at the bound.
			if e, ok := err.(*Error); ok && e.Kind == NestingTooDeep {
				return
			}
			t.Fatalf("printed form does not parse: %v\ninput: %q\nprinted: %q", err, src, printed)
		}
		if printed2 := f2.String(); printed2 != printed {
			t.Fatalf("printing not stable:\n%q\n%q", printed, printed2)
		}
		if !sameTree(f1, f2) {
			t.Fatalf("printed form parses differently\ninput: %q\nprinted: %q", src, printed)
		}
	})
}

// TestFuzzSeedsDoNotPanic runs the seeds through every entry point in
// ordinary test runs, not only under -fuzz.
func TestFuzzSeedsDoNotPanic(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.*")
	seeds := append([]string{}, fuzzSeeds...)
	for _, f := range files {
		seeds = append(seeds, readTestdata(t, filepath.Base(f)))
	}
	for _, s := range seeds {
		for cut := 0; cut <= len(s); cut += 1 + len(s)/50 {
			prefix := s[:cut]
			Lex("seed", prefix)
			ParseExpr("seed", prefix)
			ParseProgram("seed", prefix)
			if f, err := ParseRepl("seed", prefix); err == nil {
				if _, err := ParseRepl("seed", f.String()); err != nil && !strings.Contains(err.Error(), "Nesting") {
					t.Errorf("prefix %q: printed form fails: %v", prefix, err)
				}
			}
		}
	}
}
