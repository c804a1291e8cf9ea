package mining

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/actors/actorstest"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/pow/powtest"
)

var (
	alice = MinerInfo{Account: "k:aa", PublicKeys: []string{"aa"}, Predicate: "keys-all"}
	bob   = MinerInfo{Account: "k:bb", PublicKeys: []string{"bb"}, Predicate: "keys-all"}
)

func coordConfig() CoordinationConfig {
	return CoordinationConfig{Miners: []MinerInfo{alice}, Limit: 2, UpdateStreamLimit: 3,
		UpdateStreamTimeout: time.Hour, PayloadRefreshDelay: time.Hour, WorkWait: 200 * time.Millisecond}
}

func TestMinerInfoSame(t *testing.T) {
	keysInOtherOrder := MinerInfo{Account: "k:aa", PublicKeys: []string{"cc", "aa", "cc"}, Predicate: "keys-all"}
	if !keysInOtherOrder.Same(MinerInfo{Account: "k:aa", PublicKeys: []string{"aa", "cc"}, Predicate: "keys-all"}) {
		t.Fatal("the same set of keys in another order is another miner")
	}
	for _, m := range []MinerInfo{bob, {Account: "k:aa", PublicKeys: []string{"aa"}, Predicate: "keys-any"},
		{Account: "k:ab", PublicKeys: []string{"aa"}, Predicate: "keys-all"}, {Account: "k:aa", Predicate: "keys-all"}} {
		if m.Same(alice) {
			t.Fatalf("%+v is alice", m)
		}
	}
	if got, want := string(alice.MinerData()), string(ledger.MinerData("k:aa", "aa")); got != want {
		t.Fatalf("miner data %s, want %s", got, want)
	}
}

// waitPrimed waits until the coordinator has primed alice's work on every chain.
func waitPrimed(t *testing.T, c *Coordinator) {
	t.Helper()
	hangguard.Until(t, "alice's work primed on every chain", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		n := 0
		for _, w := range c.primed[0] {
			if w.kind == workReady {
				n++
			}
		}
		return n == len(c.chains)
	})
}

func TestCoordinatorWorkAndSolve(t *testing.T) {
	f := powtest.New(t)
	rt := actorstest.Start(t, f.V, f.Genesis, actorstest.OpenStore(t, f.Genesis))
	// Without Pact execution every chain's payload would be the same; the work cache is keyed
	// by payload hash, and the limit counts distinct payloads: one per chain, as with Pact.
	c := newCoordinator(rt, coordConfig())
	// Made before the priming goroutine starts: the fixture is not safe for concurrent use,
	// and the test mines with it meanwhile.
	payloads := map[ledger.ChainID]*ledger.PayloadWithOutputs{}
	for _, ch := range f.V.Chains() {
		payloads[ch] = f.Payload(byte(100 + ch))
	}
	c.build = func(i int, parent *ledger.Header) (*ledger.PayloadWithOutputs, error) {
		return payloads[parent.ChainID], nil
	}
	c.wg.Add(1)
	go c.prime()
	defer c.Stop()
	waitPrimed(t, c)

	var unauthorized *UnauthorizedError
	if _, err := c.Work(bob, nil); !errors.As(err, &unauthorized) || err.Error() != "Unauthorized Miner: k:bb" {
		t.Fatalf("bob: %v", err)
	}
	suggest := ledger.ChainID(7)
	w, err := c.Work(MinerInfo{Account: "k:aa", PublicKeys: []string{"aa", "aa"}, Predicate: "keys-all"}, &suggest)
	if err != nil {
		t.Fatal(err)
	}
	h := w.Header
	if h.ChainID != 7 || h.Nonce != 0 || h.PayloadHash != f.Payload(107).PayloadHash ||
		!pow.CanExtend(rt.View().Heads, h) || c.CachedWork() != 1 {
		t.Fatalf("work on chain %d, nonce %d, cache %d", h.ChainID, h.Nonce, c.CachedWork())
	}

	// A nonce that fails the target is refused, and the work is gone.
	bad := *h
	for pow.CheckPow(&bad) {
		bad.Nonce++
	}
	var invalid *InvalidSolvedError
	if _, err := c.Solve(&bad); !errors.As(err, &invalid) || err.Error() != "Invalid solved work: Invalid POW hash" {
		t.Fatalf("bad nonce: %v", err)
	}
	if _, err := c.Solve(h); !errors.Is(err, ErrNoAssociatedPayload) {
		t.Fatalf("after a refused solution: %v", err)
	}

	w, err = c.Work(alice, &suggest)
	if err != nil {
		t.Fatal(err)
	}
	h = w.Header
	if !pow.MineHeader(h, 1<<20) {
		t.Fatal("no nonce")
	}
	h.Hash = ledger.Hash{} // the miner sends no hash; Solve seals
	if orphan, err := c.Solve(h); err != nil || orphan {
		t.Fatalf("solution: orphan %v, %v", orphan, err)
	}
	if head := rt.View().Heads[7]; head.Hash != h.Hash || head.Height != 1 {
		t.Fatalf("chain 7's head is at height %d", head.Height)
	}
	if _, err := c.Solve(h); !errors.Is(err, ErrNoAssociatedPayload) {
		t.Fatalf("resubmission: %v", err)
	}

	// A stale solution: work on chain 3, then another block on chain 3 first.
	three := ledger.ChainID(3)
	w, err = c.Work(alice, &three)
	if err != nil || w.Header.ChainID != 3 {
		t.Fatalf("work on chain 3: %v", err)
	}
	actorstest.Insert(t, f, rt, f.Mine(rt.View().Heads, 3, 1))
	h = w.Header
	pow.MineHeader(h, 1<<20)
	if orphan, err := c.Solve(h); err != nil || !orphan {
		t.Fatalf("stale solution: orphan %v, %v", orphan, err)
	}
	if rt.View().Heads[3].Hash == h.Hash {
		t.Fatal("the orphan entered the cut")
	}

	// The limit counts the work out, and comes before the miner's check.
	for _, ch := range []ledger.ChainID{0, 1, 2} {
		if _, err := c.Work(alice, &ch); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Work(alice, nil); !errors.Is(err, ErrTooManyWorkRequests) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := c.Work(bob, nil); !errors.Is(err, ErrTooManyWorkRequests) {
		t.Fatalf("bob over the limit: %v", err)
	}
	// Pruning drops what was handed out more than 5 minutes ago.
	c.prune(time.Now().Add(4 * time.Minute))
	if c.CachedWork() != 3 {
		t.Fatalf("%d entries after pruning nothing", c.CachedWork())
	}
	c.prune(time.Now().Add(workCacheTTL + time.Second))
	if c.CachedWork() != 0 {
		t.Fatalf("%d entries after pruning", c.CachedWork())
	}
}

// With no work ready (here: never primed), a request ends after WorkWait instead of hanging.
func TestCoordinatorWorkWaitIsBounded(t *testing.T) {
	f := powtest.New(t)
	rt := actorstest.Start(t, f.V, f.Genesis, actorstest.OpenStore(t, f.Genesis))
	c := newCoordinator(rt, coordConfig())
	start := time.Now()
	answered := make(chan error, 1)
	go func() {
		_, err := c.Work(alice, nil)
		answered <- err
	}()
	if err := hangguard.Recv(t, answered, "the answer to a request for work when none is ready"); !errors.Is(err, ErrNoWork) {
		t.Fatalf("%v", err)
	}
	// A lower bound only: WorkWait's timer never fires early, however busy the machine.
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("gave up after %v, before WorkWait (200 ms)", d)
	}
}

