package mempool

import (
	"sort"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
)

// Status is where a request key stands in a Pool.
type Status uint8

const (
	Missing   Status = iota // unknown, or forgotten
	Pending                 // waiting for a block
	Included                // in a recent block
	Badlisted               // failed to validate; refused until it expires
)

func (s Status) String() string {
	switch s {
	case Pending:
		return "pending"
	case Included:
		return "included"
	case Badlisted:
		return "badlisted"
	}
	return "missing"
}

// InsertOutcome says what Insert did.
type InsertOutcome uint8

const (
	// Added: the transaction is pending now.
	Added InsertOutcome = iota
	// AlreadyPending: a transaction with the same request key was pending; nothing changed
	// (re-sending a pending transaction is accepted, §6.2).
	AlreadyPending
	// Dropped: the pool is full and the transaction pays no more than the cheapest pending
	// one, so it was not kept. (Upstream drops it too, silently; a client sees it expire.)
	Dropped
)

// maxInARow is how many pending transactions in a row Take skips for not fitting the rest of
// the budget before it stops looking (upstream's getBlockInMem).
const maxInARow = 200

// Pool is a chain's pending transactions, ordered by gas price (highest first, then arrival
// order), with the request keys recently included in blocks and the bad-list. A request key
// is in at most one of the three. Expiry times are the transactions' creation time plus TTL;
// keys included or bad-listed without a known transaction get now + MaxTTL (upstream's rule).
//
// A Pool is not safe for concurrent use: one owner (actors/mempool.go's actor) calls it.
// Insert does not check: run Precheck and Admit first (or Check).
type Pool struct {
	cfg      Config
	seq      uint64
	pending  map[api.Hash]*entry
	order    []*entry   // the pending entries, sorted by before
	expiring *expirySet // pending keys by expiry, unbounded
	included *expirySet
	bad      *expirySet
	observe  func(api.Hash, Status, *Tx)
}

type entry struct {
	tx     *Tx
	seq    uint64 // arrival order
	expiry int64  // microseconds since the Unix epoch
}

// before is the pending order: higher gas price first, then earlier arrival.
func before(a, b *entry) bool {
	if c := a.tx.Meta.GasPrice.Cmp(b.tx.Meta.GasPrice); c != 0 {
		return c > 0
	}
	return a.seq < b.seq
}

// NewPool returns an empty pool with cfg's limits (zero limits read as defaults).
func NewPool(cfg Config) *Pool {
	cfg = cfg.withDefaults()
	return &Pool{
		cfg:      cfg,
		pending:  make(map[api.Hash]*entry),
		expiring: newExpirySet(0),
		included: newExpirySet(cfg.MaxIncluded),
		bad:      newExpirySet(cfg.MaxBadlisted),
	}
}

// Observe registers fn to be told every change of a key's status, as it happens: Pending (with
// the transaction), Included, Badlisted, or Missing (expired, evicted, or forgotten for room).
// The actor uses it to keep its published index current. One observer; nil removes it.
func (p *Pool) Observe(fn func(key api.Hash, s Status, tx *Tx)) { p.observe = fn }

func (p *Pool) notify(k api.Hash, s Status, tx *Tx) {
	if p.observe != nil {
		p.observe(k, s, tx)
	}
}

// Config returns the pool's limits, defaults filled in.
func (p *Pool) Config() Config { return p.cfg }

// PoolStats counts a pool's sets.
type PoolStats struct {
	Pending, Included, Badlisted int
}

// Stats returns the sizes of the pool's sets.
func (p *Pool) Stats() PoolStats {
	return PoolStats{Pending: len(p.pending), Included: p.included.len(), Badlisted: p.bad.len()}
}

