package actors

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/txexec"
)

// execFixture is chain 0's executor over a fresh store holding its development genesis, with
// a mempool that checks nothing Pact-side, driven directly (not as an actor): blocks are
// headers made by hand, since the executor only reads their hashes, parents, heights, times
// and payload hashes.
type execFixture struct {
	t    *testing.T
	db   *store.DB
	x    *Executor
	pool *Mempool
	g    *ledger.Header
	ct   int64
}

// execSetup adjusts a fixture's mempool and execution settings before its executor starts.
type execSetup func(*MempoolConfig, *ExecutionConfig)

func newExecFixture(t *testing.T, setup ...execSetup) *execFixture {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	v := ledger.Development
	run := txexec.New(txexec.Config{})
	gp, err := chain.GenesisPayload(run, 0, v.Name)
	if err != nil {
		t.Fatal(err)
	}
	g := ledger.GenesisHeader(v, 0, gp.PayloadHash)
	if err := db.PutBlock(g, gp, nil); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	key := contracts.Key("devnet-miner")
	ec := &ExecutionConfig{Runner: run, MinerData: ledger.MinerData("k:"+key, key)}
	mc := MempoolConfig{Chain: 0, Network: v.Name, EvictEvery: -1, Logger: log}
	for _, s := range setup {
		s(&mc, ec)
	}
	pool, err := StartMempool(nil, mc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Stop)
	x, err := newExecutor(0, v, db, ec, pool, func() *ledger.Header { return nil }, log)
	if err != nil {
		t.Fatal(err)
	}
	f := &execFixture{t: t, db: db, x: x, pool: pool, g: g, ct: time.Now().Add(-time.Minute).UnixMicro()}
	if err := x.syncTo(g); err != nil {
		t.Fatalf("genesis: %v", err)
	}
	return f
}

