package state

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// idModule is module m as installed by block id: m.id returns the block's
// id and m.stored what m.set wrote to m's table.
const idModule = `
(module m G
  (defcap G () true)
  (defschema row v:integer)
  (deftable hs:{row})
  (defun id:integer () %d)
  (defun set (n:integer) (write hs "h" { "v": n }))
  (defun stored:integer () (at 'v (read hs "h"))))
`

// evalIn runs src on w in a Local transaction and returns the last value.
func evalIn(w db.DB, src string) (eval.Value, error) {
	f, err := syntax.ParseRepl("read.repl", src)
	if err != nil {
		return nil, err
	}
	in := eval.New(w)
	in.SetSource("read.repl", src)
	if _, err := w.BeginTx(db.Local); err != nil {
		return nil, err
	}
	defer w.CommitTx()
	var last eval.Value
	for _, item := range f.Items {
		if last, err = in.EvalTopLevel(item, true); err != nil {
			return nil, err
		}
	}
	return last, nil
}

// idBlock makes block h, to apply, with id id everywhere: a raw row t/h,
// written through db.DB, a new version of module m (installed through the
// interpreter) whose m.id is id and whose table holds id, and metadata
// "id". extra is more Pact code for the block's transaction.
func idBlock(v *Versioned, h uint64, id int64, extra string) (db.DB, error) {
	w := v.View(max(h, 1) - 1)
	if h == 0 {
		if err := w.CreateTable("t"); err != nil {
			return nil, err
		}
	}
	if _, err := w.BeginTx(db.Transactional); err != nil {
		return nil, err
	}
	if err := w.Write(db.UserTable, "t", "h", eval.NewInt(id), db.Write); err != nil {
		return nil, err
	}
	src := fmt.Sprintf(idModule, id)
	if h == 0 {
		src += "(create-table m.hs)\n"
	}
	src += fmt.Sprintf("(m.set %d)\n", id) + extra
	f, err := syntax.ParseRepl("block.repl", src)
	if err != nil {
		return nil, err
	}
	in := eval.New(w)
	in.SetSource("block.repl", src)
	for _, item := range f.Items {
		if _, err := in.EvalTopLevel(item, true); err != nil {
			return nil, fmt.Errorf("block %d: %w", h, err)
		}
	}
	if _, err := w.CommitTx(); err != nil {
		return nil, err
	}
	if err := w.(*View).PutMeta("id", []byte(strconv.FormatInt(id, 10))); err != nil {
		return nil, err
	}
	return w, nil
}

// readIDs reads block w's id every way: the raw row, the metadata, the
// user table's keys, and through the interpreter m.id and m.stored (which
// restore the module and read its table). A failure is returned as is.
func readIDs(w db.DB) (ids []int64, interpErr, err error) {
	r, ok, err := w.Read(db.UserTable, "t", "h")
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, errors.New("no row t/h")
	}
	ids = append(ids, int64(r.(eval.Integer).Int64()))
	b, ok, err := w.(*View).Meta("id")
	if err != nil {
		return nil, nil, err
	}
	n, perr := strconv.ParseInt(string(b), 10, 64)
	if !ok || perr != nil {
		return nil, nil, fmt.Errorf("meta id %q %v %v", b, ok, perr)
	}
	ids = append(ids, n)
	if ks, err := w.Keys(db.UserTable, "t"); err != nil {
		return nil, nil, err
	} else if len(ks) != 1 || ks[0] != "h" {
		return nil, nil, fmt.Errorf("keys %q", ks)
	}
	val, ierr := evalIn(w, "[(m.id) (m.stored)]")
	if ierr != nil {
		return ids, ierr, nil
	}
	l, ok := val.(eval.List)
	if !ok || len(l) != 2 {
		return nil, nil, fmt.Errorf("m.id, m.stored = %v", val)
	}
	for _, x := range l {
		ids = append(ids, int64(x.(eval.Integer).Int64()))
	}
	return ids, nil, nil
}

