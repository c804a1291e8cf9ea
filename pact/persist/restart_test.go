package persist

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/persist/dbtest"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// session is an interpreter over a DB in dir, driven the way the REPL
// drives one (pact/repl/repl.go), with transactions opened and closed
// directly on the DB.
type session struct {
	t  *testing.T
	db *DB
	in *eval.Interp
	n  int
}

func openSession(t *testing.T, dir string) *session {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &session{t: t, db: d, in: eval.New(d)}
}

func (s *session) close() {
	s.t.Helper()
	if err := s.db.Close(); err != nil {
		s.t.Fatal(err)
	}
}

// run evaluates a program and returns the last result, or the first error.
func (s *session) run(src string) (value.Value, error) {
	s.n++
	name := fmt.Sprintf("input-%d.repl", s.n)
	f, err := syntax.ParseRepl(name, src)
	if err != nil {
		return nil, err
	}
	s.in.SetSource(name, src)
	var last value.Value
	for _, item := range f.Items {
		if last, err = s.in.EvalTopLevel(item, true); err != nil {
			return nil, err
		}
	}
	return last, nil
}

// ok evaluates src, which must succeed.
func (s *session) ok(src string) value.Value {
	s.t.Helper()
	v, err := s.run(src)
	if err != nil {
		s.t.Fatalf("%s: %v", src, err)
	}
	return v
}

// want evaluates src and checks the rendering of the result.
func (s *session) want(src, want string) {
	s.t.Helper()
	v, err := s.run(src)
	if err != nil {
		s.t.Fatalf("%s: %v", src, err)
	}
	if got := value.Pretty(v); got != want {
		s.t.Fatalf("%s = %s, want %s", src, got, want)
	}
}

// fails evaluates src and checks that it fails with msg in the error.
func (s *session) fails(src, msg string) {
	s.t.Helper()
	v, err := s.run(src)
	if err == nil {
		s.t.Fatalf("%s = %v, want failure %q", src, v, msg)
	}
	if !strings.Contains(err.Error(), msg) {
		s.t.Fatalf("%s: %v, want %q", src, err, msg)
	}
}

func (s *session) keys(keys ...string) {
	s.in.Signers = nil
	for _, k := range keys {
		s.in.Signers = append(s.in.Signers, value.Signer{PubKey: k})
	}
}

func (s *session) begin(wantID db.TxID) {
	s.t.Helper()
	id, err := s.db.BeginTx(db.Transactional)
	if err != nil {
		s.t.Fatal(err)
	}
	if id != wantID {
		s.t.Fatalf("tx id %d, want %d", id, wantID)
	}
}

func (s *session) commit() {
	s.t.Helper()
	if _, err := s.db.CommitTx(); err != nil {
		s.t.Fatal(err)
	}
	s.in.ResetTx()
}

// loadedHash is the hash in "Loaded module NAME, hash HASH".
func loadedHash(t *testing.T, v value.Value) string {
	t.Helper()
	s, ok := v.(value.String)
	_, h, found := strings.Cut(string(s), ", hash ")
	if !ok || !found {
		t.Fatalf("load result %v", v)
	}
	return h
}

