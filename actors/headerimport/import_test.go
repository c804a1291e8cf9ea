package headerimport

import (
	"cmp"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

func chain5Headers(t *testing.T) []*ledger.Header {
	t.Helper()
	b, err := os.ReadFile("../../testdata/vectors/mainnet01-chain5-headers.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Headers []struct {
			B64 string `json:"binary_b64url"`
		} `json:"headers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var hs []*ledger.Header
	for _, x := range f.Headers {
		h, err := ledger.DecodeHeaderB64(x.B64)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	return hs
}

// Real headers in reverse order: sorted by height, each but the first is checked against its
// parent (stored a moment before), and the chain's head ends on the last. A header changed
// after sealing is rejected and so is its child, whose parent the store never got; the
// grandchild, whose parent is missing for the same reason, is rejected too, not kept unchecked.
func TestImportHeaders(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hs := chain5Headers(t)
	in := append([]*ledger.Header{}, hs[:40]...)
	in[20] = in[20].Clone()
	in[20].Nonce++
	for i, j := 0, len(in)-1; i < j; i, j = i+1, j-1 {
		in[i], in[j] = in[j], in[i]
	}
	sum, err := ImportHeaders(db, ledger.Mainnet01, in, time.Now(), ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Read != 40 || sum.Stored != 20 || sum.Rejected != 20 || sum.ParentChecked != 19 || sum.WebChecked != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if !strings.Contains(sum.Rejections[0], "IncorrectHash") || !strings.Contains(sum.Rejections[1], "its parent was rejected") {
		t.Fatalf("rejections %q", sum.Rejections[:2])
	}
	heads, _ := db.Heads()
	if heads[5] != hs[19].Hash {
		t.Fatalf("head %s, want %s", heads[5], hs[19].Hash)
	}

	sum, err = ImportHeaders(db, ledger.Mainnet01, hs[:40], time.Now(), ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.AlreadyStored != 20 || sum.Stored != 20 || sum.Rejected != 0 || sum.ParentChecked != 20 {
		t.Fatalf("second import %+v", sum)
	}
	if heads, _ := db.Heads(); heads[5] != hs[39].Hash {
		t.Fatalf("head %s after the second import, want %s", heads[5], hs[39].Hash)
	}
}

// An import reports its progress at the interval asked, over every header: stored, present
// and rejected alike, so that a file the store already holds is reported too.
func TestImportReportsProgress(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hs := chain5Headers(t)[:40]
	var dones []int
	report := ImportProgress{Every: time.Nanosecond, Report: func(done, total int, elapsed time.Duration) {
		if total != len(hs) || elapsed <= 0 {
			t.Errorf("report %d/%d after %v", done, total, elapsed)
		}
		dones = append(dones, done)
	}}
	for pass := range 2 { // stored, then already present
		dones = nil
		if _, err := ImportHeaders(db, ledger.Mainnet01, hs, time.Now(), report); err != nil {
			t.Fatal(err)
		}
		if len(dones) != len(hs)-1 || dones[0] != 1 || dones[len(dones)-1] != len(hs)-1 {
			t.Fatalf("pass %d: reports at %v, want one after each header but the last", pass, dones)
		}
	}
	dones = nil
	if _, err := ImportHeaders(db, ledger.Mainnet01, hs, time.Now(), ImportProgress{Every: time.Hour, Report: report.Report}); err != nil {
		t.Fatal(err)
	}
	if len(dones) != 0 {
		t.Fatalf("reports %v within the first hour", dones)
	}
}

// importBraid makes a braided development history without PoW: the genesis header of every
// chain, then heights whole heights, each header on its parent and the adjacent parents at the
// height below, created 20–40 s after the latest of them. The headers come height by height.
func importBraid(t testing.TB, heights int) (v *ledger.Version, genesis, hs []*ledger.Header) {
	t.Helper()
	v = ledger.Development.WithoutPow()
	prev := map[ledger.ChainID]*ledger.Header{}
	for _, c := range v.Chains() {
		g := ledger.GenesisHeader(v, c, ledger.Hash{})
		genesis = append(genesis, g)
		prev[c] = g
	}
	seed := uint64(7)
	for range heights {
		next := map[ledger.ChainID]*ledger.Header{}
		for _, c := range v.Chains() {
			p := prev[c]
			var adj []*ledger.Header
			ct := p.CreationTime
			for _, a := range v.HeaderGraph(c, p.Height+1).Neighbors(c) {
				adj = append(adj, prev[a])
				ct = max(ct, prev[a].CreationTime)
			}
			seed = seed*6364136223846793005 + 1442695040888963407
			h, err := pow.NewHeader(v, p, adj, ledger.Hash{}, ct+20_000_000+int64(seed>>33)%20_000_000, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			next[c] = h
			hs = append(hs, h)
		}
		prev = next
	}
	return v, genesis, hs
}

// openWithGenesis opens a store holding genesis.
func openWithGenesis(t *testing.T, genesis []*ledger.Header) *store.DB {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{HeaderCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PutHeaders(genesis...); err != nil {
		t.Fatal(err)
	}
	return db
}

// sendIn is an ImportInput.Read that sends hs in batches of n.
func sendIn(hs []*ledger.Header, n int) func(func([]*ledger.Header) bool) error {
	return func(send func([]*ledger.Header) bool) error {
		for len(hs) > 0 {
			k := min(n, len(hs))
			if !send(hs[:k:k]) {
				return nil
			}
			hs = hs[k:]
		}
		return nil
	}
}

// The heights of a file in any order come out of heightOrder as a stable sort by height would
// put them, and a file in height order is held back by one header at most.
func TestImportOrderIsAStableSortByHeight(t *testing.T) {
	seed := uint64(3)
	rnd := func(n uint64) uint64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return (seed >> 33) % n
	}
	shapes := map[string]func(i int) uint64{
		"ascending":  func(i int) uint64 { return uint64(i / 20) },
		"descending": func(i int) uint64 { return uint64(1000 - i/20) },
		"random":     func(i int) uint64 { return rnd(50) },
		"jittered":   func(i int) uint64 { return uint64(i/20) + rnd(4) },
		"one late":   func(i int) uint64 { return map[bool]uint64{true: 0, false: uint64(i)}[i == 1500] },
	}
	for name, height := range shapes {
		hs := make([]*ledger.Header, 2000)
		order := &ImportOrder{}
		for i := range hs {
			hs[i] = &ledger.Header{Height: height(i)}
			order.Add(hs[i].Height)
		}
		want := make([]int, len(hs))
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(hs[a].Height, hs[b].Height) })
		var got []int
		maxHeld := 0
		o := heightOrder{order: order}
		emit := func(c *checked) error { got = append(got, c.pos); return nil }
		for _, h := range hs {
			if err := o.add(checked{h: h}, emit); err != nil {
				t.Fatal(err)
			}
			maxHeld = max(maxHeld, len(o.held))
		}
		o.drain(emit)
		if !slices.Equal(got, want) {
			t.Errorf("%s: order differs from a stable sort by height", name)
		}
		if name == "ascending" && (maxHeld > 1 || len(order.marks) != 100) {
			t.Errorf("ascending: held up to %d headers, %d marks (want 1 and one per height, 100)", maxHeld, len(order.marks))
		}
	}
}

// A braided history imported in odd-sized pieces, with a header listed again in the same batch
// of writes and one listed again a batch later: every header finds its parents, those of a
// batch still being written included, each repeat counts as present, and the heads end on the
// top height.
func TestImportStreamAcrossBatches(t *testing.T) {
	v, genesis, hs := importBraid(t, 130) // 2,600 headers: three batches of writes
	db := openWithGenesis(t, genesis)
	in := slices.Clone(hs[:1200])
	in = append(in, hs[1190])     // the same batch of writes as its first listing
	in = append(in, hs[1200:]...) // and hs[10] again, after its batch was handed to the writer
	in = append(in[:1500:1500], append([]*ledger.Header{hs[10]}, in[1500:]...)...)
	order := &ImportOrder{}
	for _, h := range in {
		order.Add(h.Height)
	}
	sum, err := ImportStream(db, v, ImportInput{Total: len(in), Order: order, Read: sendIn(in, 7)}, time.Now(), ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Read != 2602 || sum.Stored != 2600 || sum.AlreadyStored != 2 || sum.Rejected != 0 || sum.WebChecked != 2600 {
		t.Fatalf("summary %+v", sum)
	}
	heads, _ := db.Heads()
	for _, h := range hs[len(hs)-20:] {
		if heads[h.ChainID] != h.Hash {
			t.Fatalf("chain %d head %s, want %s", h.ChainID, heads[h.ChainID], h.Hash)
		}
	}
}

// Parents later in the file than their children: the import takes the headers in height
// order, so each is checked against its parents as in a sorted file, and a rejected header's
// descendants on its chain are rejected after it, in height order.
func TestImportStreamParentsLater(t *testing.T) {
	v, genesis, hs := importBraid(t, 60)
	bad := hs[500].Clone() // chain 0 of height 26
	bad.Nonce++
	hs[500] = bad
	in := slices.Clone(hs)
	slices.Reverse(in)
	order := &ImportOrder{}
	for _, h := range in {
		order.Add(h.Height)
	}
	sum, err := ImportStream(openWithGenesis(t, genesis), v, ImportInput{Total: len(in), Order: order, Read: sendIn(in, 100)},
		time.Now(), ImportProgress{})
	if err != nil {
		t.Fatal(err)
	}
	// Heights 26..60 of chain 0 are rejected; their adjacent children only miss an adjacent parent.
	if sum.Rejected != 35 || sum.Stored != 1200-35 || sum.ParentChecked != 1200-35 {
		t.Fatalf("summary %+v", sum)
	}
	if !strings.Contains(sum.Rejections[0], "height 26") || !strings.Contains(sum.Rejections[0], "IncorrectHash") ||
		!strings.Contains(sum.Rejections[1], "height 27") || !strings.Contains(sum.Rejections[1], "its parent was rejected") {
		t.Fatalf("rejections %q", sum.Rejections[:2])
	}
}

// An import holds a window of the input, not the input: Read is never more than the pipeline's
// queues ahead of the headers validated.
func TestImportStreamHoldsAWindow(t *testing.T) {
	v, genesis, hs := importBraid(t, 200)
	const piece = 16
	var done atomic.Int64
	maxAhead := 0
	read := func(send func([]*ledger.Header) bool) error {
		for i := 0; i < len(hs); i += piece {
			maxAhead = max(maxAhead, i-int(done.Load()))
			if !send(hs[i : i+piece : i+piece]) {
				return nil
			}
		}
		return nil
	}
	sum, err := ImportStream(openWithGenesis(t, genesis), v, ImportInput{Total: len(hs), Read: read}, time.Now(),
		ImportProgress{Every: time.Nanosecond, Report: func(d, _ int, _ time.Duration) { done.Store(int64(d)) }})
	if err != nil || sum.Stored != len(hs) {
		t.Fatalf("%v %+v", err, sum)
	}
	// The queues: a batch per worker and four times that plus four waiting for their turn, the
	// batch being validated, and one in Read's hand.
	if bound := (5*runtime.GOMAXPROCS(0) + 6) * piece; maxAhead > bound {
		t.Fatalf("Read ran %d headers ahead of validation (queues hold %d) of %d", maxAhead, bound, len(hs))
	}
}
