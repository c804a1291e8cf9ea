package actors

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/txexec"
)

// transfers inserts n transfers from sender00 of gas limit limit, with distinct amounts.
func (f *execFixture) transfers(n int, limit uint64) []*api.Command {
	f.t.Helper()
	var cmds []*api.Command
	for i := range n {
		c := devtx.Transfer("sender00", "sender01", "0."+strings.Repeat("0", 3)+string(rune('1'+i%9)), "0")
		c.GasLimit = limit
		c.Nonce = "fill-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		cmds = append(cmds, c.Build())
	}
	if _, err := f.pool.Insert(context.Background(), cmds); err != nil {
		f.t.Fatal(err)
	}
	return cmds
}

// gasOf reads the gas of a result.
func gasOf(t *testing.T, out []byte) uint64 {
	t.Helper()
	var r struct{ Gas uint64 }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r.Gas
}

// A block is filled as chainweb fills one: the mempool offers transactions whose limits fit the
// block's gas, and after each round the gas they did not use is offered again (for up to a
// round per 1,000 gas of the block gas limit). Transfers use far less than their limit, so the
// block holds many more than limit-sum alone would allow, and never spends more than the block
// gas limit.
func TestFillOffersUnusedGasAgain(t *testing.T) {
	const blockGas, txLimit = 20000, 5000
	f := newExecFixture(t, func(mc *MempoolConfig, _ *ExecutionConfig) {
		cfg := mempool.DefaultConfig()
		cfg.BlockGasLimit = blockGas
		mc.Pool = &cfg
	})
	f.transfers(120, txLimit)
	p, err := f.x.buildDirect(f.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	var spent uint64
	for _, tx := range p.Transactions {
		g := gasOf(t, tx.Output)
		if g >= txLimit {
			t.Fatalf("a transfer used its whole limit: %s", tx.Output)
		}
		spent += g
	}
	n := len(p.Transactions)
	t.Logf("%d transfers, %d gas of %d", n, spent, blockGas)
	if n <= blockGas/txLimit {
		t.Errorf("%d transfers: the unused gas was not offered again", n)
	}
	if spent > blockGas {
		t.Errorf("%d gas spent of %d", spent, blockGas)
	}
	// The block validates on another node (the same rules in execute).
	h := f.blockWith(f.g, p)
	clear(f.x.built)
	if err := f.x.validate(h, p); err != nil {
		t.Fatalf("validate the filled block: %v", err)
	}
}

// A block from a peer whose command asks for more gas than the block has left
// (chain.MaxBlockGasLimit) is valid only if that command succeeds; one that fails makes the block
// invalid (chainweb's BlockGasLimitExceeded).
func TestValidateBlockGasLimitExceeded(t *testing.T) {
	f := newExecFixture(t)
	empty, err := f.x.buildDirect(f.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := devtx.Cmd{Code: `(enforce false "fails")`, GasLimit: chain.MaxBlockGasLimit + 1,
		Signers: []*api.KeyPair{devtx.Key("sender00")}, Caps: [][]api.SigCapability{{{Name: "coin.GAS"}}}}.Build()
	p := ledger.NewPayloadWithOutputs(empty.MinerData, empty.Coinbase,
		[]ledger.TxWithOutput{{Tx: c.JSON(), Output: []byte(`{}`)}})
	h := f.blockWith(f.g, p)
	clear(f.x.built)
	err = f.x.validate(h, p)
	if !errors.Is(err, chain.ErrInvalidPayload) || !strings.Contains(err.Error(), "block gas limit exceeded") {
		t.Fatalf("validate: %v, want BlockGasLimitExceeded", err)
	}
}

// The outputs of a block being built stay under the cap, with room kept for the largest
// result; a peer's block over the cap is invalid.
func TestBlockOutputCap(t *testing.T) {
	const maxOutputs = 48 << 10
	f := newExecFixture(t, func(_ *MempoolConfig, ec *ExecutionConfig) {
		ec.Runner = txexec.New(txexec.Config{MaxResultBytes: 4096})
		ec.MaxBlockOutputBytes = maxOutputs
	})
	f.transfers(100, 1000)
	p, err := f.x.buildDirect(f.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	total := len(p.Coinbase)
	for _, tx := range p.Transactions {
		total += len(tx.Output)
	}
	t.Logf("%d transfers, %d bytes of outputs", len(p.Transactions), total)
	if total > maxOutputs || total < maxOutputs-4096-chain.ResultOverhead-1024 || len(p.Transactions) == 100 {
		t.Errorf("%d transactions, %d bytes of outputs: want the block filled up to the room for one more result under %d",
			len(p.Transactions), total, maxOutputs)
	}
	// The same block, seen by a node with a smaller cap, is invalid.
	h := f.blockWith(f.g, p)
	clear(f.x.built)
	f.x.maxOutputs = total - 1
	if err := f.x.validate(h, p); !errors.Is(err, chain.ErrInvalidPayload) || !strings.Contains(err.Error(), "outputs pass") {
		t.Errorf("validate over the cap: %v", err)
	}
	f.x.maxOutputs = total
	if err := f.x.validate(h, p); err != nil {
		t.Errorf("validate at the cap: %v", err)
	}
}

// Local waits for an evaluation slot, and is turned away with a BusyError when none comes free
// in time; it runs once one is free.
func TestLocalWaitsForAnEvaluationSlot(t *testing.T) {
	f := newExecFixture(t)
	slots := NewEvalSlots(1, 50*time.Millisecond)
	cc := &ChainContract{x: f.x, pool: f.pool, slots: slots}
	cmd := devtx.Cmd{Code: "(+ 1 2)"}.Build()
	release, err := slots.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = cc.Local(context.Background(), cmd, contractapi.LocalOptions{})
	var busy *BusyError
	// A lower bound only: the slot wait's timer never fires early, however busy the machine.
	if !errors.As(err, &busy) || busy.Slots != 1 || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("local with every slot taken: %v after %v", err, time.Since(start))
	}
	release()
	res, err := cc.Local(context.Background(), cmd, contractapi.LocalOptions{})
	if err != nil || gasOf(t, res.Result) != 1 {
		t.Fatalf("local with a free slot: %v %s", err, res.Result)
	}
	// A request whose context ends stops waiting.
	release, _ = slots.Acquire(context.Background())
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cc.Local(ctx, cmd, contractapi.LocalOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("local on an ended context: %v", err)
	}
}

// Local's gas limit is capped by the runner whatever the command asks (the executor passes it
// the command as it is).
func TestLocalGasCapThroughTheExecutor(t *testing.T) {
	f := newExecFixture(t, func(_ *MempoolConfig, ec *ExecutionConfig) {
		ec.Runner = txexec.New(txexec.Config{LocalGasLimit: 3000})
	})
	cc := &ChainContract{x: f.x, pool: f.pool}
	c := devtx.Cmd{Code: "(fold (+) 0 (enumerate 1 1000000))", GasLimit: 10_000_000}.Build()
	res, err := cc.Local(context.Background(), c, contractapi.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := gasOf(t, res.Result); g != 3000 || !strings.Contains(string(res.Result), `Gas limit \"3000\"exceeded`) {
		t.Errorf("local: %s", res.Result)
	}
}
