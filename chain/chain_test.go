package chain_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/txexec"
)

// memSpace is a state.KeySpace over an in-memory goleveldb database.
type memSpace struct{ ldb *leveldb.DB }

func (m memSpace) Prefix() []byte { return []byte("c0/") }

func (m memSpace) Get(key []byte) ([]byte, error) {
	v, err := m.ldb.Get(key, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, kv.ErrNotFound
	}
	return v, err
}

func (m memSpace) NewIterator(start, limit []byte) kv.Iterator {
	return m.ldb.NewIterator(&util.Range{Start: start, Limit: limit}, nil)
}

func (m memSpace) Write(b *kv.Batch) error {
	var lb leveldb.Batch
	b.Replay(func(k, v []byte) { lb.Put(k, v) }, func(k []byte) { lb.Delete(k) })
	return m.ldb.Write(&lb, nil)
}

func newState(t *testing.T) (*state.Versioned, memSpace) {
	t.Helper()
	ldb, err := leveldb.Open(storage.NewMemStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ldb.Close() })
	sp := memSpace{ldb}
	st, err := state.Open(sp)
	if err != nil {
		t.Fatal(err)
	}
	return st, sp
}

// headers is a chain.Headers over a map.
type headers map[ledger.Hash]*ledger.Header

func (hs headers) Header(h ledger.Hash) (*ledger.Header, error) {
	if x, ok := hs[h]; ok {
		return x, nil
	}
	return nil, errors.New("not found")
}

// devChain is chain 0 of the development network at its genesis: the genesis block applied to
// a fresh state, with the headers of the blocks made since.
type devChain struct {
	t   *testing.T
	v   *ledger.Version
	run *txexec.Runner
	st  *state.Versioned
	sp  memSpace
	hs  headers
	g   *ledger.Header
	gp  *ledger.PayloadWithOutputs
	ct  int64
}

func newDevChain(t *testing.T) *devChain {
	t.Helper()
	d := &devChain{t: t, v: ledger.Development, run: txexec.New(txexec.Config{}), hs: headers{},
		ct: time.Now().Add(-time.Minute).UnixMicro()}
	var err error
	if d.gp, err = chain.GenesisPayload(d.run, 0, d.v.Name); err != nil {
		t.Fatal(err)
	}
	d.g = ledger.GenesisHeader(d.v, 0, d.gp.PayloadHash)
	d.hs[d.g.Hash] = d.g
	d.st, d.sp = newState(t)
	view := d.st.View(0).(*state.View)
	blk, err := chain.PayloadContext(d.v, d.g, nil, d.gp)
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err := chain.Execute(d.run, view, blk, true, d.gp, chain.DefaultMaxBlockOutputBytes)
	if err != nil {
		t.Fatalf("the genesis payload does not execute to itself: %v", err)
	}
	d.apply(view, d.g, keys)
	return d
}

func (d *devChain) apply(view *state.View, h *ledger.Header, keys []api.Hash) {
	d.t.Helper()
	if err := chain.RecordBlock(view, h.Hash, h.Height, keys, nil); err != nil {
		d.t.Fatal(err)
	}
	if err := d.st.Apply(view, h.Height); err != nil {
		d.t.Fatal(err)
	}
}

// child is a header of a block with payload p on parent.
func (d *devChain) child(parent *ledger.Header, p *ledger.PayloadWithOutputs) *ledger.Header {
	d.ct += 1000
	h := &ledger.Header{ChainID: 0, Height: parent.Height + 1, Parent: parent.Hash, PayloadHash: p.PayloadHash,
		CreationTime: d.ct, Target: parent.Target, Version: parent.Version}
	h.Seal()
	d.hs[h.Hash] = h
	return h
}

