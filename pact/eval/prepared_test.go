package eval

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// run evaluates a REPL program on in.
func run(t *testing.T, in *Interp, src string) {
	t.Helper()
	f, err := syntax.ParseRepl("test.repl", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range f.Items {
		if _, err := in.EvalTopLevel(item, true); err != nil {
			t.Fatalf("%v\nin %s", err, src)
		}
	}
}

func prepare(t *testing.T, src string) *Prepared {
	t.Helper()
	f, err := syntax.ParseRepl("prepared.repl", src)
	if err != nil || len(f.Items) != 1 {
		t.Fatalf("parse %q: %v", src, err)
	}
	return Prepare(f.Items[0])
}

// evalBoth evaluates p, and its form compiled anew, on in and says what
// each gave (the value shown, or the error).
func evalBoth(t *testing.T, in *Interp, p *Prepared) (prepared, fresh string) {
	t.Helper()
	show := func(v value.Value, err error) string {
		if err != nil {
			return showErr(err)
		}
		return value.Show(v)
	}
	prepared = show(in.EvalPrepared(p, true))
	fresh = show(in.EvalTopLevel(p.Form(), true))
	return prepared, fresh
}

// showErr shows an error with all it carries.
func showErr(err error) string {
	return fmt.Sprintf("error: %#v", err)
}

// kept is the compiled forms p keeps.
func kept(p *Prepared) []*compiledForm {
	if fs := p.forms.Load(); fs != nil {
		return *fs
	}
	return nil
}

func wantBoth(t *testing.T, in *Interp, p *Prepared, want string) {
	t.Helper()
	got, fresh := evalBoth(t, in, p)
	if got != want || fresh != want {
		t.Errorf("prepared %s, compiled anew %s; want %s", got, fresh, want)
	}
}

const moduleV1 = `
(module m G (defcap G () true)
  (defun f () 1))`

const moduleV2 = `
(module m G (defcap G () true)
  (defun f () 2))`

func TestPreparedKeepsItsCompiledForm(t *testing.T) {
	in := New(db.NewMemDB())
	run(t, in, moduleV1)
	p := prepare(t, "(m.f)")
	wantBoth(t, in, p, "1")
	forms := kept(p)
	wantBoth(t, in, p, "1")
	if !slices.Equal(kept(p), forms) {
		t.Error("the compiled form was made again with nothing changed")
	}
	// A fresh interpreter on the same database, as a node makes one for
	// each command, uses it too.
	first := New(in.DB)
	wantBoth(t, first, p, "1")
	forms = kept(p)
	wantBoth(t, New(in.DB), p, "1")
	if !slices.Equal(kept(p), forms) {
		t.Error("a fresh interpreter on the same database compiled the form again")
	}
	// So does this one once its transaction is over (the module's names
	// it brought into its scope are gone).
	in.ResetTx()
	wantBoth(t, in, p, "1")
	if !slices.Equal(kept(p), forms) {
		t.Error("the interpreter that installed the module compiled the form again after its transaction")
	}
}

// TestPreparedSeesModuleUpgrade upgrades m between two evaluations in the
// same scope (the names installing brought into scope gone with the
// transaction).
func TestPreparedSeesModuleUpgrade(t *testing.T) {
	in := New(db.NewMemDB())
	run(t, in, moduleV1)
	in.ResetTx()
	p := prepare(t, "(m.f)")
	wantBoth(t, in, p, "1")
	run(t, in, moduleV2)
	in.ResetTx()
	wantBoth(t, in, p, "2")
}

// TestPreparedKeepsAFormPerDatabase evaluates a form on two databases in
// turn, as a node's chains do, each with its own version of the module.
func TestPreparedKeepsAFormPerDatabase(t *testing.T) {
	one, two := New(db.NewMemDB()), New(db.NewMemDB())
	run(t, one, moduleV1)
	run(t, two, moduleV2)
	p := prepare(t, "(m.f)")
	for range 3 {
		wantBoth(t, New(one.DB), p, "1")
		wantBoth(t, New(two.DB), p, "2")
	}
	if n := len(kept(p)); n != 2 {
		t.Errorf("%d compiled forms kept for two databases, want 2", n)
	}
}

func TestPreparedSeesRollback(t *testing.T) {
	in := New(db.NewMemDB())
	run(t, in, moduleV1)
	in.ResetTx()
	p := prepare(t, "(m.f)")
	wantBoth(t, in, p, "1")
	if _, err := in.DB.BeginTx(db.Transactional); err != nil {
		t.Fatal(err)
	}
	run(t, in, moduleV2)
	in.ResetTx()
	wantBoth(t, in, p, "2")
	if err := in.DB.RollbackTx(); err != nil {
		t.Fatal(err)
	}
	wantBoth(t, in, p, "1")
}

func TestPreparedSeesReplDefinitions(t *testing.T) {
	in := New(db.NewMemDB())
	run(t, in, moduleV1+`(defun g () 10)`)
	in.ResetTx() // drops the names installing m brought into scope
	p := prepare(t, "(g)")
	wantBoth(t, in, p, "10")
	run(t, in, `(defun g () 11)`)
	wantBoth(t, in, p, "11")
	// A top-level use: f, unbound before, is m's.
	q := prepare(t, "(f)")
	if got, fresh := evalBoth(t, in, q); got != fresh || got == "1" {
		t.Fatalf("before the use: prepared %s, compiled anew %s", got, fresh)
	}
	run(t, in, `(use m)`)
	wantBoth(t, in, q, "1")
}

func TestPreparedSeesNamespace(t *testing.T) {
	in := New(db.NewMemDB())
	data, err := value.DecodeJSON([]byte(`{"ks": {"keys": [], "pred": "keys-all"}}`))
	if err != nil {
		t.Fatal(err)
	}
	in.Data = data.(*value.Object)
	run(t, in, moduleV1+`
(define-namespace 'ns (read-keyset "ks") (read-keyset "ks"))
(namespace 'ns)
(module n G (defcap G () true) (defun f () 3))`)
	// n.f is ns.n.f in ns, unbound at the root.
	p := prepare(t, "(n.f)")
	in.SetNamespace("ns")
	wantBoth(t, in, p, "3")
	in.SetNamespace("")
	got, fresh := evalBoth(t, in, p)
	if got != fresh || got == "3" {
		t.Errorf("at the root: prepared %s, compiled anew %s", got, fresh)
	}
	in.SetNamespace("ns")
	wantBoth(t, in, p, "3")
	// Installed at the root since, n is the root's.
	in.SetNamespace("")
	run(t, in, `(module n G (defcap G () true) (defun f () 4))`)
	in.SetNamespace("ns")
	wantBoth(t, in, p, "4")
}

// TestPreparedGas evaluates a prepared form in one transaction after
// another, each with a fresh interpreter as a node makes them, and checks
// its gas log (the read of m charged anew in each transaction) and its
// out-of-gas error in the read's charge against the form compiled anew.
func TestPreparedGas(t *testing.T) {
	d := db.NewMemDB()
	installer := New(d)
	// Installed metered, the module has the image whose size its read is
	// charged by.
	installer.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000_000))
	run(t, installer, moduleV1)
	p := prepare(t, "(m.f)")
	eval := func(limit gas.MilliGas, prepared bool) string {
		in := New(d)
		in.Gas = gas.NewMeter(gas.Table, limit)
		in.Gas.StartLog()
		var err error
		if prepared {
			_, err = in.EvalPrepared(p, false)
		} else {
			_, err = in.EvalTopLevel(p.Form(), false)
		}
		out := fmt.Sprint(in.Gas.Used(), in.Gas.TakeLog())
		if err != nil {
			out += " " + showErr(err)
		}
		return out
	}
	full := eval(gas.FromGas(1000), false)
	if !strings.Contains(full, "MOpLoadModule") {
		t.Fatalf("reading m is not charged (%s): the test checks nothing", full)
	}
	for _, limit := range []gas.MilliGas{gas.FromGas(1000), 1, gas.FromGas(1000)} {
		fresh := eval(limit, false)
		for range 2 {
			if got := eval(limit, true); got != fresh {
				t.Errorf("limit %d: prepared %s, compiled anew %s", limit, got, fresh)
			}
		}
	}
}

// TestPreparedShared evaluates one Prepared from interpreters on several
// goroutines at once, on two databases (run it with -race).
func TestPreparedShared(t *testing.T) {
	one, two := New(db.NewMemDB()), New(db.NewMemDB())
	run(t, one, moduleV1)
	run(t, two, moduleV2)
	p := prepare(t, "(m.f)")
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, want := one.DB, "1"
			if g%2 == 1 {
				d, want = two.DB, "2"
			}
			for range 50 {
				in := New(d)
				in.Gas = gas.NewMeter(gas.Table, gas.FromGas(1000))
				v, err := in.EvalPrepared(p, false)
				if err != nil || value.Show(v) != want {
					errs <- fmt.Sprintf("goroutine %d: %v %v, want %s", g, v, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
