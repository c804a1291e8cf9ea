package mining

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
)

// On-demand mining: the miner mines only the blocks asked for, as Kadena devnet's on-demand
// mining client and its mining trigger did together (chainweb-mining-and-config.md §2.4,
// §2.5), with the braid kept: a chain whose neighbours lag gets them mined first.
//
// Every demand is a height a chain must reach, never a count of blocks found: two workers that
// solve the same parent at once make a fork, not two blocks of progress, so a count would
// drift. The demands are
//   - asked: make-blocks (and the start-up and idle blocks) raise it by n above the larger of
//     itself and the chain's height;
//   - confirmations: a transaction /send accepted is watched until a block of the chain holds
//     it; the chain must then reach that block's height + ConfirmationDepth. A transaction
//     still pending after maxWaitBlocks blocks of its chain (it expired, or can never pay for
//     its gas) stops being watched, so that an idle node does not mine for ever.

// OnDemandConfig makes the miner an on-demand one (Config.OnDemand).
type OnDemandConfig struct {
	// ConfirmationDepth is how many blocks a chain gets on top of the block that holds a
	// transaction /send accepted; 0 mines nothing for sent transactions.
	ConfirmationDepth uint64
	// IdlePeriod: with no block in the cut for this long and nothing asked, one block on a
	// random chain (devnet's idle trigger); 0 never.
	IdlePeriod time.Duration
}

const (
	// MaxBlocksAsked bounds one chain's outstanding blocks: make-blocks beyond it is refused
	// rather than queueing hours of mining.
	MaxBlocksAsked = 10_000
	// maxWaitBlocks is how many blocks of its chain a sent transaction may stay out of a block
	// before it stops being watched.
	maxWaitBlocks = 10
	// maxWatched bounds the transactions watched per chain; beyond it a send still gets its
	// blocks (the chain must reach one past its height when sent, plus the depth), without
	// waiting for the transaction itself.
	maxWatched = 100_000
)

// ErrNotOnDemand is MakeBlocks's answer on a node that does not mine on demand.
var ErrNotOnDemand = errors.New("this node does not mine on demand: make-blocks needs mining mode on-demand (--mining on-demand, YAML mining.mode)")

// BlocksAskedError is a make-blocks request refused: more blocks than MaxBlocksAsked.
type BlocksAskedError struct{ Msg string }

func (e *BlocksAskedError) Error() string { return e.Msg }

// heldChain is a chain whose block on parent is not mined before until.
type heldChain struct {
	parent ledger.Hash
	until  time.Time
}

// watchedTx is a sent transaction not yet seen in a block.
type watchedTx struct {
	key    api.Hash
	sentAt uint64 // the chain's height when it was sent
}

// demand is the on-demand miner's book, by chain id.
type demand struct {
	r   Node
	m   *Miner // the miner it paces, woken when more blocks are wanted
	cfg OnDemandConfig

	mu      sync.Mutex
	asked   []uint64      // height each chain must reach for make-blocks, start-up and idle blocks
	confirm []uint64      // height each chain must reach for the confirmations of its sent txs
	watched [][]watchedTx // sent transactions not yet in a block
	checked []ledger.Hash // executed head at which watched was last looked up
	claimed []bool        // a worker is searching this chain (one per chain: no sibling blocks)
	held    []heldChain   // chains whose next block waits for its time (pacing, below)
	// lastBlock is when the cut last changed (idle blocks count from it).
	lastBlock time.Time
	rng       *rand.Rand
}

func newDemand(r Node, cfg OnDemandConfig) *demand {
	n := 0
	for _, c := range r.Version().Chains() {
		n = max(n, int(c)+1)
	}
	return &demand{r: r, cfg: cfg, asked: make([]uint64, n), confirm: make([]uint64, n),
		watched: make([][]watchedTx, n), checked: make([]ledger.Hash, n), claimed: make([]bool, n),
		held: make([]heldChain, n), lastBlock: time.Now(), rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))}
}