// One goroutine applies blocks and rewinds while readers make views at
// random heights and read through them, raw and through the interpreter.
// Every block writes its id (height*1000 + the number of rewinds so far)
// everywhere, so a reader sees exactly its block's id, or, once a rewind
// dropped its block, ErrStaleView: never a later block's or another
// branch's id, and never a failure on a live view.
func TestVersionedConcurrentReaders(t *testing.T) {
	ldb := openLevel(t, t.TempDir())
	defer ldb.Close()
	v := openVersioned(t, ldb, "race/")

	// chain is the ids of the current chain's blocks. Half the readers
	// make their views under its lock, to know the id they must see; the
	// others make them concurrently with Apply and Rewind, and check that
	// the id is of their height and the same throughout the view.
	var chain struct {
		sync.RWMutex
		ids []int64
	}
	var done atomic.Bool
	var failed atomic.Bool
	fail := func(format string, args ...any) {
		if !failed.Swap(true) {
			t.Errorf(format, args...)
		}
	}

	const readers, blocks = 4, 40
	var wg sync.WaitGroup
	var live, stale [readers]int
	for r := range readers {
		wg.Go(func() {
			strict := r%2 == 0
			for !done.Load() && !failed.Load() {
				var w db.DB
				want := int64(-1)
				if strict {
					chain.RLock()
					if len(chain.ids) > 0 {
						h := rand.N(len(chain.ids))
						want, w = chain.ids[h], v.View(uint64(h))
					}
					chain.RUnlock()
				} else if top, ok := v.Height(); ok {
					w = v.View(rand.N(top + 1))
				}
				if w == nil {
					continue
				}
				if err := w.(*View).err; err != nil {
					// A rewind between Height and View: the view is
					// refused, which is all it may do.
					if strict || !errors.Is(err, ErrHeight) {
						fail("view: %v", err)
					}
					continue
				}
				base := int64(w.(*View).Base())
				first := want
				// Several rounds in one view, so that blocks are applied
				// and rewound during its life.
				for round := 0; round < 3; round++ {
					ids, ierr, err := readIDs(w)
					if err != nil {
						if !errors.Is(err, ErrStaleView) {
							fail("view at %d: %v", base, err)
						}
						stale[r]++
						// Stale for good: no later read may succeed.
						if _, _, err := w.Read(db.UserTable, "t", "h"); !errors.Is(err, ErrStaleView) {
							fail("view at %d read after a stale read: %v", base, err)
						}
						break
					}
					for _, id := range ids {
						if first < 0 {
							first = id
						}
						if id/1000 != base || id != first {
							fail("view at %d (want id %d): read ids %v", base, want, ids)
						}
					}
					if ierr != nil {
						// The interpreter does not always pass a
						// database error on (a module it cannot read is
						// "not found"); it may fail only on a stale view.
						if _, _, err := w.Read(db.UserTable, "t", "h"); !errors.Is(err, ErrStaleView) {
							fail("view at %d: interpreter: %v, on a live view (%v)", base, ierr, err)
						}
						stale[r]++
						break
					}
					live[r]++
				}
			}
		})
	}

	rng := rand.New(rand.NewPCG(1, 2))
	rewinds := int64(0)
	for n := 0; n < blocks && !failed.Load(); n++ {
		top, has := v.Height()
		if has && top >= 3 && rng.IntN(4) == 0 {
			to := top - 1 - uint64(rng.IntN(3))
			chain.Lock()
			err := v.Rewind(to)
			chain.ids = chain.ids[:to+1]
			chain.Unlock()
			if err != nil {
				fail("rewind to %d: %v", to, err)
				break
			}
			rewinds++
			top = to
		}
		h := uint64(0)
		if has {
			h = top + 1
		}
		id := int64(h)*1000 + rewinds
		w, err := idBlock(v, h, id, "")
		if err == nil {
			// Applied under the chain lock, so that strict readers'
			// views and their expected ids agree.
			chain.Lock()
			if err = v.Apply(w, h); err == nil {
				chain.ids = append(chain.ids, id)
			}
			chain.Unlock()
		}
		if err != nil {
			fail("block %d: %v", h, err)
			break
		}
	}
	done.Store(true)
	wg.Wait()
	if t.Failed() {
		return
	}
	for r := range readers {
		if live[r] == 0 {
			t.Errorf("reader %d read nothing (%d stale)", r, stale[r])
		}
	}
	t.Logf("%d rewinds; reads per reader %v, stale %v", rewinds, live, stale)

	// The state is the chain's, at every height.
	for h, want := range chain.ids {
		ids, ierr, err := readIDs(v.View(uint64(h)))
		if err != nil || ierr != nil {
			t.Fatalf("as of %d: %v %v", h, err, ierr)
		}
		for _, id := range ids {
			if id != want {
				t.Fatalf("as of %d: ids %v, want %d", h, ids, want)
			}
		}
	}
}

// Modules rebuilt from their records by many readers at once (a state
// just opened has none cached): each reader gets a module that behaves
// as installed, dependencies pinned to old versions included.
func TestVersionedConcurrentRestore(t *testing.T) {
	dir := t.TempDir()
	ldb := openLevel(t, dir)
	defer ldb.Close()
	v := openVersioned(t, ldb, "restore/")
	for h := range uint64(3) {
		extra := ""
		if h == 1 { // d calls m as of block 1, and keeps doing so
			extra = "(module d G (defcap G () true) (defun id:integer () (m.id)))\n"
		}
		w, err := idBlock(v, h, int64(h)*1000, extra)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Apply(w, h); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		v := openVersioned(t, ldb, "restore/") // nothing cached
		var wg sync.WaitGroup
		start := make(chan struct{})
		for r := range 4 {
			wg.Go(func() {
				<-start
				h := uint64(r%2 + 1)
				w := v.View(h)
				val, err := evalIn(w, "[(m.id) (m.stored) (d.id)]")
				want := fmt.Sprintf("[%d %d 1000]", h*1000, h*1000)
				if err != nil || eval.Pretty(val) != want {
					t.Errorf("as of %d: %v %v, want %s", h, val, err, want)
				}
			})
		}
		close(start)
		wg.Wait()
	}
}
