package mempool

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
)

// priced returns a valid transaction with the given gas price (JSON text) and gas limit,
// made distinct by nonce.
func priced(t testing.TB, nonce, price string, gasLimit uint64) *Tx {
	s := okSpec()
	s.nonce, s.gasPrice, s.gasLimit = nonce, price, strconv.FormatUint(gasLimit, 10)
	return s.tx(t)
}

func keysOf(txs []*Tx) []api.Hash {
	ks := make([]api.Hash, len(txs))
	for i, tx := range txs {
		ks[i] = tx.RequestKey
	}
	return ks
}

func nonces(txs []*Tx) []string {
	ns := make([]string, len(txs))
	for i, tx := range txs {
		ns[i] = tx.Payload.Nonce
	}
	return ns
}

func TestPoolInsertIdempotent(t *testing.T) {
	p := NewPool(DefaultConfig())
	a := priced(t, "a", "0.1", 100)
	if o, ev := p.Insert(a); o != Added || ev != nil {
		t.Fatalf("first insert: %v %v", o, ev)
	}
	again := okSpec()
	again.nonce, again.gasPrice, again.gasLimit = "a", "0.1", "100"
	if o, _ := p.Insert(again.tx(t)); o != AlreadyPending {
		t.Errorf("second insert: %v", o)
	}
	if p.Len() != 1 || !p.Member(a.RequestKey) {
		t.Errorf("len %d", p.Len())
	}
	if tx, st := p.Lookup(a.RequestKey); st != Pending || tx != a {
		t.Errorf("lookup: %v %v", tx, st)
	}
	if _, st := p.Lookup(api.Hash{1}); st != Missing {
		t.Errorf("unknown key: %v", st)
	}
	// The re-sent copy did not move the original's place in the order.
	b := priced(t, "b", "0.1", 100)
	p.Insert(b)
	p.Insert(a)
	if got := nonces(p.Pending()); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("order %v", got)
	}
}

func TestPoolOrder(t *testing.T) {
	p := NewPool(DefaultConfig())
	for _, x := range []struct{ nonce, price string }{
		{"low1", "0.00000001"}, {"high1", "0.01"}, {"mid1", `"0.0010"`}, {"high2", "0.010"},
		{"mid2", "0.001"}, {"low2", "0.00000001"}, {"top", "1"},
	} {
		p.Insert(priced(t, x.nonce, x.price, 10))
	}
	want := []string{"top", "high1", "high2", "mid1", "mid2", "low1", "low2"}
	if got := nonces(p.Pending()); !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestPoolTake(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BlockGasLimit = 1000
	p := NewPool(cfg)
	p.Insert(priced(t, "a", "0.5", 600))
	p.Insert(priced(t, "b", "0.4", 500)) // does not fit after a
	p.Insert(priced(t, "c", "0.3", 300))
	p.Insert(priced(t, "d", "0.2", 100)) // fills the budget exactly
	p.Insert(priced(t, "e", "0.1", 1))   // budget spent
	if got := nonces(p.Take(0, nil)); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Errorf("Take(block limit) = %v", got)
	}
	if got := nonces(p.Take(550, nil)); !slices.Equal(got, []string{"b", "e"}) {
		t.Errorf("Take(550) = %v", got)
	}
	a := p.Pending()[0].RequestKey
	skip := func(k api.Hash) bool { return k == a }
	if got := nonces(p.Take(0, skip)); !slices.Equal(got, []string{"b", "c", "d", "e"}) {
		t.Errorf("Take skipping a = %v", got)
	}
	if p.Len() != 5 {
		t.Errorf("Take removed transactions: %d left", p.Len())
	}
}

// After 200 transactions in a row that do not fit, Take stops looking.
func TestPoolTakeGivesUp(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BlockGasLimit = 1000
	p := NewPool(cfg)
	p.Insert(priced(t, "first", "0.9", 900))
	for i := range maxInARow {
		p.Insert(priced(t, "big"+strconv.Itoa(i), "0.5", 200))
	}
	p.Insert(priced(t, "late", "0.1", 50))
	if got := nonces(p.Take(0, nil)); !slices.Equal(got, []string{"first"}) {
		t.Errorf("got %v", got)
	}
	// One fewer in the way and the late one is found.
	p.Included([]api.Hash{p.Pending()[1].RequestKey}, now)
	if got := nonces(p.Take(0, nil)); !slices.Equal(got, []string{"first", "late"}) {
		t.Errorf("got %v", got)
	}
}

