package syntax

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var spanType = reflect.TypeOf(Span{})

// zeroSpans clears every Span in a tree, so that trees parsed from
// different text can be compared with reflect.DeepEqual.
func zeroSpans(x any) {
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if v.Type() == spanType {
				v.Set(reflect.Zero(spanType))
				return
			}
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(x))
}

// sameTree reports whether two files hold the same forms, spans aside.
func sameTree(a, b *File) bool {
	zeroSpans(a)
	zeroSpans(b)
	return reflect.DeepEqual(a.Items, b.Items)
}

// roundTrip parses src (as ParseFile does, by name), prints it, parses the
// print, and checks that both trees agree and that printing is stable.
func roundTrip(t testing.TB, name, src string) {
	t.Helper()
	f1, err := ParseFile(name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	printed := f1.String()
	f2, err := ParseFile(name, printed)
	if err != nil {
		t.Fatalf("%s: reparsing the printed form: %v\n%s", name, err, printed)
	}
	if again := f2.String(); again != printed {
		t.Fatalf("%s: printing is not stable:\n%s\n---\n%s", name, printed, again)
	}
	if !sameTree(f1, f2) {
		t.Fatalf("%s: the printed form parses to a different tree:\n%s", name, printed)
	}
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTestdataRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/*.*")
	if err != nil || len(files) < 3 {
		t.Fatalf("testdata: %v %v", files, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			roundTrip(t, path, readTestdata(t, filepath.Base(path)))
		})
	}
}

// TestTestdataShape checks the sample files parse to what they say they
// contain, so that a parser change cannot quietly drop a form.
func TestTestdataShape(t *testing.T) {
	f := mustParseRepl(t, readTestdata(t, "token.pact"))
	m := f.Items[0].(*Module)
	count := map[string]int{}
	for _, d := range m.Body {
		count[reflect.TypeOf(d).Elem().Name()]++
	}
	want := map[string]int{"Implements": 1, "Bless": 1, "DefSchema": 5, "DefTable": 4, "DefConst": 10, "DefCap": 12, "Defun": 37, "DefPact": 2}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("token.pact module body = %v, want %v", count, want)
	}
	if len(f.Items) != 5 {
		t.Errorf("token.pact has %d top-level forms", len(f.Items))
	}

	i := mustParseRepl(t, readTestdata(t, "fungible.pact")).Items[0].(*Interface)
	if i.Name != "fungible-token-v1" || len(i.Body) != 16 || i.Model == nil {
		t.Errorf("fungible.pact interface = %s with %d decls", i.Name, len(i.Body))
	}

	r := mustParseRepl(t, readTestdata(t, "token.repl"))
	var defuns, consts, expects int
	for _, it := range r.Items {
		switch x := it.(type) {
		case *Defun:
			defuns++
		case *DefConst:
			consts++
		case *App:
			if v, ok := x.Fn.(*Var); ok && strings.HasPrefix(v.Name.Name, "expect") {
				expects++
			}
		}
	}
	if defuns != 1 || consts != 2 || expects < 20 {
		t.Errorf("token.repl: %d defuns, %d defconsts, %d expects", defuns, consts, expects)
	}
}

// TestRoundTripCorners covers forms whose printing needs care.
func TestRoundTripCorners(t *testing.T) {
	for _, src := range []string{
		"(defun f () 'a)",           // a symbol body is not a docstring
		"(defun f () 'a 'b)",        //
		`(defun f () "doc" 'a)`,     //
		"(defun f () @model [] 'a)", //
		"(module m g (defcap C () 'a) (defcap D () @event 'a) (defcap E () @managed 'a))",
		`(defconst c 'a "doc")`,
		"(lambda () 'a)",
		`(f "a\tb\nc\\d\"e'g")`,
		"{, 'a: 1}",
		"(+ 1 . 5 coin . transfer)",
		"(let ((x:[[module{a.b, c}]] 1)) x)",
		"(defun f () @model [{ a : b , c } [x] (let lambda) -1 2.50 'k true] 1)",
	} {
		roundTrip(t, "t.repl", src)
	}
	f := mustParseRepl(t, "(defun f () 'a)")
	if got := f.Items[0].String(); got != "(defun f () 'a)" {
		t.Errorf("printed as %s", got)
	}
}

func TestFormat(t *testing.T) {
	src := `(module m 'ks @doc "d" @model [(property true)]
  (defcap C:bool (a:string n:decimal) @managed n m.mgr true)
  (defcap E () @event true)
  (defcap A () @managed true)
  (defschema s @doc "sd" a:integer b)
  (deftable t:{s} "td")
  (defconst K:[integer] [1 2] "kd")
  (defpact p () (step "e" 1 @model [a]) (step-with-rollback 2 3))
  (use free.coin "h" [transfer])
  (implements i)
  (bless "b"))`
	want := `(module m "ks"
  @doc "d"
  @model [(property true)]
  (defcap C:bool (a:string n:decimal) @managed n m.mgr true)
  (defcap E () @event true)
  (defcap A () @managed true)
  (defschema s @doc "sd" a:integer b)
  (deftable t:{s} "td")
  (defconst K:[integer] [1 2] "kd")
  (defpact p () (step "e" 1 @model [a]) (step-with-rollback 2 3))
  (use free.coin "h" [transfer])
  (implements i)
  (bless "b"))`
	m := single[*Module](t, src)
	if got := m.String(); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	if got := Format(nil); got != "<nil>" {
		t.Errorf("Format(nil) = %q", got)
	}
	s := &StringLit{Value: "q\"b\\n\nt\tx'"}
	if got := s.String(); got != `"q\"b\\n\nt\tx'"` {
		t.Errorf("quote = %s", got)
	}
	if got := m.Body[6].(*DefPact).Steps[0].String(); got != `(step "e" 1 @model [a])` {
		t.Errorf("step = %s", got)
	}
}

// TestUpstreamCorpus parses every .repl and .pact file under the directory
// named by PACT_UPSTREAM (for example a checkout of kadena-io/pact-5's
// pact-tests/pact-tests), round-trips each, and logs how many parse. The
// files are never part of this repository.
func TestUpstreamCorpus(t *testing.T) {
	root := os.Getenv("PACT_UPSTREAM")
	if root == "" {
		t.Skip("set PACT_UPSTREAM to a directory of upstream .repl/.pact files")
	}
	var total, ok int
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".repl") || strings.HasSuffix(path, ".pact")) {
			return err
		}
		total++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if _, err := ParseFile(path, string(b)); err != nil {
			t.Logf("does not parse: %v", err)
			return nil
		}
		ok++
		roundTrip(t, path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d files parse", ok, total)
}