// TestRestart installs modules, keysets, a namespace and rows through an
// interpreter, starts a defpact and upgrades modules, then reopens the
// database (twice) and checks that everything behaves as before.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	s := openSession(t, dir)
	s.in.Data = dbtest.KeysetData("gov", "gov-key", "user", "user-key", "alice", "alice-key", "bob", "bob-key")
	s.keys("gov-key", "user-key")

	s.begin(0)
	s.ok(dbtest.BankSrc)
	s.want(`(free.bank.open-account "alice" (read-keyset "alice"))`, `"Write succeeded"`)
	s.want(`(free.bank.open-account "bob" (read-keyset "bob"))`, `"Write succeeded"`)
	s.want(`(free.bank.deposit "alice" 100.25)`, `"Write succeeded"`)
	s.commit()

	// A defpact started before the restart, continued after it.
	s.begin(1)
	s.in.TxHash = value.HashBytes([]byte("pact-1"))
	s.keys("alice-key")
	s.want(`(free.bank.transfer "alice" "bob" 10.5)`, `"debited"`)
	s.commit()

	// A client of bank, and clients of two modules that are then
	// upgraded: sq blessing its old hash, sq2 not.
	s.begin(2)
	s.keys("gov-key")
	s.ok(`(module client 'gov-ks
	  (use free.bank)
	  (defun total:decimal () (+ (balance "alice") (free.bank.balance "bob")))
	  (defun unit:decimal () free.shape.UNIT))`)
	sqHash := loadedHash(t, s.ok(fmt.Sprintf(dbtest.ModuleV1, "sq")))
	s.ok(fmt.Sprintf(dbtest.ModuleV1, "sq2"))
	s.ok(`(create-table sq.entries) (create-table sq2.entries)
	  (module cli 'gov-ks
	    (defun put (k:string) (sq.add-entry k))
	    (defun version:integer () (sq.version)))
	  (module cli2 'gov-ks
	    (defun put (k:string) (sq2.add-entry k)))`)
	s.want(`(cli.put "a")`, `"Write succeeded"`)
	s.commit()
	s.begin(3)
	s.keys("gov-key")
	s.ok(fmt.Sprintf(dbtest.ModuleV2, "sq", `(bless "`+sqHash+`")`))
	s.ok(fmt.Sprintf(dbtest.ModuleV2, "sq2", ""))
	s.commit()
	s.keys()
	upgraded := func(s *session, k string) {
		t.Helper()
		s.want(`(sq.version)`, `2`)
		s.want(`(cli.version)`, `1`) // dependents keep the code they were loaded with
		s.want(`(sq.get-entry "a")`, `1`)
		s.want(`(cli.put "b`+k+`")`, `"Write succeeded"`) // old code, blessed hash: its table still works
		s.want(`(sq.get-entry "b`+k+`")`, `1`)
		s.want(`(sq.add-entry "c`+k+`")`, `"Write succeeded"`)
		s.want(`(sq.get-entry "c`+k+`")`, `2`)
		s.fails(`(cli2.put "b")`, "hash not blessed for module sq2")
	}
	s.begin(4)
	upgraded(s, "0")
	if err := s.db.RollbackTx(); err != nil {
		t.Fatal(err)
	}
	s.in.ResetTx()
	s.close()

	// After a restart: modules are rebuilt from their records.
	s = openSession(t, dir)
	s.in.Data = dbtest.KeysetData("gov", "gov-key", "user", "user-key")
	s.begin(4)
	s.want(`(free.bank.balance "alice")`, `89.75`)
	s.want(`(free.bank.balance "bob")`, `0.0`)
	s.want(`(client.total)`, `89.75`)
	s.want(`(client.unit)`, `1.0`)
	s.want(`(free.bank.area 3.0)`, `9.0`)
	s.want(`free.bank.FEE`, `0.10`)
	s.want(`(format-time "%Y-%m-%d" free.bank.START)`, `"2024-01-01"`)
	s.want(`(at 'interfaces (describe-module "free.bank"))`, `["free.shape"]`)
	upgraded(s, "1")

	// The stored keyset in a row guards the account.
	s.fails(`(free.bank.withdraw "alice" 1.0)`, "Keyset failure")
	s.keys("alice-key")
	s.want(`(free.bank.withdraw "alice" 1.0)`, `"Write succeeded"`)
	// A stored keyset by name.
	s.keys()
	s.fails(`(enforce-keyset 'gov-ks)`, "Keyset failure")
	s.keys("gov-key")
	s.want(`(enforce-keyset 'gov-ks)`, `true`)
	// The namespace's user guard, enforced to install a new module there.
	s.keys("gov-key")
	s.fails(`(namespace 'free) (module extra 'gov-ks (defun f () 1))`, "Keyset failure")
	s.in.ResetTx()
	s.keys("gov-key", "user-key")
	s.want(`(namespace 'free) (module extra 'gov-ks (defun f () (bank.area 2.0))) (extra.f)`, `4.0`)
	s.want(`(at 'admin-guard (describe-namespace "free"))`, `'gov-ks`)

	// The defpact continues where it stopped.
	s.keys()
	v, err := s.in.ContinuePact(1, false, value.HashBytes([]byte("pact-1")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if value.Pretty(v) != `"credited"` {
		t.Fatalf("step 1: %v", v)
	}
	s.want(`(free.bank.balance "bob")`, `10.5`)
	s.commit()

	// Each module was compiled once: reading it again gives the same one.
	m1, _, err := s.db.Read(db.Modules, "", "free.bank")
	if err != nil {
		t.Fatal(err)
	}
	m2, _, _ := s.db.Read(db.Modules, "", "free.bank")
	v3, _, _ := s.db.ModuleVersion(value.ModuleName{Name: "bank", Namespace: "free"}, m1.(*eval.Module).Hash)
	if m1 != m2 || any(v3) != m1 {
		t.Fatal("a module was rebuilt twice")
	}
	s.close()

	// A second restart sees the second session's commits.
	s = openSession(t, dir)
	s.begin(5)
	s.want(`(free.bank.balance "alice")`, `88.75`)
	s.want(`(free.bank.balance "bob")`, `10.5`)
	s.want(`(free.extra.f)`, `4.0`)
	s.want(`(sq.get-entry "b1")`, `1`)
	upgraded(s, "2")
	if _, err := s.in.ContinuePact(1, false, value.HashBytes([]byte("pact-1")), nil); err == nil ||
		!strings.Contains(err.Error(), "already completed") {
		t.Fatalf("completed defpact: %v", err)
	}
	s.close()
}

// A defpact started before an upgrade of its module continues, after a
// restart, with the code it started with, as it would have without the
// restart.
func TestRestartDefpactAcrossUpgrade(t *testing.T) {
	const src = `(module pp 'gov-ks
	  (defpact two (x:integer)
	    (step (format "%s step 0 {}" [x]))
	    (step (format "%s step 1 {}" [x]))))`
	dir := t.TempDir()
	s := openSession(t, dir)
	s.in.Data = dbtest.KeysetData("gov", "gov-key")
	s.keys("gov-key")
	s.ok(`(define-keyset 'gov-ks (read-keyset "gov"))`)
	s.ok(fmt.Sprintf(src, "v1", "v1"))
	s.in.TxHash = value.HashBytes([]byte("p"))
	s.want(`(pp.two 7)`, `"v1 step 0 7"`)
	s.in.ClearLastPact()
	s.ok(fmt.Sprintf(src, "v2", "v2"))
	s.close()

	s = openSession(t, dir)
	defer s.close()
	v, err := s.in.ContinuePact(1, false, value.HashBytes([]byte("p")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := value.Pretty(v); got != `"v1 step 1 7"` {
		t.Fatalf("step 1 after upgrade and restart: %s", got)
	}
	s.in.TxHash = value.HashBytes([]byte("q"))
	s.in.ClearLastPact()
	s.want(`(pp.two 8)`, `"v2 step 0 8"`)
}