func TestPoolIncluded(t *testing.T) {
	p := NewPool(DefaultConfig())
	a, b := priced(t, "a", "0.1", 10), priced(t, "b", "0.1", 10)
	p.Insert(a)
	p.Insert(b)
	foreign := api.Hash{7}
	p.Included([]api.Hash{a.RequestKey, foreign}, now)
	if p.Len() != 1 || p.Member(a.RequestKey) {
		t.Errorf("a still pending")
	}
	if _, st := p.Lookup(a.RequestKey); st != Included {
		t.Errorf("a: %v", st)
	}
	if _, st := p.Lookup(foreign); st != Included {
		t.Errorf("a key never pending: %v", st)
	}
	// Re-sending is refused with "exists on chain".
	if v := Check(testEnv(), p, []*Tx{a})[0]; v.Reason != TextDuplicate {
		t.Errorf("resend: %v", v)
	}
	// a is forgotten when it expires (creation time + TTL); the foreign key after MaxTTL.
	exp := time.Unix(a.Meta.CreationTime+a.Meta.TTL, 0)
	p.Evict(exp.Add(-time.Microsecond))
	if _, st := p.Lookup(a.RequestKey); st != Included {
		t.Errorf("before expiry: %v", st)
	}
	p.Evict(exp)
	if _, st := p.Lookup(a.RequestKey); st != Missing {
		t.Errorf("after expiry: %v", st)
	}
	if _, st := p.Lookup(foreign); st != Included {
		t.Errorf("foreign before MaxTTL: %v", st)
	}
	p.Evict(now.Add(DefaultMaxTTL * time.Second))
	if _, st := p.Lookup(foreign); st != Missing {
		t.Errorf("foreign after MaxTTL: %v", st)
	}
	if s := p.Stats(); s != (PoolStats{}) { // b expired too
		t.Errorf("stats %+v", s)
	}
}

// The recently included set is bounded: when full, the key expiring first goes.
// After a reorg drops its block, an included transaction may be admitted again.
func TestPoolUninclude(t *testing.T) {
	p := NewPool(DefaultConfig())
	a := priced(t, "a", "0.1", 10)
	p.Insert(a)
	p.Included([]api.Hash{a.RequestKey}, now)
	p.Uninclude([]api.Hash{a.RequestKey, {9}})
	if _, st := p.Lookup(a.RequestKey); st != Missing {
		t.Fatalf("a: %v, want missing", st)
	}
	if v := Check(testEnv(), p, []*Tx{a})[0]; !v.OK() {
		t.Fatalf("re-admit: %v", v)
	}
}

func TestPoolIncludedBounded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxIncluded = 2
	p := NewPool(cfg)
	var events []string
	p.Observe(func(k api.Hash, s Status, _ *Tx) { events = append(events, strconv.Itoa(int(k[0]))+":"+s.String()) })
	p.Included([]api.Hash{{1}}, now.Add(2*time.Second))
	p.Included([]api.Hash{{2}}, now)
	p.Included([]api.Hash{{3}}, now.Add(time.Second))
	p.Included([]api.Hash{{4}}, now.Add(-time.Second)) // expires before the rest: not kept
	want := []string{"1:included", "2:included", "3:included", "2:missing", "4:missing"}
	if !slices.Equal(events, want) {
		t.Errorf("events %v\nwant   %v", events, want)
	}
	if s := p.Stats(); s.Included != 2 {
		t.Errorf("stats %+v", s)
	}
}

func TestPoolBadlist(t *testing.T) {
	p := NewPool(DefaultConfig())
	a := priced(t, "a", "0.1", 10)
	p.Insert(a)
	p.Badlist([]api.Hash{a.RequestKey}, now)
	if _, st := p.Lookup(a.RequestKey); st != Badlisted || p.Len() != 0 {
		t.Errorf("a: %v, %d pending", st, p.Len())
	}
	if v := Check(testEnv(), p, []*Tx{a})[0]; v.Reason != TextBadlisted {
		t.Errorf("resend: %v", v)
	}
	// A key on chain stays "included"; one included later leaves the bad-list.
	inc := api.Hash{9}
	p.Included([]api.Hash{inc}, now)
	p.Badlist([]api.Hash{inc}, now)
	if _, st := p.Lookup(inc); st != Included {
		t.Errorf("included then badlisted: %v", st)
	}
	p.Included([]api.Hash{a.RequestKey}, now)
	if _, st := p.Lookup(a.RequestKey); st != Included || p.Stats().Badlisted != 0 {
		t.Errorf("badlisted then included: %v %+v", st, p.Stats())
	}
	// A bad-list entry expires with its transaction.
	b := priced(t, "b", "0.1", 10)
	p.Insert(b)
	p.Badlist([]api.Hash{b.RequestKey}, now)
	p.Evict(time.Unix(b.Meta.CreationTime+b.Meta.TTL, 0))
	if _, st := p.Lookup(b.RequestKey); st != Missing {
		t.Errorf("after expiry: %v", st)
	}
}