// Admit merges the pool's checks, steps 5 (recently included) and 6 (bad-listed), into the
// verdict Precheck gave for tx, keeping §6.2's order: a failure of steps 1–4 stands, then
// these two, then a failure of steps 7–8. A nil Pool is empty.
func (p *Pool) Admit(tx *Tx, pre Verdict) Verdict {
	if (!pre.OK() && pre.Step < StepIncluded) || p == nil {
		return pre
	}
	if p.included.has(tx.RequestKey) {
		return fail(StepIncluded, TextDuplicate)
	}
	if p.bad.has(tx.RequestKey) {
		return fail(StepBadlisted, TextBadlisted)
	}
	return pre
}

// Insert adds tx to the pending set. Inserting a pending request key again changes nothing.
// When the pool holds MaxPending transactions, tx displaces the cheapest (the latest of the
// cheapest) if it pays a higher gas price, which is returned; otherwise tx is dropped.
func (p *Pool) Insert(tx *Tx) (InsertOutcome, *Tx) {
	k := tx.RequestKey
	if _, ok := p.pending[k]; ok {
		return AlreadyPending, nil
	}
	e := &entry{tx: tx, seq: p.seq + 1, expiry: expiry(tx.Meta, p.cfg.MaxTTL)}
	var evicted *Tx
	if len(p.pending) >= p.cfg.MaxPending {
		last := p.order[len(p.order)-1]
		if !before(e, last) {
			return Dropped, nil
		}
		p.unpend(last)
		p.notify(last.tx.RequestKey, Missing, nil)
		evicted = last.tx
	}
	p.seq++
	p.pending[k] = e
	i := sort.Search(len(p.order), func(i int) bool { return !before(p.order[i], e) })
	p.order = append(p.order, nil)
	copy(p.order[i+1:], p.order[i:])
	p.order[i] = e
	p.expiring.add(k, e.expiry)
	p.notify(k, Pending, tx)
	return Added, evicted
}

// unpend removes a pending entry from the pending structures (without notifying).
func (p *Pool) unpend(e *entry) {
	p.expiring.remove(e.tx.RequestKey)
	p.unorder(e)
}

// unorder removes a pending entry from the map and the order, not from expiring.
func (p *Pool) unorder(e *entry) {
	delete(p.pending, e.tx.RequestKey)
	i := sort.Search(len(p.order), func(i int) bool { return !before(p.order[i], e) })
	if i < len(p.order) && p.order[i] == e {
		copy(p.order[i:], p.order[i+1:])
		p.order[len(p.order)-1] = nil
		p.order = p.order[:len(p.order)-1]
	}
}

// Lookup returns a key's status, and the transaction when it is pending.
func (p *Pool) Lookup(k api.Hash) (*Tx, Status) {
	if e, ok := p.pending[k]; ok {
		return e.tx, Pending
	}
	if p.included.has(k) {
		return nil, Included
	}
	if p.bad.has(k) {
		return nil, Badlisted
	}
	return nil, Missing
}

// Member reports whether k is pending.
func (p *Pool) Member(k api.Hash) bool {
	_, ok := p.pending[k]
	return ok
}

// Len returns the number of pending transactions.
func (p *Pool) Len() int { return len(p.pending) }

// Pending returns every pending transaction in order: highest gas price first, then arrival.
func (p *Pool) Pending() []*Tx {
	txs := make([]*Tx, len(p.order))
	for i, e := range p.order {
		txs[i] = e.tx
	}
	return txs
}

// Take returns pending transactions for a block, in order, whose gas limits add up to at most
// budget (the block gas limit when budget is 0), passing over those skip reports (nil: none;
// e.g. ones already in the block being built). A transaction that does not fit the rest of the
// budget is passed over for the next; after maxInARow (200) in a row, or when the budget is
// spent, Take stops. The transactions stay pending until Included (or Badlist) removes them,
// so a block that never makes it leaves them for the next.
func (p *Pool) Take(budget uint64, skip func(api.Hash) bool) []*Tx {
	if budget == 0 {
		budget = p.cfg.BlockGasLimit
	}
	var txs []*Tx
	inARow := 0
	for _, e := range p.order {
		if !take(&txs, e.tx, &budget, &inARow, skip) {
			break
		}
	}
	return txs
}

