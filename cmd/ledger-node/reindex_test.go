package main

import (
	"bytes"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/store"
)

// indexSnapshot is what the indexes of chain 3 say of sender01's and the miner's transfers and
// of one pact's continuations, read offline from the data directory.
type indexSnapshot struct {
	Transfers      []chain.Transfer
	MinerTransfers []chain.Transfer // a coinbase in every block: several in each run of blocks
	Continuations  []chain.Continuation
}

func readIndexes(t *testing.T, dir string, pact api.Hash) indexSnapshot {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := state.Open(db.PactSpace(3))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := st.Height()
	view := st.View(h).(*state.View)
	var s indexSnapshot
	if s.Transfers, err = chain.AccountTransfers(view, "sender01", math.MaxUint64, 1000); err != nil {
		t.Fatal(err)
	}
	if s.MinerTransfers, err = chain.AccountTransfers(view, "k:"+devMinerKey, math.MaxUint64, 1000); err != nil {
		t.Fatal(err)
	}
	if s.Continuations, _, err = chain.PactContinuations(view, pact, 0, 1000); err != nil {
		t.Fatal(err)
	}
	return s
}

// stripIndexes drops every index record of every block of every chain: the data directory of
// a node that applied its blocks before it kept the indexes.
func stripIndexes(t *testing.T, dir string) {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range ledger.Development.Chains() {
		st, err := state.Open(db.PactSpace(c))
		if err != nil {
			t.Fatal(err)
		}
		top, ok := st.Height()
		for h := uint64(0); ok && h <= top; h++ {
			if err := st.DropMeta(h, "tc:", "te:", "pc:", "pe:"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A data directory whose blocks were applied without the indexes gets them from
// reindex-transfers, record for record as the node wrote them; a second run changes nothing;
// the node then serves them. The command refuses a running node's directory and one that is
// no data directory.
func TestReindexTransfers(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--mining", "on-demand", "--disable-pow",
		"--on-demand-idle-period", "0", "--miner-key", devMinerKey}
	n := startNodeOpts(t, nodeOptions{workers: 2}, args...)
	transfer := devtx.Transfer("sender00", "sender01", "4.5", "3").Build()
	pact := api.HashBytes([]byte("reindex: a pact chain 3 never started"))
	c := devtx.Continuation(pact.String(), 1, "", "3", "sender02")
	c.Cont.Proof = nil
	cont := c.Build()
	send(t, n.url, 3, transfer, cont)
	for _, cmd := range []*api.Command{transfer, cont} {
		hangguard.Until(t, "the command mined", func() bool { _, ok := pollOne(t, n.url, 3, cmd); return ok })
	}
	// A running node's directory is refused: the store is locked.
	var out, errOut bytes.Buffer
	if code := run([]string{"reindex-transfers", "--data-dir", dir}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "stop the node first") {
		t.Fatalf("reindex of a running node's directory: exit %d, %s", code, errOut.String())
	}
	n.stop()

	want := readIndexes(t, dir, pact)
	if len(want.MinerTransfers) < 3 {
		t.Fatalf("the miner has %d transfers on chain 3, want a coinbase of each block", len(want.MinerTransfers))
	}
	if len(want.Continuations) != 1 || want.Continuations[0].RequestKey != cont.Hash.String() {
		t.Fatalf("the node's index of continuations: %+v", want.Continuations)
	}
	found := false
	for _, tr := range want.Transfers {
		found = found || tr.RequestKey == transfer.Hash.String() && tr.From == "sender00" && tr.Amount == "4.5"
	}
	if !found {
		t.Fatalf("the node's index of transfers lacks the transfer: %+v", want.Transfers)
	}

	stripIndexes(t, dir)
	if got := readIndexes(t, dir, pact); len(got.Transfers)+len(got.MinerTransfers)+len(got.Continuations) != 0 {
		t.Fatalf("stripped indexes still hold %+v", got)
	}
	// Twice: in runs of 512 blocks (one here), then of 2 (several, each reading the last).
	defer func(n int) { reindexRunBlocks = n }(reindexRunBlocks)
	for _, blocks := range []int{512, 2} {
		reindexRunBlocks = blocks
		out.Reset()
		errOut.Reset()
		if code := run([]string{"reindex-transfers", "--data-dir", dir}, &out, &errOut); code != 0 {
			t.Fatalf("reindex-transfers: exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), "chain 3: ") || !strings.Contains(out.String(), "reindexed ") {
			t.Fatalf("reindex-transfers said:\n%s", out.String())
		}
		if got := readIndexes(t, dir, pact); !reflect.DeepEqual(got, want) {
			t.Fatalf("after reindex-transfers:\n%+v\nwant the node's:\n%+v", got, want)
		}
	}

	// A long reindex says how far it got, paced by the clock: here a clock that moves on by the
	// pace at each look, so every block but a chain's last is reported.
	func() {
		db, err := store.Open(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		clock := time.Unix(0, 0)
		tick := func() time.Time { clock = clock.Add(reindexProgressEvery); return clock }
		out.Reset()
		if err := reindexTransfers(db, &out, tick); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "\nchain 3: 1 of ") || strings.Count(out.String(), " blocks indexed\n") != 20 {
			t.Fatalf("progress:\n%s", out.String())
		}
	}()
	if got := readIndexes(t, dir, pact); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the third reindex:\n%+v\nwant the node's:\n%+v", got, want)
	}

	// The node serves what the reindex wrote.
	again := startNodeOpts(t, nodeOptions{workers: 2}, append(args[:len(args):len(args)], "--mining", "off")...)
	defer again.stop()
	var page continuationsAnswer
	getJSON(t, again.url+"/chainweb/0.0/development/chain/3/pact/"+pact.String()+"/continuations", "", &page)
	if len(page.Items) != 1 || page.Items[0].RequestKey != cont.Hash.String() || page.Items[0].Result != "failure" {
		t.Fatalf("served after the reindex: %+v", page)
	}

	// Usage and a directory that is none.
	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{"reindex-transfers"}, "needs --data-dir"},
		{[]string{"reindex-transfers", "--data-dir", dir, "extra"}, "unexpected argument"},
		{[]string{"reindex-transfers", "--data-dir", t.TempDir()}, "not a data directory"},
	} {
		errOut.Reset()
		if code := run(c.args, io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), c.why) {
			t.Errorf("%v: exit %d, %q, want 2 and %q", c.args, code, errOut.String(), c.why)
		}
	}
}
