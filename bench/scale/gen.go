package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"time"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/chain/txexec"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
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

// genOptions shape a generated history.
type genOptions struct {
	// Levels is the number of heights above genesis; every chain gets one header per level.
	Levels int
	// Jitter is how far each creation time is moved from its level's slot (genesis time +
	// height × block delay), pseudo-randomly in [−Jitter, +Jitter]. It must stay under half
	// the block delay so that a header stays created after its parent and adjacent parents.
	Jitter time.Duration
	// Workers build the headers of a level in parallel (the braid makes a level depend only
	// on the one below, so the chains of a level are independent).
	Workers int
}

// generate writes a braided history of the development network to w, one base64url header a
// line (the text import-headers reads), in height order: opt.Levels levels of one header per
// chain on top of genesis (which is not written: the node creates it). Each header is made by
// pow.NewHeader from its parent and its adjacent parents (the previous level of the
// neighbouring chains), so target, weight, epoch start and fork state follow the rules, and the
// difficulty adjustment runs at every epoch boundary over the creation times. It returns the
// number of headers written.
func generate(w io.Writer, v *ledger.Version, genesis []*ledger.Header, opt genOptions) (int, error) {
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
		if genesis[c] == nil {
			return 0, fmt.Errorf("no genesis header for chain %d", c)
		}
		prev[i] = genesis[c]
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
					height := uint64(j.level)
					ct := v.GenesisTime + int64(height)*v.BlockDelay + jitter(chains[i], height, opt.Jitter)
					var h *ledger.Header
					if h, err = pow.NewHeader(v, j.prev[i], adj, payload, ct, 0, 0); err != nil {
						err = fmt.Errorf("chain %d height %d: %w", chains[i], height, err)
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
	written := 0
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
