package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/txexec"
)

// devVersion is the version `ledger-node --network development --disable-pow --block-delay d`
// runs (cmd/ledger-node's nodeVersion): the block delay, the genesis target derived from it,
// and no PoW check. import-headers with the same flags validates against exactly this version,
// so every generated header passes all the rules but the PoW one, which the version skips.
func devVersion(d time.Duration) *ledger.Version {
	return ledger.Development.WithBlockDelay(d.Microseconds()).WithGenesisTarget(pow.DevGenesisTarget(d)).WithoutPow()
}

// devGenesis is the genesis header of every development chain, as the node writes it into a
// new data directory (its payloads come from running the development genesis in Pact, so they
// are computed, not pasted here).
func devGenesis(v *ledger.Version) (*actors.Genesis, error) {
	return actors.MakeGenesis(txexec.New(txexec.Config{}), v)
}

// mainnetRootHeight is where a mainnet01 history starts: above the twenty-chain graph (852054)
// and every header fork guard (the newest, OldDAGuard, is 771414), so that the headers follow
// today's rules.
const mainnetRootHeight = 1_000_000

// mainnetRoots are made-up mainnet01 headers at height h, one per chain, whose parents and
// adjacent parents no store holds: import-headers keeps them after the rules that need no
// parent (hash, PoW, graph, time). Their target is the maximum, so that every nonce meets it and
// the difficulty adjustment above them stays near it: PoW stays checked but costs a try or two.
// Created at mainnet's genesis time + h block delays, as a chain at that height would have been.
func mainnetRoots(v *ledger.Version, h uint64) []*ledger.Header {
	chains := v.Chains()
	roots := make([]*ledger.Header, len(chains))
	made := func(what string, c ledger.ChainID) ledger.Hash {
		return ledger.Hash(sha256.Sum256([]byte(fmt.Sprintf("bench/scale %s chain %d height %d", what, c, h))))
	}
	ct := v.GenesisTime + int64(h)*v.BlockDelay
	// The epoch began h mod window blocks ago, as on a real chain, so that the first difficulty
	// adjustment measures a whole epoch's time.
	epochStart := ct - int64(h%v.WindowWidth)*v.BlockDelay
	for _, c := range chains {
		r := &ledger.Header{
			CreationTime: ct, Parent: made("parent", c), Target: ledger.MaxU256,
			PayloadHash: ledger.EmptyGenesisPayload().PayloadHash, ChainID: c,
			Weight: weightAt(h), Height: h, Version: v.Code, EpochStart: epochStart,
		}
		for _, n := range v.HeaderGraph(c, h).Neighbors(c) {
			r.Adjacents = append(r.Adjacents, ledger.Adjacent{Chain: n, Hash: made("parent", n)})
		}
		r.Seal()
		roots[c] = r
	}
	return roots
}

// weightAt is a root's weight: h blocks at the maximum target (weight 1 each, as the weight
// of a block is the expected hashes of its target).
func weightAt(h uint64) ledger.U256 {
	w, _ := ledger.U256FromBig(new(big.Int).SetUint64(h))
	return w
}

// genOptions shape a generated history.
type genOptions struct {
	// Levels is the number of heights above genesis; every chain gets one header per level.
	Levels int
	// Jitter is how far each creation time is moved from its level's slot (genesis time +
	// height × block delay), pseudo-randomly in [−Jitter, +Jitter]. It must stay under half
	// the block delay so that a header stays created after its parent and adjacent parents.
	Jitter time.Duration
	// WriteBase writes the base headers first (roots, which the store does not have).
	WriteBase bool
	// Workers build the headers of a level in parallel (the braid makes a level depend only
	// on the one below, so the chains of a level are independent).
	Workers int
}

