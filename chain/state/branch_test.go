package state

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// forkBlock runs one block of writes to table "t" on w (one transaction, which must get id
// wantTx), records meta "b" = name, and returns its frozen writes.
func forkBlock(t *testing.T, w *View, wantTx db.TxID, name string, kv ...string) *Block {
	t.Helper()
	id, err := w.BeginTx(db.Transactional)
	if err != nil || id != wantTx {
		t.Fatalf("%s: tx %d %v, want %d", name, id, err, wantTx)
	}
	for i := 0; i < len(kv); i += 2 {
		if err := w.Write(db.UserTable, "t", kv[i], row(kv[i+1]), db.Write); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.CommitTx(); err != nil {
		t.Fatal(err)
	}
	if err := w.PutMeta("b", []byte(name)); err != nil {
		t.Fatal(err)
	}
	b, err := w.Freeze()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// snapshot reads what a test compares between a branch view and the applied state: every row
// and the keys of table "t", whether table "u" exists, meta "b", and the next tx id.
func snapshot(t *testing.T, w db.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	ks, err := w.Keys(db.UserTable, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		v, ok, err := w.Read(db.UserTable, "t", k)
		if err != nil || !ok {
			t.Fatalf("read %q: %v %v", k, ok, err)
		}
		out["t/"+k] = eval.Pretty(v.(eval.Value))
	}
	out["has u"] = map[bool]string{true: "yes", false: "no"}[w.HasTable("u")]
	m, ok, err := w.(*View).Meta("b")
	if err != nil {
		t.Fatal(err)
	}
	out["meta b"] = map[bool]string{true: string(m), false: "none"}[ok]
	id, err := w.BeginTx(db.Local)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CommitTx(); err != nil {
		t.Fatal(err)
	}
	out["next tx"] = strconv.FormatInt(int64(id), 10)
	return out
}

// A fork's blocks executed on branch views, never applied, read exactly as the state reads
// once the fork is applied with ApplyBlock; the stored main branch is untouched meanwhile.
func TestBranchViewsReadAsTheAppliedFork(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "chain-0/")
	block(t, v, 0, 0, "a", "0")
	block(t, v, 1, 1, "a", "1", "b", "1")
	block(t, v, 2, 2, "a", "2m", "c", "2m")
	block(t, v, 3, 3, "c", "3m")
	mainAt3 := snapshot(t, v.View(3))

	// The fork grows from block 1.
	br := NewBranch(1)
	w := v.BranchView(br)
	if err := w.CreateTable("u"); err != nil {
		t.Fatal(err)
	}
	f2 := forkBlock(t, w, 2, "f2", "a", "2f", "d", "2f")
	if _, err := w.BeginTx(db.Transactional); !errors.Is(err, ErrFrozen) {
		t.Fatalf("begin on a frozen view: %v, want ErrFrozen", err)
	}
	if err := w.Write(db.UserTable, "t", "z", row("z"), db.Write); !errors.Is(err, ErrFrozen) {
		t.Fatalf("write on a frozen view: %v, want ErrFrozen", err)
	}
	if err := w.PutMeta("b", nil); !errors.Is(err, ErrFrozen) {
		t.Fatalf("meta on a frozen view: %v, want ErrFrozen", err)
	}
	br.Extend(f2)
	at2 := snapshot(t, v.BranchView(br))
	want2 := map[string]string{"t/a": `{"v": "2f"}`, "t/b": `{"v": "1"}`, "t/d": `{"v": "2f"}`, "has u": "yes",
		"meta b": "f2", "next tx": "3"}
	if !reflect.DeepEqual(at2, want2) {
		t.Fatalf("the fork as of f2 reads\n%v\nwant\n%v", at2, want2)
	}
	f3 := forkBlock(t, v.BranchView(br), 3, "f3", "e", "3f", "a", "3f")
	br.Extend(f3)
	if br.Len() != 2 || br.Base() != 1 {
		t.Fatalf("branch of %d blocks on %d", br.Len(), br.Base())
	}
	at3 := snapshot(t, v.BranchView(br))
	if got := snapshot(t, v.View(3)); !reflect.DeepEqual(got, mainAt3) {
		t.Fatalf("the stored main branch changed under the fork:\n%v\nwas\n%v", got, mainAt3)
	}

	// A view of the branch made now is stale once the state is rewound below its base.
	stale := v.BranchView(br)
	if err := v.Rewind(0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := stale.Read(db.UserTable, "t", "b"); !errors.Is(err, ErrStaleView) {
		t.Fatalf("read through a branch view whose base was rewound: %v, want ErrStaleView", err)
	}

	// Back to block 1, the fork applied from its kept writes.
	block(t, v, 1, 1, "a", "1", "b", "1")
	if err := v.ApplyBlock(f2, 3); !errors.Is(err, ErrHeight) {
		t.Fatalf("apply at height 3 on a state at 1: %v, want ErrHeight", err)
	}
	if err := v.ApplyBlock(f2, 2); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, v.View(2)); !reflect.DeepEqual(got, want2) {
		t.Fatalf("f2 applied reads\n%v\nwant\n%v", got, want2)
	}
	if err := v.ApplyBlock(f3, 3); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, v.View(3)); !reflect.DeepEqual(got, at3) {
		t.Fatalf("the fork applied reads\n%v\nthe branch view read\n%v", got, at3)
	}
	// And it survives reopening, as any applied block.
	v2 := openVersioned(t, ldb, "chain-0/")
	if got := snapshot(t, v2.View(3)); !reflect.DeepEqual(got, at3) {
		t.Fatalf("reopened, the fork reads\n%v\nwant\n%v", got, at3)
	}
}

// The state remembers only its recent rewinds: a view made before the ones it forgot counts as
// stale, one made since reads on, and the list stays bounded however many reorgs the node sees.
func TestRewindsRememberedAreBounded(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "chain-0/")
	block(t, v, 0, 0, "a", "0")
	old := v.View(0)
	for i := range 2*keptRewinds + 5 {
		block(t, v, 1, db.TxID(1), "a", strconv.Itoa(i))
		if err := v.Rewind(0); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(v.rewinds); n >= 2*keptRewinds || n < keptRewinds {
		t.Fatalf("%d rewinds remembered, want between %d and %d", n, keptRewinds, 2*keptRewinds)
	}
	// Every rewind was to 0, so no view at 0 is stale by the rule; the old one is, having
	// outlived what the state remembers.
	if _, _, err := old.Read(db.UserTable, "t", "a"); !errors.Is(err, ErrStaleView) {
		t.Fatalf("a view older than the rewinds remembered: %v, want ErrStaleView", err)
	}
	fresh := v.View(0)
	if _, ok, err := fresh.Read(db.UserTable, "t", "a"); err != nil || !ok {
		t.Fatalf("a view made now: %v %v", ok, err)
	}
}
