package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// `ledger-node reindex-transfers`: builds the index of transfers by account and the index of
// continuations by pact id (chain/transfers.go, chain/continuations.go) for every block of
// each chain's Pact state, from genesis to the state's block, from the stored payloads. A node
// keeps both as it applies blocks; blocks applied by a build without them (or with an older
// form of them) have none until this runs. The node must be stopped (goleveldb's lock tells).
// Running it again rewrites the same records.

// reindexProgressEvery is how often a long reindex says how far it got.
const reindexProgressEvery = 2 * time.Second

func runReindexTransfers(args []string, stdout, stderr io.Writer) int {
	dir, code, stop := dataDirFlags("reindex-transfers", "Builds the index of transfers by account and the index of continuations by pact id for\n"+
		"every block the Pact states of DIR hold, from the stored payloads: blocks applied before the\n"+
		"node kept these indexes get them. The node must be stopped; running it again changes nothing.\n"+
		"Exit status 0: done; 1: a block could not be indexed (the message names it); 2: usage error,\n"+
		"or DIR is not a data directory or is in use.", args, stderr)
	if stop {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ledger-node reindex-transfers: %v\n", err)
		if errors.Is(err, store.ErrLocked) || errors.Is(err, store.ErrNotAStore) {
			return 2
		}
		return 1
	}
	// store.Open makes a store where there is none: a mistyped directory must not become one.
	_, errCur := os.Stat(filepath.Join(dir, "CURRENT"))
	_, errLog := os.Stat(filepath.Join(dir, "headers.log"))
	if errCur != nil && errLog != nil {
		return fail(fmt.Errorf("%w: %s", store.ErrNotAStore, dir))
	}
	db, err := store.Open(dir, store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			err = fmt.Errorf("%w (stop the node first)", err)
		}
		return fail(err)
	}
	err = reindexTransfers(db, stdout, time.Now)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

// reindexTransfers reindexes every chain of db's network, writing progress to out; now is the
// clock that paces the progress lines.
func reindexTransfers(db *store.DB, out io.Writer, now func() time.Time) error {
	name, err := db.Network()
	if err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("%w: no network recorded (an empty data directory?)", store.ErrNotAStore)
	}
	v, ok := ledger.VersionByName(name)
	if !ok {
		return fmt.Errorf("the store belongs to network %q, which this build does not know", name)
	}
	var total uint64
	for _, c := range v.Chains() {
		n, err := reindexChain(db, c, out, now)
		if err != nil {
			return fmt.Errorf("chain %d: %w", c, err)
		}
		total += n
	}
	fmt.Fprintf(out, "reindexed %d blocks on %d chains of %s\n", total, len(v.Chains()), name)
	return nil
}

// Blocks are reindexed in runs of at most reindexRunBlocks blocks and reindexRunBytes payload
// bytes, one synced write a run (chain.ReindexBlocks). A variable: a test makes runs short.
var reindexRunBlocks = 512

const reindexRunBytes = 32 << 20

// reindexChain reindexes chain c's Pact state from genesis up: the number of blocks.
func reindexChain(db *store.DB, c ledger.ChainID, out io.Writer, now func() time.Time) (uint64, error) {
	st, err := state.Open(db.PactSpace(c))
	if err != nil {
		return 0, err
	}
	top, ok := st.Height()
	if !ok {
		fmt.Fprintf(out, "chain %d: no Pact state (no block executed): nothing to index\n", c)
		return 0, nil
	}
	last := now()
	var hashes []ledger.Hash
	var ps []*ledger.PayloadWithOutputs
	var size int
	from := uint64(0)
	for h := uint64(0); h <= top; h++ {
		hash, err := chain.BlockAt(st, h)
		if err != nil {
			return h, err
		}
		hd, err := db.Header(hash)
		if err != nil {
			return h, fmt.Errorf("block %d %s: header: %w", h, hash, err)
		}
		p, err := db.PayloadWithOutputs(hd.PayloadHash)
		if err != nil {
			return h, fmt.Errorf("block %d %s: payload %s: %w", h, hash, hd.PayloadHash, err)
		}
		hashes, ps = append(hashes, hash), append(ps, p)
		size += len(p.Coinbase)
		for _, tx := range p.Transactions {
			size += len(tx.Tx) + len(tx.Output)
		}
		// Genesis alone (its records are dropped before it is read), then runs.
		if h < top && h > 0 && len(ps) < reindexRunBlocks && size < reindexRunBytes {
			continue
		}
		if err := chain.ReindexBlocks(st, from, hashes, ps); err != nil {
			return from, fmt.Errorf("blocks %d to %d: %w", from, h, err)
		}
		from, hashes, ps, size = h+1, hashes[:0], ps[:0], 0
		if t := now(); t.Sub(last) >= reindexProgressEvery && h < top {
			fmt.Fprintf(out, "chain %d: %d of %d blocks\n", c, h+1, top+1)
			last = t
		}
	}
	fmt.Fprintf(out, "chain %d: %d blocks indexed\n", c, top+1)
	return top + 1, nil
}