// generate writes a braided history of v to w, one base64url header a line (the text
// import-headers reads), in height order: opt.Levels levels of one header per chain on top of
// base, one header per chain indexed by chain id (the genesis headers, which are not written
// since the node makes them, or roots, which are: opt.WriteBase). Each header is made by
// pow.NewHeader from its parent and its adjacent parents (the previous level of the
// neighbouring chains), so target, weight, epoch start and fork state follow the rules, and the
// difficulty adjustment runs at every epoch boundary over the creation times. When v checks PoW
// a nonce is searched for (at a target near the maximum, a try or two). It returns the number
// of headers written.
func generate(w io.Writer, v *ledger.Version, base []*ledger.Header, opt genOptions) (int, error) {
	if opt.Jitter*2 >= time.Duration(v.BlockDelay)*time.Microsecond {
		return 0, fmt.Errorf("jitter %v must stay under half the block delay", opt.Jitter)
	}
	workers := max(1, opt.Workers)
	chains := v.Chains()
	nc := len(chains)
	payload := ledger.EmptyGenesisPayload().PayloadHash
	// prev[c] / cur[c]: the headers of chain c at the level below / being built.
	prev := make([]*ledger.Header, nc)
	for i, c := range chains {
		if int(c) >= len(base) || base[c] == nil {
			return 0, fmt.Errorf("no base header for chain %d", c)
		}
		prev[i] = base[c]
	}
	index := map[ledger.ChainID]int{}
	for i, c := range chains {
		index[c] = i
	}
	neighbours := make([][]int, nc)
	for i, c := range chains {
		for _, n := range v.LatestGraph().Neighbors(c) {
			neighbours[i] = append(neighbours[i], index[n])
		}
	}
	bw := bufio.NewWriterSize(w, 4<<20)
	written := 0
	if opt.WriteBase {
		for _, h := range prev {
			fmt.Fprintln(bw, h.B64())
		}
		written += nc
	}
	// Each worker builds a contiguous share of the chains and encodes them into its own buffer,
	// so that the writer only copies bytes; lines[k] is worker k's text of the level.
	type job struct {
		level int
		prev  []*ledger.Header
		cur   []*ledger.Header
	}
	type result struct {
		k   int
		err error
	}
	lines := make([][]byte, workers)
	jobs := make([]chan job, workers)
	done := make(chan result, workers)
	share := (nc + workers - 1) / workers
	for k := range workers {
		jobs[k] = make(chan job)
		lo, hi := min(nc, k*share), min(nc, (k+1)*share)
		go func() {
			var bin [ledger.HeaderSize]byte
			adj := make([]*ledger.Header, 0, ledger.MaxAdjacents)
			for j := range jobs[k] {
				buf := lines[k][:0]
				var err error
				for i := lo; i < hi && err == nil; i++ {
					adj = adj[:0]
					for _, n := range neighbours[i] {
						adj = append(adj, j.prev[n])
					}
					b0 := base[chains[i]]
					height := b0.Height + uint64(j.level)
					ct := b0.CreationTime + int64(j.level)*v.BlockDelay + jitter(chains[i], height, opt.Jitter)
					var h *ledger.Header
					if h, err = pow.NewHeader(v, j.prev[i], adj, payload, ct, 0, 0); err != nil {
						err = fmt.Errorf("chain %d height %d: %w", chains[i], height, err)
						break
					}
					if !v.DisablePow && !pow.CheckPow(h) && !pow.MineHeader(h, 1<<24) {
						err = fmt.Errorf("chain %d height %d: no nonce meets target %s", chains[i], height, h.Target.BEHex())
						break
					}
					j.cur[i] = h
					b := h.AppendBinary(bin[:0])
					buf = base64.RawURLEncoding.AppendEncode(buf, b)
					buf = append(buf, '\n')
				}
				lines[k] = buf
				done <- result{k, err}
			}
		}()
	}
	defer func() {
		for _, ch := range jobs {
			close(ch)
		}
	}()
	for level := 1; level <= opt.Levels; level++ {
		cur := make([]*ledger.Header, nc)
		for k := range workers {
			jobs[k] <- job{level, prev, cur}
		}
		var firstErr error
		for range workers {
			if r := <-done; r.err != nil && firstErr == nil {
				firstErr = r.err
			}
		}
		if firstErr != nil {
			return written, firstErr
		}
		for k := range workers {
			if _, err := bw.Write(lines[k]); err != nil {
				return written, err
			}
		}
		written += nc
		prev = cur
	}
	return written, bw.Flush()
}

// jitter is a deterministic pseudo-random offset in [−j, +j] for chain c at height h (a mixed
// hash of both, so that the creation times look like independent blocks yet a file can be made
// again byte for byte).
func jitter(c ledger.ChainID, h uint64, j time.Duration) int64 {
	if j <= 0 {
		return 0
	}
	x := h*0x9E3779B97F4A7C15 ^ uint64(c)*0xBF58476D1CE4E5B9
	x ^= x >> 31
	x *= 0x94D049BB133111EB
	x ^= x >> 29
	span := uint64(2*j.Microseconds() + 1)
	return int64(x%span) - j.Microseconds()
}