// block stores a block on parent with the payload the executor builds for it.
func (f *execFixture) block(parent *ledger.Header) *ledger.Header {
	f.t.Helper()
	p, err := f.x.buildDirect(parent, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.blockWith(parent, p)
}

func (f *execFixture) blockWith(parent *ledger.Header, p *ledger.PayloadWithOutputs) *ledger.Header {
	f.t.Helper()
	f.ct += 1000
	h := &ledger.Header{ChainID: 0, Height: parent.Height + 1, Parent: parent.Hash, PayloadHash: p.PayloadHash,
		CreationTime: f.ct, Target: parent.Target, Version: parent.Version}
	h.Seal()
	if err := f.db.PutBlock(h, p, nil); err != nil {
		f.t.Fatal(err)
	}
	return h
}

func (f *execFixture) sync(h *ledger.Header) {
	f.t.Helper()
	if err := f.x.syncTo(h); err != nil {
		f.t.Fatal(err)
	}
	if f.x.Head().Hash != h.Hash {
		f.t.Fatalf("head %d, want %d", f.x.Head().Height, h.Height)
	}
}

// balance reads an account's balance at the executor's head.
func (f *execFixture) balance(account string) string {
	f.t.Helper()
	cc := &ChainContract{x: f.x, pool: f.pool}
	c := devtx.Cmd{Code: `(format "{}" [(coin.get-balance "` + account + `")])`}.Build()
	res, err := cc.Local(context.Background(), c, contractapi.LocalOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var r struct {
		Result struct{ Data string } `json:"result"`
	}
	if err := json.Unmarshal(res.Result, &r); err != nil {
		f.t.Fatal(err)
	}
	return r.Result.Data
}

// A fork that overtakes the branch holding a transaction: the state rewinds to the fork
// point and replays the other branch; the transaction, returned to the mempool by the
// rewind, goes into the other branch, and runs once on whichever branch the state follows.
func TestExecutorReorgRewindsAndReplays(t *testing.T) {
	f := newExecFixture(t)
	start := mustDecimal(t, f.balance("sender01"))
	after := start.Add(mustDecimal(t, "7.0"))

	tx := devtx.Transfer("sender00", "sender01", "7.0", "0").Build()
	if _, err := f.pool.Insert(context.Background(), []*api.Command{tx}); err != nil {
		t.Fatal(err)
	}
	a1 := f.block(f.g)
	f.sync(a1)
	f.expectIn(tx, a1)
	if got := mustDecimal(t, f.balance("sender01")); !got.Equal(after) {
		t.Fatalf("sender01 %s after the transfer, want %s", got, after)
	}

	// b1, a sibling of a1, and b2: building on genesis rewinds a1 and returns the transfer to
	// the mempool, so b1 holds it too.
	b1 := f.block(f.g)
	b2 := f.block(b1)
	f.sync(a1) // back on a, as the cut would be
	f.sync(b2) // and the reorg
	f.expectIn(tx, b1)
	if got := mustDecimal(t, f.balance("sender01")); !got.Equal(after) {
		t.Fatalf("sender01 %s on branch b, want %s (the transfer once)", got, after)
	}
	// confirmationDepth: b1's state (one down) holds it, genesis (two down) does not.
	if res, _ := f.x.Result(tx.Hash, 1); res == nil {
		t.Error("not found one block down")
	}
	if res, _ := f.x.Result(tx.Hash, 2); res != nil {
		t.Error("found at genesis")
	}

	// And back: building on a1 rewinds b and applies a1 again from its kept writes. The transfer,
	// pending again, is on a already: a2 does not take it a second time.
	a2 := f.block(a1)
	f.sync(a2)
	f.expectIn(tx, a1)
	if p := mustPayload(t, f.db, a2); len(p.Transactions) != 0 {
		t.Fatalf("a2 holds %d transactions: the transfer ran twice", len(p.Transactions))
	}
	if got := mustDecimal(t, f.balance("sender01")); !got.Equal(after) {
		t.Fatalf("sender01 %s back on branch a, want %s", got, after)
	}
}

// expectIn checks that the result of tx as of the head names block b.
func (f *execFixture) expectIn(tx *api.Command, b *ledger.Header) {
	f.t.Helper()
	res, err := f.x.Result(tx.Hash, 0)
	if err != nil || res == nil {
		f.t.Fatalf("no result for %s: %v", tx.Hash, err)
	}
	var r struct {
		MetaData struct{ BlockHash string } `json:"metaData"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.MetaData.BlockHash != b.Hash.String() {
		f.t.Fatalf("result in block %s, want %s at height %d (%v)", r.MetaData.BlockHash, b.Hash, b.Height, err)
	}
}

func mustDecimal(t *testing.T, s string) eval.Decimal {
	t.Helper()
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	d, err := eval.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustPayload(t *testing.T, db *store.DB, h *ledger.Header) *ledger.PayloadWithOutputs {
	t.Helper()
	p, err := db.PayloadWithOutputs(h.PayloadHash)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A payload whose outputs are not what its transactions produce is refused, and the state is
// left as it was.
func TestExecutorRefusesForgedOutputs(t *testing.T) {
	f := newExecFixture(t)
	tx := devtx.Transfer("sender00", "sender01", "1.0", "0").Build()
	if _, err := f.pool.Insert(context.Background(), []*api.Command{tx}); err != nil {
		t.Fatal(err)
	}
	good, err := f.x.buildDirect(f.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	forged := *good
	forged.Transactions = []ledger.TxWithOutput{{Tx: good.Transactions[0].Tx,
		Output: []byte(strings.Replace(string(good.Transactions[0].Output), `"gas":`, `"gas":1`, 1))}}
	p := ledger.NewPayloadWithOutputs(forged.MinerData, forged.Coinbase, forged.Transactions)
	bad := f.blockWith(f.g, p)
	clear(f.x.built) // as if another node had built it
	err = f.x.validate(bad, p)
	if !errors.Is(err, chain.ErrInvalidPayload) || !strings.Contains(err.Error(), "output differs") {
		t.Fatalf("validate: %v, want an invalid payload", err)
	}
	if err := f.x.syncTo(bad); err == nil {
		t.Fatal("the executor applied a forged block")
	}
	if f.x.Head().Hash != f.g.Hash {
		t.Errorf("the state moved to height %d", f.x.Head().Height)
	}
	// A miner that is not paid by the coinbase the payload claims: the coinbase differs.
	other := ledger.NewPayloadWithOutputs(ledger.MinerData("someone-else"), good.Coinbase, good.Transactions)
	if err := f.x.validate(f.blockWith(f.g, other), other); !errors.Is(err, chain.ErrInvalidPayload) {
		t.Errorf("validate a payload with another miner's coinbase: %v", err)
	}
}

// A payload built for another miner (the mining API's) pays that miner, and does not replace
// the node's own miner's payload in progress on the same parent: the next Build for the node's
// miner is the same payload, not a rebuild, and the block mined with the other miner's payload
// credits the other miner.
func TestExecutorBuildsForEachMiner(t *testing.T) {
	f := newExecFixture(t)
	// The mempool hears of genesis's transactions asynchronously, which moves its generation
	// once: build until the payload is the cached one.
	var own *ledger.PayloadWithOutputs
	for i := 0; ; i++ {
		p, err := f.x.buildDirect(f.g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p == own {
			break
		}
		if i == 100 {
			t.Fatal("every build of the node's payload on an unchanged parent and mempool is a new one")
		}
		own = p
		time.Sleep(5 * time.Millisecond)
	}
	key := contracts.Key("sender01")
	otherData := ledger.MinerData("sender01", key)
	other, err := f.x.buildDirect(f.g, otherData)
	if err != nil {
		t.Fatal(err)
	}
	if string(other.MinerData) != string(otherData) || other.PayloadHash == own.PayloadHash {
		t.Fatalf("payload for another miner has miner data %s", other.MinerData)
	}
	if again, err := f.x.buildDirect(f.g, nil); err != nil || again != own {
		t.Fatalf("the node's payload was rebuilt after a build for another miner (err %v)", err)
	}
	if again, err := f.x.buildDirect(f.g, otherData); err != nil || again != other {
		t.Fatalf("the other miner's payload was rebuilt with nothing changed (err %v)", err)
	}
	before := mustDecimal(t, f.balance("sender01"))
	f.sync(f.blockWith(f.g, other))
	if got := mustDecimal(t, f.balance("sender01")); got.Cmp(before) <= 0 {
		t.Fatalf("sender01 has %s after mining a block, had %s", got, before)
	}
}

// The executor's gas payer check tells the mempool a command too big for its gas limit as such,
// so that /send refuses it with preflight's text.
func TestCanPayTooBig(t *testing.T) {
	f := newExecFixture(t)
	c := devtx.Transfer("sender00", "sender01", "1.0", "0")
	c.GasLimit = 1 // a transfer's size charge is more than one gas
	pc, err := api.VerifyCommand(c.Build())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.x.CanPay(pc); !errors.Is(err, mempool.ErrTxTooBig) {
		t.Fatalf("CanPay: %v, want mempool.ErrTxTooBig", err)
	}
}

// buildDirect builds a payload as BuildFor does, on the test's goroutine instead of the actor's:
// the tests that call it send the executor nothing meanwhile.
func (x *Executor) buildDirect(parent *ledger.Header, minerData []byte) (*ledger.PayloadWithOutputs, error) {
	b := x.build(&execBuild{parent: parent, minerData: minerData})
	if !b.needPending {
		return b.payload, b.err
	}
	pending, gen, err := x.pool.PendingSnapshot(context.Background())
	if err != nil {
		return nil, err
	}
	b = x.build(&execBuild{parent: parent, minerData: minerData, offered: true, pending: pending, gen: gen})
	return b.payload, b.err
}