// Take is Pool.Take over pending, transactions in the pool's order (Pool.Pending's, a snapshot
// taken earlier), with budget given (not 0): what a block builder that was handed the pending
// transactions picks from them.
func Take(pending []*Tx, budget uint64, skip func(api.Hash) bool) []*Tx {
	var txs []*Tx
	inARow := 0
	for _, tx := range pending {
		if !take(&txs, tx, &budget, &inARow, skip) {
			break
		}
	}
	return txs
}

// take is one step of Take: tx joins txs if it fits what is left of budget. It reports false
// when the budget is spent or maxInARow transactions in a row did not fit: Take stops.
func take(txs *[]*Tx, tx *Tx, budget *uint64, inARow *int, skip func(api.Hash) bool) bool {
	if *budget == 0 || *inARow >= maxInARow {
		return false
	}
	if skip != nil && skip(tx.RequestKey) {
		return true
	}
	if gl := tx.Meta.GasLimit; gl <= *budget {
		*txs = append(*txs, tx)
		*budget -= gl
		*inARow = 0
	} else {
		*inARow++
	}
	return true
}

// Included records that the transactions with these keys are in a block of the chain: they
// leave the pending set (and the bad-list) and join the recently included set until they
// expire, so that sending one again is refused with "Transaction already exists on chain".
func (p *Pool) Included(keys []api.Hash, now time.Time) {
	for _, k := range keys {
		exp := p.forget(k, now)
		p.bad.remove(k)
		p.remember(p.included, k, exp, Included)
	}
}

// Uninclude forgets that the transactions with these keys were included: a reorg dropped the
// blocks that held them, so they may be admitted again.
func (p *Pool) Uninclude(keys []api.Hash) {
	for _, k := range keys {
		if p.included.remove(k) {
			p.notify(k, Missing, nil)
		}
	}
}

// Badlist records that the transactions with these keys failed to validate (the executor
// found them unfit for a block): they leave the pending set and are refused until they
// expire.
func (p *Pool) Badlist(keys []api.Hash, now time.Time) {
	for _, k := range keys {
		if p.included.has(k) {
			continue // already on chain: "exists on chain" is the truer answer
		}
		exp := p.forget(k, now)
		p.remember(p.bad, k, exp, Badlisted)
	}
}

// forget removes k from the pending set and returns its expiry: the transaction's when it was
// pending, now + MaxTTL otherwise.
func (p *Pool) forget(k api.Hash, now time.Time) int64 {
	if e, ok := p.pending[k]; ok {
		p.unpend(e)
		return e.expiry
	}
	return satAdd(now.UnixMicro(), secondsToMicros(p.cfg.MaxTTL))
}

// remember adds k to s (the included set or the bad-list) and tells the observer, including
// about a key the full set dropped to make room (which may be k itself, when it expires first).
func (p *Pool) remember(s *expirySet, k api.Hash, exp int64, st Status) {
	dropped, ok := s.add(k, exp)
	if ok && dropped == k {
		p.notify(k, Missing, nil)
		return
	}
	p.notify(k, st, nil)
	if ok {
		p.notify(dropped, Missing, nil)
	}
}

// Evict removes what has expired by now: pending transactions (returned, in expiry order),
// and entries of the recently included set and the bad-list.
func (p *Pool) Evict(now time.Time) []api.Hash {
	t := now.UnixMicro()
	var gone []api.Hash
	p.expiring.expire(t, func(k api.Hash) {
		p.unorder(p.pending[k]) // expire already took it out of expiring
		gone = append(gone, k)
		p.notify(k, Missing, nil)
	})
	forgotten := func(k api.Hash) { p.notify(k, Missing, nil) }
	p.included.expire(t, forgotten)
	p.bad.expire(t, forgotten)
	return gone
}
