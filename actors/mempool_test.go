package actors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow/powtest"
)

// mpClock is a settable clock.
type mpClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *mpClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *mpClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var mpStart = time.Unix(1_700_000_000, 0)

var mpKey = func() *api.KeyPair {
	k, err := api.KeyPairFromHex("0000000000000000000000000000000000000000000000000000000000000003")
	if err != nil {
		panic(err)
	}
	return k
}()

// mpCmd is a signed command for chain 2 of development; price is JSON number text.
func mpCmd(nonce, price string, gasLimit uint64, ttl int64, chain string) *api.Command {
	cmd := `{"networkId":"development","payload":{"exec":{"data":null,"code":"(+ 1 2)"}},"signers":[{"pubKey":"` +
		mpKey.PublicHex() + `"}],"meta":{"creationTime":` + strconv.FormatInt(mpStart.Unix()-5, 10) +
		`,"ttl":` + strconv.FormatInt(ttl, 10) + `,"gasLimit":` + strconv.FormatUint(gasLimit, 10) +
		`,"chainId":"` + chain + `","gasPrice":` + price + `,"sender":"sender00"},"nonce":"` + nonce + `"}`
	h := api.HashBytes([]byte(cmd))
	return &api.Command{Hash: h, Sigs: []api.UserSig{mpKey.SignHash(h)}, Cmd: cmd}
}