// MakeBlocks asks the on-demand miner for blocks: n more on each chain of blocks (added to what
// is outstanding, as the mining client's make-blocks adds to its goals). It returns at once;
// the blocks follow. Chain ids the network does not have are ignored, with a warning logged
// (the mining client accepted them too, and mined nothing for them). ErrNotOnDemand when the
// node mines otherwise, or not at all (m is nil); a *BlocksAskedError for too many blocks, with
// nothing asked.
func (m *Miner) MakeBlocks(blocks map[ledger.ChainID]uint64) error {
	if m == nil || m.demand == nil {
		return ErrNotOnDemand
	}
	return m.demand.ask(blocks)
}

func (d *demand) ask(blocks map[ledger.ChainID]uint64) error {
	heads := d.r.View().Heads
	var ignored []ledger.ChainID
	for c := range blocks {
		if int(c) >= len(d.asked) || heads.At(c) == nil {
			ignored = append(ignored, c)
		}
	}
	if len(ignored) > 0 {
		// Devnet's scripts ask for chains a network may not have (20 and up on a 20-chain
		// one); the mining client took them and never mined them, so they are left out.
		slices.Sort(ignored)
		d.m.log.Warn("make-blocks: chains that are not chains of the network are ignored", "chains", ignored,
			"network", d.r.Version().Name, "networkChains", chainRange(d.r.Version()))
		blocks = maps.Clone(blocks)
		for _, c := range ignored {
			delete(blocks, c)
		}
	}
	d.mu.Lock()
	for c, n := range blocks {
		if from := max(d.asked[c], heads.At(c).Height); n > MaxBlocksAsked || from+n > heads.At(c).Height+MaxBlocksAsked {
			d.mu.Unlock()
			return &BlocksAskedError{fmt.Sprintf("chain %d: at most %d blocks may be outstanding on a chain", c, MaxBlocksAsked)}
		}
	}
	asked := false
	for c, n := range blocks {
		if n > 0 {
			d.asked[c] = max(d.asked[c], heads.At(c).Height) + n
			asked = true
		}
	}
	d.mu.Unlock()
	if asked {
		d.m.wake()
	}
	return nil
}