func TestPoolEvict(t *testing.T) {
	p := NewPool(DefaultConfig())
	var txs []*Tx
	for i, ttl := range []int64{300, 100, 200} {
		s := okSpec()
		s.nonce, s.ct, s.ttl = strconv.Itoa(i), now.Unix(), ttl
		tx := s.tx(t)
		txs = append(txs, tx)
		p.Insert(tx)
	}
	var missing []api.Hash
	p.Observe(func(k api.Hash, s Status, _ *Tx) {
		if s == Missing {
			missing = append(missing, k)
		}
	})
	if gone := p.Evict(now.Add(99 * time.Second)); len(gone) != 0 {
		t.Errorf("evicted early: %v", gone)
	}
	gone := p.Evict(now.Add(200 * time.Second))
	if want := []api.Hash{txs[1].RequestKey, txs[2].RequestKey}; !slices.Equal(gone, want) || !slices.Equal(missing, want) {
		t.Errorf("evicted %v, observed %v, want %v", gone, missing, want)
	}
	if got := keysOf(p.Pending()); !slices.Equal(got, []api.Hash{txs[0].RequestKey}) {
		t.Errorf("left %v", got)
	}
	// A TTL beyond the maximum expires at creation + MaxTTL + 1 s.
	s := okSpec()
	s.nonce, s.ct, s.ttl = "long", now.Unix(), 1<<40
	long := s.tx(t)
	p.Insert(long)
	p.Evict(now.Add((DefaultMaxTTL) * time.Second))
	if !p.Member(long.RequestKey) {
		t.Error("evicted before MaxTTL+1")
	}
	p.Evict(now.Add((DefaultMaxTTL + 1) * time.Second))
	if p.Member(long.RequestKey) || p.Len() != 0 {
		t.Errorf("left %d", p.Len())
	}
}

func TestPoolFull(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxPending = 3
	p := NewPool(cfg)
	p.Insert(priced(t, "a", "0.3", 10))
	p.Insert(priced(t, "b", "0.1", 10))
	p.Insert(priced(t, "c", "0.1", 10))
	if o, ev := p.Insert(priced(t, "d", "0.1", 10)); o != Dropped || ev != nil {
		t.Errorf("no better price: %v %v", o, ev)
	}
	o, ev := p.Insert(priced(t, "e", "0.2", 10))
	if o != Added || ev == nil || ev.Payload.Nonce != "c" {
		t.Errorf("better price: %v %v", o, ev)
	}
	if got := nonces(p.Pending()); !slices.Equal(got, []string{"a", "e", "b"}) {
		t.Errorf("pending %v", got)
	}
	if _, st := p.Lookup(ev.RequestKey); st != Missing {
		t.Errorf("displaced: %v", st)
	}
}

func TestPoolObserver(t *testing.T) {
	p := NewPool(DefaultConfig())
	type ev struct {
		k  api.Hash
		s  Status
		tx bool
	}
	var got []ev
	p.Observe(func(k api.Hash, s Status, tx *Tx) { got = append(got, ev{k, s, tx != nil}) })
	a, b := priced(t, "a", "0.1", 10), priced(t, "b", "0.1", 10)
	p.Insert(a)
	p.Insert(a)
	p.Insert(b)
	p.Included([]api.Hash{a.RequestKey}, now)
	p.Badlist([]api.Hash{b.RequestKey}, now)
	want := []ev{{a.RequestKey, Pending, true}, {b.RequestKey, Pending, true},
		{a.RequestKey, Included, false}, {b.RequestKey, Badlisted, false}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestExpirySet(t *testing.T) {
	s := newExpirySet(0)
	for i := range 100 {
		s.add(api.Hash{byte(i)}, int64((i*37)%100))
	}
	s.add(api.Hash{0}, 50) // later expiry moves it
	s.add(api.Hash{0}, 10) // an earlier one does not
	var order []int64
	s.expire(49, func(k api.Hash) { order = append(order, int64((int(k[0])*37)%100)) })
	if len(order) != 49 || !slices.IsSorted(order) || !s.has(api.Hash{0}) {
		t.Errorf("expired %v", order)
	}
	if !s.remove(api.Hash{0}) || s.remove(api.Hash{0}) || s.len() != 50 {
		t.Errorf("remove: len %d", s.len())
	}
}