func startTestMempool(t *testing.T, clock *mpClock, mod func(*MempoolConfig)) *Mempool {
	t.Helper()
	cfg := MempoolConfig{Chain: 2, Network: "development", Now: clock.now, EvictEvery: -1, Logger: quiet,
		ParentTime: func() time.Time { return mpStart.Add(-10 * time.Second) }}
	if mod != nil {
		mod(&cfg)
	}
	m, err := StartMempool(nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	return m
}

func mpNonces(txs []*mempool.Tx) []string {
	ns := make([]string, len(txs))
	for i, tx := range txs {
		ns[i] = tx.Payload.Nonce
	}
	return ns
}

func TestMempoolInsertLookup(t *testing.T) {
	clock := &mpClock{t: mpStart}
	m := startTestMempool(t, clock, nil)
	ctx := context.Background()
	a, b := mpCmd("a", "0.1", 100, 600, "2"), mpCmd("b", "0.2", 100, 600, "2")
	keys, err := m.Insert(ctx, []*api.Command{a, b, a})
	if err != nil || !slices.Equal(keys, []api.Hash{a.Hash, b.Hash, a.Hash}) {
		t.Fatalf("Insert: %v %v", keys, err)
	}
	es := m.Lookup([]api.Hash{a.Hash, b.Hash, {9}})
	if es[0].Status != mempool.Pending || es[0].Tx.Command != a || es[1].Status != mempool.Pending ||
		es[2].Status != mempool.Missing {
		t.Errorf("Lookup %+v", es)
	}
	// Re-sending a pending transaction is accepted.
	if keys, err := m.Insert(ctx, []*api.Command{a}); err != nil || keys[0] != a.Hash {
		t.Errorf("resend: %v %v", keys, err)
	}
	txs, err := m.Pending(ctx, 0, nil)
	if err != nil || !slices.Equal(mpNonces(txs), []string{"b", "a"}) {
		t.Errorf("Pending: %v %v", mpNonces(txs), err)
	}
}

func TestMempoolInsertRejects(t *testing.T) {
	clock := &mpClock{t: mpStart}
	m := startTestMempool(t, clock, nil)
	ctx := context.Background()
	good, wrong, big := mpCmd("g", "0.1", 100, 600, "2"), mpCmd("w", "0.1", 100, 600, "3"), mpCmd("x", "0.1", 150001, 600, "2")
	_, err := m.Insert(ctx, []*api.Command{good, wrong, big})
	want := `One or more transactions were invalid: Transaction "` + wrong.Hash.String() +
		`" at index 1 failed with: Transaction metadata (chain id, chainweb version) conflicts with this endpoint, Transaction "` +
		big.Hash.String() + `" at index 2 failed with: Transaction gas limit exceeds block gas limit (ParsedInteger 150000)`
	if msg, ok := mempool.IsRejection(err); !ok || msg != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	if m.Status(good.Hash) != mempool.Missing {
		t.Error("a rejected batch inserted its good transaction")
	}
	_, err = m.Insert(ctx, []*api.Command{{Hash: api.HashBytes([]byte("[]")), Cmd: "[]"}})
	if msg, ok := mempool.IsRejection(err); !ok || !strings.HasPrefix(msg, "reading JSON for transaction failed: ") {
		t.Errorf("decode: %v", err)
	}
}

func TestMempoolIncludedBadlist(t *testing.T) {
	clock := &mpClock{t: mpStart}
	m := startTestMempool(t, clock, nil)
	ctx := context.Background()
	a, b := mpCmd("a", "0.1", 100, 600, "2"), mpCmd("b", "0.1", 100, 600, "2")
	if _, err := m.Insert(ctx, []*api.Command{a, b}); err != nil {
		t.Fatal(err)
	}
	m.Included([]api.Hash{a.Hash})
	m.Badlist([]api.Hash{b.Hash})
	txs, err := m.Pending(ctx, 0, nil) // handled after both
	if err != nil || len(txs) != 0 {
		t.Fatalf("Pending after Included and Badlist: %v %v", mpNonces(txs), err)
	}
	if m.Status(a.Hash) != mempool.Missing || m.Status(b.Hash) != mempool.Badlisted {
		t.Errorf("status a %v b %v", m.Status(a.Hash), m.Status(b.Hash))
	}
	for _, c := range []struct {
		cmd  *api.Command
		want string
	}{{a, mempool.TextDuplicate}, {b, mempool.TextBadlisted}} {
		_, err := m.Insert(ctx, []*api.Command{c.cmd})
		if msg, _ := mempool.IsRejection(err); !strings.HasSuffix(msg, "failed with: "+c.want) {
			t.Errorf("resend: %v", err)
		}
	}
}

func TestMempoolPendingBudget(t *testing.T) {
	clock := &mpClock{t: mpStart}
	m := startTestMempool(t, clock, nil)
	ctx := context.Background()
	var cmds []*api.Command
	for i, price := range []string{"0.3", "0.1", "0.2", "0.4"} {
		cmds = append(cmds, mpCmd(strconv.Itoa(i), price, 60000, 600, "2"))
	}
	if _, err := m.Insert(ctx, cmds); err != nil {
		t.Fatal(err)
	}
	txs, err := m.Pending(ctx, 0, nil)
	if err != nil || !slices.Equal(mpNonces(txs), []string{"3", "0"}) {
		t.Errorf("block gas limit: %v %v", mpNonces(txs), err)
	}
	txs, _ = m.Pending(ctx, 130000, []api.Hash{cmds[3].Hash})
	if !slices.Equal(mpNonces(txs), []string{"0", "2"}) {
		t.Errorf("skip: %v", mpNonces(txs))
	}
}

func TestMempoolEvict(t *testing.T) {
	clock := &mpClock{t: mpStart}
	m := startTestMempool(t, clock, nil)
	ctx := context.Background()
	short, long := mpCmd("s", "0.1", 100, 60, "2"), mpCmd("l", "0.1", 100, 600, "2")
	if _, err := m.Insert(ctx, []*api.Command{short, long}); err != nil {
		t.Fatal(err)
	}
	clock.add(55 * time.Second) // short expires at start-5+60
	m.Evict()
	if err := m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if m.Status(short.Hash) != mempool.Missing || m.Status(long.Hash) != mempool.Pending {
		t.Errorf("short %v long %v", m.Status(short.Hash), m.Status(long.Hash))
	}
	// The ticker does the same on its own.
	clock2 := &mpClock{t: mpStart}
	m2 := startTestMempool(t, clock2, func(c *MempoolConfig) { c.EvictEvery = time.Millisecond })
	if _, err := m2.Insert(ctx, []*api.Command{long}); err != nil {
		t.Fatal(err)
	}
	clock2.add(time.Hour)
	hangguard.Until(t, "the ticker's eviction", func() bool { return m2.Status(long.Hash) == mempool.Missing })
}

// The Pact-side checks come from the executor through the config.
func TestMempoolExecutorChecks(t *testing.T) {
	clock := &mpClock{t: mpStart}
	var calls sync.Map
	m := startTestMempool(t, clock, func(c *MempoolConfig) {
		c.GasPayer = mpPayer(func(pc *api.ParsedCommand) error {
			calls.Store(pc.RequestKey, true)
			if pc.Payload.Nonce == "poor" {
				return errors.New("Insufficient funds")
			}
			return nil
		})
	})
	ctx := context.Background()
	var cmds []*api.Command
	for i := range 20 { // large enough to be checked in parallel
		cmds = append(cmds, mpCmd("n"+strconv.Itoa(i), "0.1", 100, 600, "2"))
	}
	poor := mpCmd("poor", "0.1", 100, 600, "2")
	_, err := m.Insert(ctx, append(cmds, poor))
	want := fmt.Sprintf(`One or more transactions were invalid: Transaction "%s" at index 20 failed with: `+
		`Attempt to buy gas failed with: "%s" Failed to buy gas: Insufficient funds`, poor.Hash, poor.Hash)
	if msg, _ := mempool.IsRejection(err); msg != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	for _, c := range cmds {
		if _, ok := calls.Load(c.Hash); !ok {
			t.Fatalf("gas payer not asked about %s", c.Hash)
		}
	}
	if keys, err := m.Insert(ctx, cmds); err != nil || len(keys) != 20 {
		t.Errorf("insert: %d %v", len(keys), err)
	}
	// Preflight checks against the same chain and network.
	pc, err := api.VerifyCommand(mpCmd("p", "0.1", 100, 600, "4"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Preflight(pc, true); !slices.Equal(got, []string{mempool.PreflightChainID}) {
		t.Errorf("Preflight %q", got)
	}
}

type mpPayer func(*api.ParsedCommand) error

func (f mpPayer) CanPay(pc *api.ParsedCommand) error { return f(pc) }

func TestMempoolStopAndContext(t *testing.T) {
	clock := &mpClock{t: mpStart}
	m := startTestMempool(t, clock, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Pending(ctx, 0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	m.Stop()
	m.Stop()
	if _, err := m.Insert(context.Background(), []*api.Command{mpCmd("a", "0.1", 1, 60, "2")}); !errors.Is(err, ErrMempoolStopped) {
		t.Errorf("after Stop: %v", err)
	}
	if err := m.Sync(context.Background()); !errors.Is(err, ErrMempoolStopped) {
		t.Errorf("Sync after Stop: %v", err)
	}
	m.Included([]api.Hash{{1}}) // ignored
}

func TestStartMempools(t *testing.T) {
	clock := &mpClock{t: mpStart}
	v := ledger.Development
	ms, err := StartMempools(nil, v, MempoolConfig{Now: clock.now, EvictEvery: -1, Logger: quiet}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Stop()
	for _, c := range v.Chains() {
		m, ok := ms.Chain(c)
		if !ok || m.Chain() != c {
			t.Fatalf("chain %d: %v", c, ok)
		}
	}
	if _, ok := ms.Chain(ledger.ChainID(len(v.Chains()) + 5)); ok {
		t.Error("a chain the version does not have")
	}
	m, _ := ms.Chain(2)
	if _, err := m.Insert(context.Background(), []*api.Command{mpCmd("a", "0.1", 100, 600, "2")}); err != nil {
		t.Errorf("insert on chain 2: %v", err)
	}
	other, _ := ms.Chain(3)
	_, err = other.Insert(context.Background(), []*api.Command{mpCmd("a", "0.1", 100, 600, "2")})
	if msg, _ := mempool.IsRejection(err); !strings.HasSuffix(msg, mempool.TextMetadataMismatch) {
		t.Errorf("chain 2's command on chain 3: %v", err)
	}
}

func TestChainHeadTime(t *testing.T) {
	f := powtest.New(t)
	rt := startRuntime(t, f, openStore(t, f), nil)
	got := ChainHeadTime(rt, 1)()
	if want := time.UnixMicro(f.Genesis[1].CreationTime); !got.Equal(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if !ChainHeadTime(rt, 999)().IsZero() {
		t.Error("a chain with no head")
	}
}