// devMiner is the development network's miner: its miner data and the miner it names.
func devMiner(t *testing.T) ([]byte, txexec.Miner) {
	key := contracts.Key("devnet-miner")
	data := ledger.MinerData("k:"+key, key)
	m, err := txexec.ParseMiner(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, m
}

// offer is a mempool of pcs: it offers those a block has not seen yet, in order.
func offer(pcs ...*api.ParsedCommand) chain.PendingFunc {
	return func(gas uint64, seen []api.Hash) ([]*api.ParsedCommand, error) {
		var out []*api.ParsedCommand
		for _, c := range pcs {
			if !slices.Contains(seen, c.RequestKey) {
				out = append(out, c)
			}
		}
		return out, nil
	}
}

// A payload built on a parent executes to itself on another view of the same parent, and the
// records of its block locate its transactions; a payload whose outputs were changed is
// invalid.
func TestBuildExecuteRecord(t *testing.T) {
	d := newDevChain(t)
	minerData, miner := devMiner(t)
	cfg := chain.BuildConfig{MinerData: minerData, BlockGasLimit: 150_000}
	transfer := devtx.Cmd{Code: `(coin.transfer "sender00" "sender01" 1.0)`,
		Signers: []*api.KeyPair{devtx.Key("sender00")}}.Build()
	pc, err := api.VerifyCommand(transfer)
	if err != nil {
		t.Fatal(err)
	}
	poor := devtx.Cmd{Code: `1`, Sender: "nobody", GasLimit: 1000}.Build()
	poorPC, err := api.ParseCommand(poor)
	if err != nil {
		t.Fatal(err)
	}
	rounds := 0
	pending := func(gas uint64, seen []api.Hash) ([]*api.ParsedCommand, error) {
		rounds++
		var out []*api.ParsedCommand
		for _, c := range []*api.ParsedCommand{pc, poorPC} {
			if !slices.Contains(seen, c.RequestKey) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	child := &ledger.Header{ChainID: 0, Height: 1, Parent: d.g.Hash}
	view := d.st.View(0).(*state.View)
	built, err := chain.Build(d.run, view, chain.BlockContext(d.v, child, d.g, miner), cfg, pending)
	if err != nil {
		t.Fatal(err)
	}
	if len(built.Keys) != 1 || built.Keys[0] != pc.RequestKey || len(built.Payload.Transactions) != 1 {
		t.Fatalf("built keys %v, %d transactions; want the transfer alone", built.Keys, len(built.Payload.Transactions))
	}
	if len(built.Bad) != 1 || built.Bad[0].Key != poorPC.RequestKey {
		t.Fatalf("bad %v: want the command whose sender cannot pay", built.Bad)
	}
	if rounds < 2 {
		t.Fatalf("%d rounds: a block offers its unused gas again", rounds)
	}
	h := d.child(d.g, built.Payload)

	// Another node executes it on its own view of the parent.
	blk, err := chain.PayloadContext(d.v, h, d.g, built.Payload)
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err := chain.Execute(d.run, d.st.View(0).(*state.View), blk, false, built.Payload, chain.DefaultMaxBlockOutputBytes)
	if err != nil || !slices.Equal(keys, built.Keys) {
		t.Fatalf("execute: keys %v, %v; want %v", keys, err, built.Keys)
	}
	for name, tamper := range map[string]func(p *ledger.PayloadWithOutputs){
		"coinbase output differs":           func(p *ledger.PayloadWithOutputs) { p.Coinbase = append([]byte(nil), `{}`...) },
		"transaction 0: the output differs": func(p *ledger.PayloadWithOutputs) { p.Transactions[0].Output = []byte(`{}`) },
		"outputs pass":                      nil,
	} {
		p := *built.Payload
		p.Transactions = slices.Clone(p.Transactions)
		limit := chain.DefaultMaxBlockOutputBytes
		if tamper != nil {
			tamper(&p)
		} else {
			limit = len(p.Coinbase) + len(p.Transactions[0].Output) - 1
		}
		_, _, err := chain.Execute(d.run, d.st.View(0).(*state.View), blk, false, &p, limit)
		if !errors.Is(err, chain.ErrInvalidPayload) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}

	// Applied with its records: the transfer is located in block h, as of h and not before.
	d.apply(view, h, built.Keys)
	loc, ok, err := chain.LocateTx(d.st.View(1).(*state.View), pc.RequestKey)
	if err != nil || !ok || loc != (chain.TxLocation{Block: h.Hash, Index: 0}) {
		t.Fatalf("locate as of block 1: %+v %v %v", loc, ok, err)
	}
	if _, ok, err := chain.LocateTx(d.st.View(0).(*state.View), pc.RequestKey); ok || err != nil {
		t.Fatalf("located as of genesis: %v %v", ok, err)
	}
	for height, want := range []ledger.Hash{d.g.Hash, h.Hash} {
		if got, err := chain.BlockAt(d.st, uint64(height)); err != nil || got != want {
			t.Fatalf("block at %d: %s %v, want %s", height, got, err, want)
		}
	}
	if height, b, ok, err := chain.StateBlock(d.sp); err != nil || !ok || height != 1 || b != h.Hash {
		t.Fatalf("state block: %d %s %v %v", height, b, ok, err)
	}

	// A miner's replay of the transfer in the next block, or the transfer twice in one block,
	// makes the block invalid: a signed command runs once on a chain.
	next := func(txs []ledger.TxWithOutput) (*txexec.Block, *ledger.PayloadWithOutputs) {
		p := ledger.NewPayloadWithOutputs(built.Payload.MinerData, built.Payload.Coinbase, txs)
		h2 := d.child(h, p)
		blk, err := chain.PayloadContext(d.v, h2, h, p)
		if err != nil {
			t.Fatal(err)
		}
		return blk, p
	}
	replayed := built.Payload.Transactions[0]
	blk2, p2 := next([]ledger.TxWithOutput{replayed})
	if _, _, err := chain.Execute(d.run, d.st.View(1).(*state.View), blk2, false, p2, chain.DefaultMaxBlockOutputBytes); !errors.Is(err, chain.ErrInvalidPayload) ||
		!strings.Contains(err.Error(), "on the chain already") {
		t.Fatalf("a block replaying a transaction of its branch: %v, want an invalid payload", err)
	}
	// On genesis's state the transfer is new once, but not twice.
	blk3, p3 := next([]ledger.TxWithOutput{replayed, replayed})
	blk3.Height = 1
	if _, _, err := chain.Execute(d.run, d.st.View(0).(*state.View), blk3, false, p3, chain.DefaultMaxBlockOutputBytes); !errors.Is(err, chain.ErrInvalidPayload) ||
		!strings.Contains(err.Error(), "in the block twice") {
		t.Fatalf("a block holding a transaction twice: %v, want an invalid payload", err)
	}
}

// A record that is not a location is corruption, not a missing transaction.
func TestLocateCorruptRecord(t *testing.T) {
	st, _ := newState(t)
	view := st.View(0).(*state.View)
	var rk api.Hash
	rk[0] = 7
	if err := view.PutMeta("r:"+string(rk[:]), []byte("short")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := chain.LocateTx(view, rk); !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("locate a short record: %v", err)
	}
	if _, err := chain.BlockAt(st, 0); err == nil {
		t.Fatal("the block of an empty state read")
	}
}

// RouteTo returns the fork point and the blocks to apply oldest first, and walks past genesis
// when the state holds nothing of the target's branch.
func TestRouteTo(t *testing.T) {
	d := newDevChain(t)
	p := ledger.EmptyGenesisPayload() // the payload does not matter to routes
	a1 := d.child(d.g, p)
	a2 := d.child(a1, p)
	b2 := d.child(a1, p)
	b3 := d.child(b2, p)
	held := map[ledger.Hash]bool{d.g.Hash: true, a1.Hash: true, a2.Hash: true}
	onState := func(h *ledger.Header) (bool, error) { return held[h.Hash], nil }
	r, err := chain.RouteTo(d.v, d.hs, b3, onState)
	if err != nil || r.Fork != a1 || len(r.Apply) != 2 || r.Apply[0] != b2 || r.Apply[1] != b3 {
		t.Fatalf("route to b3: fork %v, apply %v, %v", r.Fork, r.Apply, err)
	}
	if r, err := chain.RouteTo(d.v, d.hs, a2, onState); err != nil || r.Fork != a2 || len(r.Apply) != 0 {
		t.Fatalf("route to the head: %+v %v", r, err)
	}
	none := func(*ledger.Header) (bool, error) { return false, nil }
	if r, err := chain.RouteTo(d.v, d.hs, a2, none); err != nil || r.Fork != nil || len(r.Apply) != 3 || r.Apply[0] != d.g {
		t.Fatalf("route from an empty state: %+v %v", r, err)
	}
	delete(d.hs, a1.Hash)
	if _, err := chain.RouteTo(d.v, d.hs, b3, none); err == nil || !strings.Contains(err.Error(), "parent of block 2") {
		t.Fatalf("route through a missing parent: %v", err)
	}
	if got, err := chain.AncestorAt(d.hs, b3, 2); err != nil || got != b2 {
		t.Fatalf("ancestor at 2: %v %v", got, err)
	}
	if _, err := chain.AncestorAt(d.hs, b3, 1); err == nil {
		t.Fatal("an ancestor through a missing header")
	}
}

// Continue refills a built block with newcomers on a clone of its view: the payload it makes
// executes to itself on the parent, and the first payload's view is untouched, so that either
// payload can be mined and applied.
func TestContinue(t *testing.T) {
	d := newDevChain(t)
	minerData, miner := devMiner(t)
	cfg := chain.BuildConfig{MinerData: minerData, BlockGasLimit: 150_000}
	transfer := func(nonce string) *api.ParsedCommand {
		cmd := devtx.Transfer("sender00", "sender01", "1.0", "0")
		cmd.Nonce = nonce
		c := cmd.Build()
		pc, err := api.VerifyCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		return pc
	}
	first, second := transfer("first"), transfer("second")
	child := &ledger.Header{ChainID: 0, Height: 1, Parent: d.g.Hash}
	blk := chain.BlockContext(d.v, child, d.g, miner)
	view := d.st.View(0).(*state.View)
	b1, err := chain.Build(d.run, view, blk, cfg, offer(first))
	if err != nil || len(b1.Keys) != 1 {
		t.Fatalf("build: %v %v", b1, err)
	}
	clone, err := view.Clone()
	if err != nil {
		t.Fatal(err)
	}
	b2, err := chain.Continue(d.run, clone, blk, cfg, b1, offer(first, second))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b2.Keys, []api.Hash{first.RequestKey, second.RequestKey}) || len(b2.Payload.Transactions) != 2 ||
		!slices.Equal(b2.Payload.Transactions[0].Output, b1.Payload.Transactions[0].Output) {
		t.Fatalf("continued keys %v: want the first transaction, unchanged, then the newcomer", b2.Keys)
	}
	if len(b1.Keys) != 1 || len(b1.Payload.Transactions) != 1 {
		t.Fatal("continuing changed the first build")
	}
	if b1.Full(d.run) {
		t.Fatal("a block with gas and room left says it is full")
	}
	if spent, err := chain.Build(d.run, d.st.View(0).(*state.View), blk, chain.BuildConfig{MinerData: minerData}, nil); err != nil || !spent.Full(d.run) {
		t.Fatalf("a block without gas is not full: %v", err)
	}
	for _, b := range []*chain.Built{b1, b2} {
		h := d.child(d.g, b.Payload)
		pblk, err := chain.PayloadContext(d.v, h, d.g, b.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if keys, _, err := chain.Execute(d.run, d.st.View(0).(*state.View), pblk, false, b.Payload, chain.DefaultMaxBlockOutputBytes); err != nil || !slices.Equal(keys, b.Keys) {
			t.Fatalf("the payload of %d transactions does not execute to itself: %v", len(b.Keys), err)
		}
	}
	// The first view still holds only the first payload's writes: applied, the second transfer
	// is not on chain.
	h1 := d.child(d.g, b1.Payload)
	d.apply(view, h1, b1.Keys)
	after := d.st.View(1).(*state.View)
	if _, ok, _ := chain.LocateTx(after, first.RequestKey); !ok {
		t.Fatal("the first transfer is not on chain")
	}
	if _, ok, _ := chain.LocateTx(after, second.RequestKey); ok {
		t.Fatal("the newcomer leaked into the first payload's view")
	}
	bal, _, err := after.Read(db.UserTable, "coin_coin-table", "sender01")
	if err != nil {
		t.Fatal(err)
	}
	if s := bal.(*eval.Object).String(); !strings.Contains(s, "110000001.0") {
		t.Fatalf("sender01 after one transfer: %s", s)
	}
}

// A transaction that runs past the time bound of a block being built is left out, undone with
// its gas purchase, reported as bad, and ends the filling; the block holds what ran before it
// and executes to itself elsewhere.
func TestBuildDropsTransactionPastTimeBound(t *testing.T) {
	d := newDevChain(t)
	minerData, miner := devMiner(t)
	// Pact 5 charges mod a flat price: a loop of mods of huge integers costs seconds of CPU
	// for little gas, far past a bound of 50 ms.
	slow := devtx.Cmd{Code: `(let ((x (^ 3 100000)) (y (^ 7 20000))) (fold (lambda (a i) (mod x y)) 0 (enumerate 1 20000)))`,
		Sender: "sender01", Signers: []*api.KeyPair{devtx.Key("sender01")}, GasLimit: 150_000}.Build()
	var cmds []*api.ParsedCommand
	for _, c := range []*api.Command{
		devtx.Cmd{Code: `(coin.transfer "sender00" "sender02" 1.0)`, Signers: []*api.KeyPair{devtx.Key("sender00")}}.Build(),
		slow,
		devtx.Cmd{Code: `(+ 1 2)`, Sender: "sender02", Signers: []*api.KeyPair{devtx.Key("sender02")}}.Build(),
	} {
		pc, err := api.VerifyCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, pc)
	}
	child := &ledger.Header{ChainID: 0, Height: 1, Parent: d.g.Hash}
	blk := chain.BlockContext(d.v, child, d.g, miner)
	view := d.st.View(0).(*state.View)
	cfg := chain.BuildConfig{MinerData: minerData, BlockGasLimit: 400_000, TxTimeLimit: 50 * time.Millisecond}
	built, err := chain.Build(d.run, view, blk, cfg, offer(cmds...))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(built.Keys, []api.Hash{cmds[0].RequestKey}) {
		t.Fatalf("built keys %v: want the transfer alone (the slow one dropped, filling stopped)", built.Keys)
	}
	var te *txexec.TimeoutError
	if len(built.Bad) != 1 || built.Bad[0].Key != cmds[1].RequestKey || !errors.As(built.Bad[0].Err, &te) {
		t.Fatalf("bad %v: want the slow transaction, timed out", built.Bad)
	}
	// The slow command's gas purchase is undone: its sender's balance is as before the block.
	balance := func(v *state.View) string {
		t.Helper()
		q, err := api.ParseCommand(devtx.Cmd{Code: `(coin.get-balance "sender01")`}.Build())
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.run.Local(v, blk, q, false)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Result struct{ Data json.RawMessage }
		}
		if err := json.Unmarshal(out, &r); err != nil || len(r.Result.Data) == 0 {
			t.Fatalf("local: %s %v", out, err)
		}
		return string(r.Result.Data)
	}
	if got, want := balance(view), balance(d.st.View(0).(*state.View)); got != want {
		t.Fatalf("the slow sender's balance in the built block's state is %s, before the block %s", got, want)
	}
	h := d.child(d.g, built.Payload)
	pblk, err := chain.PayloadContext(d.v, h, d.g, built.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := chain.Execute(d.run, d.st.View(0).(*state.View), pblk, false, built.Payload, chain.DefaultMaxBlockOutputBytes); err != nil {
		t.Fatalf("the built payload does not execute to itself: %v", err)
	}
	// A local command is bounded the same way, and says so.
	bounded := txexec.New(txexec.Config{LocalTimeLimit: 50 * time.Millisecond})
	for _, preflight := range []bool{false, true} {
		_, err := bounded.Local(d.st.View(0).(*state.View), blk, cmds[1], preflight)
		if !errors.As(err, &te) || !te.Local || !strings.Contains(err.Error(), "ran longer than this node's bound of 50ms") {
			t.Fatalf("local, preflight %v: %v, want a timeout", preflight, err)
		}
	}
}