func TestCoordinatorUpdates(t *testing.T) {
	f := powtest.New(t)
	rt := actorstest.Start(t, f.V, f.Genesis, actorstest.OpenStore(t, f.Genesis))
	c := newCoordinator(rt, coordConfig())
	salt := byte(0)
	c.build = func(i int, parent *ledger.Header) (*ledger.PayloadWithOutputs, error) {
		return f.Payload(salt), nil // a new salt stands for new transactions
	}
	c.primeAll(rt.View().Heads, false)

	u, err := c.Updates(0)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	done := make(chan struct{})
	defer close(done)
	events := make(chan string, 16)
	go func() {
		for {
			e, ok := u.Next(done)
			if !ok {
				close(events)
				return
			}
			events <- e
		}
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case e := <-events:
			if e != want {
				t.Fatalf("event %q, want %q", e, want)
			}
		case <-hangguard.After():
			t.Fatal(hangguard.Failure(fmt.Sprintf("a %q event", want)))
		}
	}
	quiet := func() {
		t.Helper()
		select {
		case e := <-events:
			t.Fatalf("unexpected event %q", e)
		case <-time.After(50 * time.Millisecond): // wallclock: nothing may come meanwhile; a slow machine only weakens the check
		}
	}
	time.Sleep(20 * time.Millisecond) // the stream has taken the ready work as its start
	c.primeAll(rt.View().Heads, true) // a refresh without new transactions: nothing
	quiet()
	salt = 1
	c.primeAll(rt.View().Heads, true)
	expect(EventRefreshedBlock)
	// A block on another chain does not concern chain 0's miners.
	actorstest.Insert(t, f, rt, f.Mine(rt.View().Heads, 5, 0))
	c.primeAll(rt.View().Heads, false)
	quiet()
	// A block on chain 0: the work goes stale, then is ready on the new head.
	actorstest.Insert(t, f, rt, f.Mine(rt.View().Heads, 0, 0))
	c.primeAll(rt.View().Heads, false)
	// Stale, then ready on the new head: two New Cuts, or one when the stream reads the state
	// after both changes.
	expect(EventNewCut)
	select {
	case e := <-events:
		if e != EventNewCut {
			t.Fatalf("event %q after the New Cut", e)
		}
	case <-time.After(50 * time.Millisecond): // wallclock: a second New Cut may come, or not
	}

	// The slots: 3 means 2 streams at once.
	second, err := c.Updates(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Updates(2); !errors.Is(err, ErrTooManyStreams) {
		t.Fatalf("third stream: %v", err)
	}
	second.Close()
	second.Close() // twice gives back one slot
	third, err := c.Updates(2)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if _, err := c.Updates(3); !errors.Is(err, ErrTooManyStreams) {
		t.Fatalf("a double Close gave back two slots: %v", err)
	}
	if _, err := c.Updates(99); err == nil {
		t.Fatal("a stream on chain 99")
	}
}
