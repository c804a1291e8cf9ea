package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// evalOne evaluates one REPL expression and shows its value or error.
func evalOne(t *testing.T, in *Interp, src string) string {
	t.Helper()
	f, err := syntax.ParseRepl("test.repl", src)
	if err != nil {
		t.Fatal(err)
	}
	v, err := in.EvalTopLevel(f.Items[0], true)
	if err != nil {
		return "error: " + err.Error()
	}
	return value.Show(v)
}

// The modules an interpreter has looked up are forgotten whenever the
// database may have changed under them: a module upgraded in the same
// transaction, a transaction rolled back, the database changed between
// two evaluations by its owner. Each time the code sees the module the
// database holds.
func TestKnownModulesFollowTheDatabase(t *testing.T) {
	mdb := db.NewMemDB()
	in := New(mdb)
	module := func(v string) string {
		return `(module m G (defcap G () true) (defun v () ` + v + `))`
	}
	begin := func() {
		if _, err := mdb.BeginTx(db.Transactional); err != nil {
			t.Fatal(err)
		}
	}
	end := func(in *Interp, commit bool) {
		var err error
		if commit {
			_, err = mdb.CommitTx()
		} else {
			err = mdb.RollbackTx()
		}
		if err != nil {
			t.Fatal(err)
		}
		in.ResetTx() // as the REPL's commit-tx and rollback-tx do
	}
	begin()
	run(t, in, module("1"))
	end(in, true)
	if got := evalOne(t, in, `(m.v)`); got != "1" {
		t.Fatalf("v = %s", got)
	}

	// Upgraded within a transaction, then within one evaluation.
	begin()
	run(t, in, module("2"))
	if got := evalOne(t, in, `(m.v)`); got != "2" {
		t.Fatalf("after the upgrade v = %s, want 2", got)
	}
	// Rolled back: the first version again.
	end(in, false)
	if got := evalOne(t, in, `(m.v)`); got != "1" {
		t.Fatalf("after the rollback v = %s, want 1", got)
	}

	// Changed by the database's owner between evaluations: the module as
	// another interpreter wrote it.
	other := New(mdb)
	begin()
	run(t, other, module("3"))
	end(other, true)
	if got := evalOne(t, in, `(m.v)`); got != "3" {
		t.Fatalf("after another writer v = %s, want 3", got)
	}
	if got, want := in.nModules, 1; got != want {
		t.Errorf("%d modules known, want %d", got, want)
	}
}
