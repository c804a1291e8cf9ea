package eval_test

import (
	"slices"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// load evaluates a REPL program and returns the last result.
func load(t *testing.T, in *eval.Interp, src string) value.Value {
	t.Helper()
	f, err := syntax.ParseRepl("test.repl", src)
	if err != nil {
		t.Fatal(err)
	}
	in.SetSource("test.repl", src)
	var last value.Value
	for _, item := range f.Items {
		if last, err = in.EvalTopLevel(item, true); err != nil {
			t.Fatalf("%v\nin %s", err, src)
		}
	}
	return last
}

func module(t *testing.T, d db.DB, name string) *eval.Module {
	t.Helper()
	v, ok, err := d.Read(db.Modules, "", name)
	if err != nil || !ok {
		t.Fatalf("module %s: %v %v", name, ok, err)
	}
	return v.(*eval.Module)
}

// versions is a MemDB that keeps module versions, as a persistent DB does.
type versions struct {
	*db.MemDB
	all map[string]*eval.Module // by name and hash
}

func (v *versions) ModuleVersion(name value.ModuleName, hash string) (*eval.Module, bool, error) {
	m, ok := v.all[name.String()+"@"+hash]
	return m, ok, nil
}

func (v *versions) keep(ms ...*eval.Module) {
	for _, m := range ms {
		v.all[m.Name.String()+"@"+m.Hash] = m
	}
}

const restoreSrc = `
(define-keyset 'gov (read-keyset "gov"))
(interface iface
  @doc "an interface"
  (defconst LIMIT:integer 10)
  (defschema point x:integer y:integer)
  (defun norm:integer (p:object{point})))
(module dep 'gov
  (defun twice:integer (x:integer) (* 2 x))
  (defun who () (+ "dep " "v1")))
(module mod GOV
  @doc "the module"
  (implements iface)
  (use dep)
  (bless "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g")
  (defcap GOV () (enforce-keyset 'gov))
  (defcap PAY (who:string amount:decimal) @managed amount PAY-mgr (enforce (> amount 0.0) "positive"))
  (defun PAY-mgr:decimal (managed:decimal requested:decimal) (- managed requested))
  (defcap EV (x:integer) @event true)
  (defschema row n:integer next:object{row})
  (deftable rows:{row})
  (defconst TEN:integer (twice 5))
  (defconst PLACES 1.50)
  (defconst REF dep)
  (defun norm:integer (p:object{iface.point}) (+ (at 'x p) (at 'y p)))
  (defun calls () (who))
  (defun modref () REF)
  (defpact steps (x:integer)
    (step-with-rollback (twice x) "undone")
    (step (+ x TEN))))
`

func TestRestoreModule(t *testing.T) {
	mem := db.NewMemDB()
	in := eval.New(mem)
	in.Data = value.NewObject(value.Field{Key: "gov", Val: value.List{value.String("gov-key")}})
	in.Signers = []value.Signer{{PubKey: "gov-key"}}
	load(t, in, restoreSrc)

	for _, name := range []string{"iface", "dep", "mod"} {
		orig := module(t, mem, name)
		rec := eval.NewModuleRecord(orig)
		got, err := eval.RestoreModule(mem, rec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got == orig {
			t.Fatal("RestoreModule returned the stored module")
		}
		if got.Name != orig.Name || got.Interface != orig.Interface || got.Hash != orig.Hash || got.Code != orig.Code ||
			got.TxHash != orig.TxHash || got.Doc != orig.Doc || got.GovKeyset != orig.GovKeyset || got.GovCap != orig.GovCap ||
			!slices.Equal(got.Order, orig.Order) || !slices.Equal(got.Implements, orig.Implements) ||
			!slices.Equal(got.Deps, orig.Deps) || len(got.Blessed) != len(orig.Blessed) {
			t.Fatalf("%s: restored\n%+v\nwant\n%+v", name, got, orig)
		}
		for h := range orig.Blessed {
			if !got.Blessed[h] {
				t.Fatalf("%s: blessed %s lost", name, h)
			}
		}
		for _, dn := range orig.Order {
			a, b := orig.Defs[dn], got.Defs[dn]
			if b == nil || a.Kind != b.Kind || len(a.Args) != len(b.Args) || len(a.Steps) != len(b.Steps) ||
				a.Managed != b.Managed || a.Event != b.Event || b.Module != got || a.Abstract != b.Abstract {
				t.Fatalf("%s.%s: restored %+v, want %+v", name, dn, b, a)
			}
			if a.Value != nil && !value.StructEqual(a.Value, b.Value) {
				t.Fatalf("%s.%s = %v, want %v", name, dn, b.Value, a.Value)
			}
			// Not StructEqual: it does not terminate on the self-referential
			// schema of mod.rows.
			if a.Table != nil && (b.Table == nil || a.Table.Name != b.Table.Name || a.Table.Module != b.Table.Module ||
				a.Table.Hash != b.Table.Hash || a.Table.Schema.Name != b.Table.Schema.Name ||
				len(a.Table.Schema.Fields) != len(b.Table.Schema.Fields)) {
				t.Fatalf("%s.%s: table %+v, want %+v", name, dn, b.Table, a.Table)
			}
		}
	}
	rec := eval.NewModuleRecord(module(t, mem, "mod"))
	// dep is pinned (mod calls it); iface, which it implements, is listed
	// unpinned.
	if rec.GovCap != "GOV" || len(rec.Blessed) != 1 || len(rec.Deps) != 2 || rec.Deps[0].Name.Name != "dep" ||
		rec.Deps[0].Hash != module(t, mem, "dep").Hash || rec.Deps[1] != (eval.ModuleDep{Name: value.ModuleName{Name: "iface"}}) {
		t.Fatalf("record: %+v", rec)
	}

	// Restored modules run: install them in a fresh database and call them.
	mem2 := db.NewMemDB()
	ks, _, _ := mem.Read(db.KeySets, "", "gov")
	if err := mem2.Write(db.KeySets, "", "gov", ks, db.Write); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"iface", "dep", "mod"} {
		m, err := eval.RestoreModule(mem2, eval.NewModuleRecord(module(t, mem, name)))
		if err != nil {
			t.Fatal(err)
		}
		if err := mem2.Write(db.Modules, "", name, m, db.Write); err != nil {
			t.Fatal(err)
		}
	}
	in2 := eval.New(mem2)
	in2.Signers = in.Signers
	in2.GrantAdmin(value.ModuleName{Name: "mod"})
	for _, c := range [][2]string{
		{`mod.TEN`, `10`},
		{`mod.PLACES`, `1.50`},
		{`(mod.norm { "x": 1, "y": 2 })`, `3`},
		{`(mod.calls)`, `"dep v1"`},
		{`(mod.modref)`, `dep`},
		{`(mod.steps 4)`, `8`},
		{`iface.LIMIT`, `10`},
		{`(create-table mod.rows)`, `"TableCreated"`},
		{`(keys mod.rows)`, `[]`},
	} {
		if got := value.Pretty(load(t, in2, c[0])); got != c[1] {
			t.Fatalf("%s = %s, want %s", c[0], got, c[1])
		}
	}
}

// A module is rebuilt against the dependency versions it was compiled
// with, when the database keeps versions; by name otherwise.
func TestRestorePinnedDependency(t *testing.T) {
	v := &versions{MemDB: db.NewMemDB(), all: map[string]*eval.Module{}}
	in := eval.New(v)
	in.Data = value.NewObject(value.Field{Key: "gov", Val: value.List{value.String("gov-key")}})
	in.Signers = []value.Signer{{PubKey: "gov-key"}}
	load(t, in, `(define-keyset 'gov (read-keyset "gov"))
	  (module dep 'gov (defun who () (+ "dep " "v1")))
	  (module user 'gov (defun call () (dep.who)) (defun ref () dep))`)
	v.keep(module(t, v, "dep"))
	load(t, in, `(module dep 'gov (defun who () (+ "dep " "v2")))`)
	v.keep(module(t, v, "dep"))
	user := module(t, v, "user")
	rec := eval.NewModuleRecord(user)
	if len(rec.Deps) != 1 || rec.Deps[0].Hash == module(t, v, "dep").Hash {
		t.Fatalf("deps %+v: want dep pinned to v1", rec.Deps)
	}
	if got := value.Pretty(load(t, in, `(user.call)`)); got != `"dep v1"` {
		t.Fatalf("installed: %s", got)
	}
	call := func(d db.DB) string {
		t.Helper()
		m, err := eval.RestoreModule(d, rec)
		if err != nil {
			t.Fatal(err)
		}
		mem := db.NewMemDB()
		if err := mem.Write(db.Modules, "", "dep", module(t, v, "dep"), db.Write); err != nil {
			t.Fatal(err)
		}
		if err := mem.Write(db.Modules, "", "user", m, db.Write); err != nil {
			t.Fatal(err)
		}
		return value.Pretty(load(t, eval.New(mem), `(user.call)`))
	}
	if got := call(v); got != `"dep v1"` {
		t.Fatalf("restored with versions: %s", got)
	}
	if got := call(v.MemDB); got != `"dep v2"` {
		t.Fatalf("restored without versions: %s", got)
	}
}

func TestRestoreErrors(t *testing.T) {
	mem := db.NewMemDB()
	in := eval.New(mem)
	load(t, in, `(module m G (defcap G () true) (defun f () 1))`)
	good := eval.NewModuleRecord(module(t, mem, "m"))
	if _, err := eval.RestoreModule(mem, good); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(r *eval.ModuleRecord){
		"no hash":        func(r *eval.ModuleRecord) { r.Hash = "" },
		"no name":        func(r *eval.ModuleRecord) { r.Name = value.ModuleName{} },
		"other name":     func(r *eval.ModuleRecord) { r.Name.Name = "n" },
		"interface flag": func(r *eval.ModuleRecord) { r.Interface = true },
		"parse error":    func(r *eval.ModuleRecord) { r.Code = "(module m G" },
		"two forms":      func(r *eval.ModuleRecord) { r.Code += " (+ 1 2)" },
		"expression":     func(r *eval.ModuleRecord) { r.Code = "(+ 1 2)" },
		"compile error":  func(r *eval.ModuleRecord) { r.Code = "(module m G (defcap G () true) (defun f () (nope)))" },
		"missing dep":    func(r *eval.ModuleRecord) { r.Code = "(module m G (defcap G () true) (defun f () (other.g)))" },
		"missing iface":  func(r *eval.ModuleRecord) { r.Code = "(module m G (implements nope) (defcap G () true))" },
		"interface code": func(r *eval.ModuleRecord) { r.Code = "(interface m (defun f:integer ()))" },
	}
	for name, edit := range bad {
		r := good
		edit(&r)
		if m, err := eval.RestoreModule(mem, r); err == nil {
			t.Errorf("%s: restored %+v", name, m)
		}
	}
}

// In the REPL a module may call an earlier module's members by their bare
// names; such a module restores too.
func TestRestoreReplImports(t *testing.T) {
	mem := db.NewMemDB()
	in := eval.New(mem)
	load(t, in, `(module a G (defcap G () true) (defschema p x:integer) (defun f:integer () 41))
	  (module b G (defcap G () true) (defun g:integer () (+ 1 (f))) (defun h:integer (o:object{p}) (at 'x o)))`)
	rec := eval.NewModuleRecord(module(t, mem, "b"))
	m, err := eval.RestoreModule(mem, rec)
	if err != nil {
		t.Fatal(err)
	}
	mem2 := db.NewMemDB()
	for name, mod := range map[string]*eval.Module{"a": module(t, mem, "a"), "b": m} {
		if err := mem2.Write(db.Modules, "", name, mod, db.Write); err != nil {
			t.Fatal(err)
		}
	}
	if got := value.Pretty(load(t, eval.New(mem2), `(b.g)`)); got != "42" {
		t.Fatalf("(b.g) = %s", got)
	}
}

// An interface whose schema names the interface itself restores with the
// name resolved as when it was installed: inside ns.pol, pol is ns.pol
// unless an interface pol existed at the root then. A root pol installed
// later does not change what the stored ns.pol meant.
func TestRestoreSelfReferentialInterface(t *testing.T) {
	mem := db.NewMemDB()
	in := eval.New(mem)
	in.Data = value.NewObject(value.Field{Key: "ks", Val: value.List{value.String("k")}})
	in.Signers = []value.Signer{{PubKey: "k"}}
	load(t, in, `(define-namespace 'ns (read-keyset 'ks) (read-keyset 'ks))
	  (interface dual (defun f:bool ()))
	  (namespace 'ns)
	  (interface pol (defschema one p:module{pol}) (defschema many ps:[module{pol}]) (defun f:bool ()))
	  (interface dual (defschema one p:module{dual}) (defun h:bool ()))
	  (module impl G (defcap G () true) (implements pol) (defun f:bool () true) (defun g:bool (p:module{pol}) true))
	  (module impl2 G (defcap G () true) (implements dual) (defun f:bool () true))
	  (namespace "")
	  (interface pol (defun g:bool ()))`)
	fieldRefs := func(m *eval.Module, schema string) []value.ModuleName {
		t.Helper()
		d := m.Defs[schema]
		if d == nil || d.Schema == nil || len(d.Schema.Fields) != 1 {
			t.Fatalf("%s.%s: no one-field schema: %+v", m.Name, schema, d)
		}
		ty := &d.Schema.Fields[0].Type
		if ty.Kind == value.TyList {
			ty = ty.Elem
		}
		return ty.ModRefs
	}
	nsName := func(n string) value.ModuleName { return value.ModuleName{Namespace: "ns", Name: n} }
	for _, c := range []struct {
		mod, schema string
		want        value.ModuleName
	}{
		{"pol", "one", nsName("pol")},
		{"pol", "many", nsName("pol")},
		{"dual", "one", value.ModuleName{Name: "dual"}},
	} {
		orig := module(t, mem, "ns."+c.mod)
		if got := fieldRefs(orig, c.schema); !slices.Equal(got, []value.ModuleName{c.want}) {
			t.Fatalf("installed ns.%s.%s: module{%v}, want %v", c.mod, c.schema, got, c.want)
		}
		got, err := eval.RestoreModule(mem, eval.NewModuleRecord(orig))
		if err != nil {
			t.Fatal(err)
		}
		if refs := fieldRefs(got, c.schema); !slices.Equal(refs, []value.ModuleName{c.want}) {
			t.Fatalf("restored ns.%s.%s: module{%v}, want %v", c.mod, c.schema, refs, c.want)
		}
	}
	// Modules: implements and argument types alike.
	for _, c := range []struct {
		mod  string
		want value.ModuleName
	}{{"impl", nsName("pol")}, {"impl2", value.ModuleName{Name: "dual"}}} {
		orig := module(t, mem, "ns."+c.mod)
		got, err := eval.RestoreModule(mem, eval.NewModuleRecord(orig))
		if err != nil {
			t.Fatalf("restore ns.%s: %v", c.mod, err)
		}
		for _, m := range []*eval.Module{orig, got} {
			if !slices.Equal(m.Implements, []value.ModuleName{c.want}) {
				t.Fatalf("ns.%s implements %v, want %v", c.mod, m.Implements, c.want)
			}
		}
		if c.mod == "impl" {
			if a := got.Defs["g"].Args[0].Type; a == nil || !slices.Equal(a.ModRefs, []value.ModuleName{c.want}) {
				t.Fatalf("restored ns.impl.g takes %v, want module{%v}", a, c.want)
			}
		}
	}
}
