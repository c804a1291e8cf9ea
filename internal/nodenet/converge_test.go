package nodenet

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Guards against a hang, not bounds on speed: a busy machine makes the network slower, not
// wrong.
const (
	growGuard = 10 * time.Minute
	stopGuard = 2 * time.Minute
)

// Three mining nodes in a line (a ← b ← c), with a short block delay: they stay one network.
// Every node holds the same block 15 heights below each chain's lowest tip (twice the deepest
// reorg seen in these runs and in the soaks), every miner's own blocks are a fraction of its cut
// (each node adopts the others' heavier cuts rather than extending a fork of its own), no block
// had to be executed again to validate another, and every node ends at SIGTERM.
func TestMiningNodesConverge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a network of three mining nodes")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Build(root, t.TempDir())
	if err != nil {
		t.Skip(err) // no go command: nothing to run the nodes with
	}
	dir := t.TempDir()
	net := &Net{Bin: bin, Dir: dir, BlockDelay: time.Second}
	t.Cleanup(net.Close)
	a := net.Add("a", true)
	b := net.Add("b", true, a)
	c := net.Add("c", true, b)
	net.Record()
	for _, n := range []*Node{a, b, c} {
		if err := n.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if err := net.MarkStart(); err != nil {
		t.Fatal(err)
	}
	base, err := a.Cut()
	if err != nil {
		t.Fatal(err)
	}
	// Until every chain of every node's cut is 30 blocks above where a's was once all three
	// ran.
	deadline := time.Now().Add(growGuard)
	for grown := false; !grown; {
		if time.Now().After(deadline) {
			t.Fatalf("hang guard: the cuts did not grow 30 blocks per chain in %v\n%s", growGuard, a.LogTail(20))
		}
		time.Sleep(time.Second)
		grown = true
		for _, n := range []*Node{a, b, c} {
			cut, err := n.Cut()
			if err != nil {
				t.Fatal(err)
			}
			for ch, h := range cut {
				if h.Height < base[ch].Height+30 {
					grown = false
				}
			}
		}
	}
	rep, err := net.Report(15)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", rep)
	if len(rep.Disagree) > 0 {
		t.Errorf("the nodes are not one network: %d chains differ 15 heights below their lowest tip", len(rep.Disagree))
	}
	for _, n := range rep.Nodes {
		if n.Total == 0 || n.Share() > 0.8 {
			t.Errorf("%s mined %d of the %d blocks of its cut since all three ran: it is not mining with the others",
				n.Name, n.Own, n.Total)
		}
	}
	if tot := rep.Counters(); tot.Replayed > 0 || tot.Validated == 0 {
		t.Errorf("%.0f blocks executed again for %.0f validated: validating a fork must not replay it", tot.Replayed, tot.Validated)
	}

	var wg sync.WaitGroup
	for _, n := range []*Node{a, b, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if took, err := n.Stop(stopGuard); errors.Is(err, ErrStopTimeout) {
				t.Errorf("%s ignored SIGTERM for %v\n%s", n.Name, stopGuard, n.LogTail(20))
			} else {
				t.Logf("%s stopped %v after SIGTERM", n.Name, took.Round(time.Millisecond))
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		for _, n := range []string{"a", "b", "c"} {
			if log, err := os.ReadFile(filepath.Join(dir, n+".log")); err == nil {
				t.Logf("log of %s (last part):\n%s", n, tail(string(log), 4000))
			}
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