// chainRange names a version's chain ids, "0–19".
func chainRange(v *ledger.Version) string {
	cs := v.Chains()
	lo, hi := cs[0], cs[0]
	for _, c := range cs {
		lo, hi = min(lo, c), max(hi, c)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// sent is /send's notice: keys were accepted on chain c.
func (d *demand) sent(c ledger.ChainID, keys []api.Hash) {
	if d.cfg.ConfirmationDepth == 0 || int(c) >= len(d.watched) || len(keys) == 0 {
		return
	}
	h := d.r.View().Heads.At(c)
	if h == nil {
		return
	}
	d.mu.Lock()
	for _, k := range keys {
		if len(d.watched[c]) >= maxWatched {
			d.confirm[c] = max(d.confirm[c], h.Height+1+d.cfg.ConfirmationDepth)
			break
		}
		d.watched[c] = append(d.watched[c], watchedTx{key: k, sentAt: h.Height})
	}
	d.mu.Unlock()
	d.m.wake()
}

// cutChanged notes the time of the cut's change, for idle blocks.
func (d *demand) cutChanged() {
	d.mu.Lock()
	d.lastBlock = time.Now()
	d.mu.Unlock()
}

// idle adds a block on a random chain when the cut has not changed for IdlePeriod and nothing
// is asked; it reports when to look again.
func (d *demand) idle(now time.Time) time.Duration {
	if d.cfg.IdlePeriod <= 0 {
		return time.Hour
	}
	heads := d.r.View().Heads
	d.mu.Lock()
	quiet := now.Sub(d.lastBlock)
	if quiet < d.cfg.IdlePeriod {
		d.mu.Unlock()
		return d.cfg.IdlePeriod - quiet
	}
	for c := range d.asked {
		if h := heads.At(ledger.ChainID(c)); h != nil && d.wantsLocked(ledger.ChainID(c), h) {
			d.mu.Unlock()
			return d.cfg.IdlePeriod // something is being mined already
		}
	}
	cs := d.r.Version().Chains()
	c := cs[d.rng.IntN(len(cs))]
	if h := heads.At(c); h != nil {
		d.asked[c] = max(d.asked[c], h.Height) + 1
	}
	d.lastBlock = now
	d.mu.Unlock()
	d.m.log.Debug("idle block asked", "chain", c)
	d.m.wake()
	return d.cfg.IdlePeriod
}

// wantsLocked reports whether chain c, whose head in the cut is h, must grow. d.mu is held.
func (d *demand) wantsLocked(c ledger.ChainID, h *ledger.Header) bool {
	return h.Height < d.asked[c] || h.Height < d.confirm[c] || len(d.watched[c]) > 0
}

// next picks a chain to mine in heads among minable, and claims it; false when no chain is
// wanted now, with wait set to when to look again at the latest without a cut change: shortly
// when a sent transaction is waiting for its executor to reach the head, when the first held
// chain's time comes (pacing, below), else in a second. Wanted are the chains with a demand,
// and the neighbours they wait for, and theirs (the braid: a chain cannot be more than one
// block ahead of a neighbour).
func (d *demand) next(heads pow.Heads, minable []ledger.ChainID, round int, now time.Time) (c ledger.ChainID, ok bool, wait time.Duration) {
	v := d.r.Version()
	d.mu.Lock()
	defer d.mu.Unlock()
	wait = time.Second // a new demand wakes the workers
	soon := false
	wanted := make([]bool, len(d.asked))
	var queue []ledger.ChainID
	for c := range d.asked {
		h := heads.At(ledger.ChainID(c))
		if h == nil {
			continue
		}
		if len(d.watched[c]) > 0 && !d.lookUpLocked(ledger.ChainID(c), h) {
			soon = true // the executor has not reached this head yet
			continue
		}
		if d.wantsLocked(ledger.ChainID(c), h) {
			wanted[c] = true
			queue = append(queue, ledger.ChainID(c))
		}
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		h := heads.At(c)
		for _, n := range v.HeaderGraph(c, h.Height+1).Neighbors(c) {
			if a := heads.At(n); a != nil && a.Height < h.Height && !wanted[n] {
				wanted[n] = true
				queue = append(queue, n)
			}
		}
	}
	for i := range minable {
		c := minable[(round+i)%len(minable)]
		if !wanted[c] || d.claimed[c] {
			continue
		}
		if hc := d.held[c]; hc.parent == heads.At(c).Hash && now.Before(hc.until) {
			wait = min(wait, hc.until.Sub(now))
			continue
		}
		d.claimed[c] = true
		return c, true, 0
	}
	if soon {
		wait = min(wait, 20*time.Millisecond)
	}
	return 0, false, wait
}

// hold keeps chain c's block on parent from being mined before until.
func (d *demand) hold(c ledger.ChainID, parent ledger.Hash, until time.Time) {
	d.mu.Lock()
	d.held[c] = heldChain{parent: parent, until: until}
	d.mu.Unlock()
}

// remaining is how many blocks the most demanding chain still needs in heads.
func (d *demand) remaining(heads pow.Heads) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n uint64
	for c := range d.asked {
		h := heads.At(ledger.ChainID(c))
		if h == nil {
			continue
		}
		if want := max(d.asked[c], d.confirm[c]); want > h.Height {
			n = max(n, want-h.Height)
		}
		if len(d.watched[c]) > 0 {
			n = max(n, 1+d.cfg.ConfirmationDepth)
		}
	}
	return n
}

// release ends a worker's claim on chain c.
func (d *demand) release(c ledger.ChainID) {
	d.mu.Lock()
	d.claimed[c] = false
	d.mu.Unlock()
}

// lookUpLocked finds chain c's watched transactions in its blocks up to head h, turning each
// found one into a confirmation height, and drops those waited for too long. It reports false
// when the executor is not at h yet (what it would find could be one block old). d.mu is held.
func (d *demand) lookUpLocked(c ledger.ChainID, h *ledger.Header) bool {
	if d.checked[c] == h.Hash {
		return true
	}
	x, ok := d.r.Executor(c)
	if !ok {
		d.watched[c] = nil
		return true
	}
	head, view, ok := x.HeadView()
	if !ok || head.Hash != h.Hash {
		return false
	}
	keep := d.watched[c][:0]
	for _, w := range d.watched[c] {
		loc, found, err := chain.LocateTx(view, w.key)
		switch {
		case err != nil:
			if errors.Is(err, state.ErrStaleView) || errors.Is(err, state.ErrHeight) {
				return false // a reorg overtook the read
			}
			d.m.log.Warn("on-demand: look up a sent transaction", "chain", c, "err", err)
			keep = append(keep, w)
		case found:
			height := h.Height
			if b, err := d.r.Store().Header(loc.Block); err == nil {
				height = b.Height
			}
			d.confirm[c] = max(d.confirm[c], height+d.cfg.ConfirmationDepth)
		case h.Height >= w.sentAt+maxWaitBlocks:
			d.m.log.Debug("on-demand: a sent transaction is in no block; no more blocks for it", "chain", c)
		default:
			keep = append(keep, w)
		}
	}
	clear(d.watched[c][len(keep):])
	d.watched[c] = keep
	d.checked[c] = h.Hash
	return true
}

// Pacing without proof of work (issue 37).
//
// A block adds its difficulty to its chain's weight, and the cut is the heaviest: its weight is
// the sum of its heads' weights, a 256-bit number that wraps as upstream's does. Without proof
// of work blocks cost nothing, and a miner that makes them as fast as it can ends every
// difficulty epoch early: the difficulty adjustment multiplies the difficulty by the epoch's
// intended length over its actual one (120 blocks × 30 s = 1 hour, against a fraction of a
// second here) at every epoch, in the first 120 blocks every 12. On a development node the
// cut's weight reached 2^256 after about 1,700 blocks a chain: every further block would wrap
// it, so none could enter the cut, while the miner kept storing siblings for ever.
//
// Creation times cannot be in the future, and transactions are checked against them, so the
// only cure is time: the last block of an epoch is held until the epoch has lasted long enough
// (epochPace). How long depends on what is asked: the blocks still wanted, spread over the
// epochs they cross at one pace, must leave the cut's weight room for 2^weightReserveLog2 more
// blocks a chain at the difficulty they end with. A few hundred blocks a chain are not held at
// all; 3,000 a chain from genesis take about 12 minutes (issue 37); the room
// used is not given back, so a node that made thousands of blocks in minutes gets its later
// blocks at the block delay's pace, and a node that has no room left mines nothing (the miner
// never submits a block that would not make the cut heavier, miner.go).

// weightReserveLog2: pacing keeps room in the cut's weight for 2^14 blocks a chain at the
// difficulty the blocks asked for end with.
const weightReserveLog2 = 14

// epochPace returns the least time the epoch that block h (the last of its epoch, not yet
// mined) ends may have lasted, so that the blocks up to height top fit in the room cut weight w
// leaves, on a network of chains chains: the same for every epoch from h's to top's, at most
// the epoch's intended length (which keeps the difficulty as it is).
func epochPace(v *ledger.Version, h *ledger.Header, w ledger.U256, chains int, top uint64) time.Duration {
	second := float64(time.Second / time.Microsecond)
	intended := float64(pow.EffectiveWindow(v, h.Height)) * float64(v.BlockDelay) / second // seconds
	d, err := pow.Difficulty(h.Target)
	if err != nil || chains <= 0 || v.BlockDelay <= 0 {
		return 0
	}
	room := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), w.Big())
	perBlock := new(big.Int).Mul(d.Big(), big.NewInt(int64(chains)))
	// spare is how many times over (log2) the room holds the reserve at the current difficulty:
	// what the epochs may raise it by in all.
	spare := log2(room) - log2(perBlock) - weightReserveLog2
	if spare <= 0 {
		return time.Duration(intended * float64(time.Second))
	}
	// Spreading a total rise over epochs of one length is what takes least time: the rise of
	// an epoch is log2(intended/actual), and the sum of the lengths is least when they are
	// equal (the logarithm is concave).
	epochs, sum := 0, 0.0
	for n := h.Height; n <= max(top, h.Height); n++ {
		if pow.IsLastInEpoch(v, n) {
			epochs++
			sum += math.Log2(float64(pow.EffectiveWindow(v, n)) * float64(v.BlockDelay) / second)
		}
	}
	if epochs == 0 {
		return 0
	}
	pace := math.Min(intended, math.Exp2((sum-spare)/float64(epochs)))
	return time.Duration(pace * float64(time.Second))
}

// log2 is x's binary logarithm, for x > 0.
func log2(x *big.Int) float64 {
	f, _ := new(big.Float).SetInt(x).Float64()
	return math.Log2(f)
}
