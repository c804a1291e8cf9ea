package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// A mining node whose store cannot write (an injected ENOSPC on every write entry point, as a
// full disk gives) stops mining and says so once, keeps answering reads, and resumes mining by
// itself once writes succeed again.
func TestWriteFailurePausesAndResumes(t *testing.T) {
	logs := new(syncbuf.Buffer)
	n := startLoggedNode(t, nodeOptions{genesisTarget: testTarget(t), workers: 2, statusEvery: 100 * time.Millisecond}, logs,
		"--data-dir", t.TempDir(), "--miner-key", devMinerKey)
	waitCut(t, n.url, 2)
	rt, db := n.node.rt, n.node.db

	db.SetWriteFault(fmt.Errorf("injected: %w", syscall.ENOSPC))
	hangguard.Until(t, "the node noticing that writes fail", func() bool { return rt.WriteHealth().Failing })
	if err := rt.WriteHealth().Err; err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("write health error %v, want the ENOSPC", err)
	}
	// A round already under way ends; then both workers wait for writes.
	hangguard.Until(t, "both miner workers held by the failing writes", func() bool { return rt.Stats().HeldByWrites == 2 })
	hashes, height := rt.Stats().Hashes, rt.Cut().Height

	// Meanwhile every read answers 200: cut, header pages, a header by hash, payloads, local.
	cut := fetchCut(t, n.url)
	readsUntil := time.Now().Add(1200 * time.Millisecond) // wallclock: how long the reads go on, not a bound
	for reads := 0; time.Now().Before(readsUntil) || reads < 3; reads++ {
		for _, path := range []string{
			"/health-check", "/info", "/chainweb/0.0/development/cut",
			"/chainweb/0.0/development/chain/3/header?limit=5",
			fmt.Sprintf("/chainweb/0.0/development/chain/0/header/%s", cut.Entries[0].Hash),
		} {
			resp, err := http.Get(n.url + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET %s while writes fail: %d %s", path, resp.StatusCode, body)
			}
		}
		balanceAt(t, n.url, "sender00", 0) // local: a read of the Pact state
		time.Sleep(50 * time.Millisecond)
	}
	if h := rt.Stats().Hashes; h != hashes {
		t.Fatalf("the miner kept hashing while writes failed: %d more hashes", h-hashes)
	}
	if h := rt.Cut().Height; h != height {
		t.Fatalf("the cut moved from %d to %d while writes failed", height, h)
	}
	if !rt.WriteHealth().Failing {
		t.Fatal("write health recovered while the fault was still set")
	}
	if out := n.log.String(); !strings.Contains(out, "WRITES FAILING") || !strings.Contains(out, "no space left on device") {
		t.Fatalf("the status line does not say that writes fail:\n%s", out)
	}

	db.ClearWriteFault()
	start := time.Now()
	hangguard.Until(t, "mining resumed after writes succeed", func() bool { return rt.Cut().Height > height })
	t.Logf("mining resumed %v after the fault was cleared", time.Since(start).Round(time.Millisecond))
	if rt.WriteHealth().Failing {
		t.Fatal("still failing after mining resumed")
	}
	// The heads are written again: a restart would resume from a cut at least this high.
	hangguard.Until(t, "the heads written again after the recovery", func() bool {
		heads, err := db.Heads()
		if err != nil {
			return false
		}
		h, err := db.Header(heads[0])
		return err == nil && h.Height >= cut.Entries[0].Height
	})

	text := logs.String()
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "component=storage") {
			t.Log(l)
		}
	}
	if c := strings.Count(text, "cannot write to the data directory"); c != 1 {
		t.Fatalf("%d failure messages, want one:\n%s", c, text)
	}
	if c := strings.Count(text, "writes to the data directory succeed again"); c != 1 {
		t.Fatalf("%d recovery messages, want one:\n%s", c, text)
	}
	if strings.Contains(text, "mined block rejected") || strings.Contains(text, "cannot execute the chain's head") ||
		strings.Contains(text, "persist the cut's heads") {
		t.Fatalf("write failures logged per block:\n%s", text)
	}
	if lines := strings.Count(text, "\n"); lines > 50 {
		t.Fatalf("%d log lines for one write failure:\n%s", lines, text)
	}
}

// The same on a real full disk: a mining node on a small tmpfs, a file filling what is left,
// then the file removed. Skipped where mounting is not permitted (not root, or a container
// without CAP_SYS_ADMIN); TestWriteFailurePausesAndResumes always runs.
func TestFullDiskPausesAndResumes(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=64m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() { // registered first, so it runs after the node's own cleanup closed the store
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	logs := new(syncbuf.Buffer)
	n := startLoggedNode(t, nodeOptions{genesisTarget: testTarget(t), workers: 2}, logs,
		"--data-dir", filepath.Join(mnt, "data"), "--miner-key", devMinerKey)
	waitCut(t, n.url, 2)
	rt := n.node.rt

	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 256<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	hangguard.Until(t, "the node noticing the full disk", func() bool { return rt.WriteHealth().Failing })
	height := rt.Cut().Height
	for range 20 {
		for _, path := range []string{"/health-check", "/chainweb/0.0/development/cut", "/chainweb/0.0/development/chain/3/header?limit=5"} {
			resp, err := http.Get(n.url + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET %s on a full disk: %d", path, resp.StatusCode)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if h := rt.Cut().Height; h != height {
		t.Fatalf("the cut moved from %d to %d on a full disk", height, h)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	hangguard.Until(t, "20 blocks mined after space was freed", func() bool { return rt.Cut().Height > height+20 })
	t.Logf("mining resumed and made 20 blocks %v after space was freed", time.Since(freed).Round(time.Millisecond))
	text := logs.String()
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "component=storage") {
			t.Log(l)
		}
	}
	if strings.Contains(text, "mined block rejected") || strings.Count(text, "cannot write to the data directory") != 1 ||
		strings.Count(text, "writes to the data directory succeed again") != 1 {
		t.Fatalf("write failures logged per block:\n%s", text)
	}
}

// A node that cannot write takes no blocks from its peers meanwhile (it fetches none, and
// logs the failure once), and catches up by itself once writes succeed again.
func TestWriteFailurePausesSync(t *testing.T) {
	a := startMiningNode(t, t.TempDir())
	logs := new(syncbuf.Buffer)
	b := startLoggedNode(t, nodeOptions{genesisTarget: testTarget(t)}, logs,
		"--data-dir", t.TempDir(), "--mining", "off", "--peer", a.p2p)
	waitCut(t, b.url, 2)
	rt, db := b.node.rt, b.node.db

	db.SetWriteFault(fmt.Errorf("injected: %w", syscall.ENOSPC))
	hangguard.Until(t, "the node noticing that writes fail", func() bool { return rt.WriteHealth().Failing })
	// An insert already under way ends; at the peer's next cut the fetcher waits for writes.
	hangguard.Until(t, "the fetcher held by the failing writes", func() bool { return b.node.syncer.Stats().HeldByWrites })
	height, peerHeight, attempted := rt.Cut().Height, a.node.rt.Cut().Height, b.node.syncer.Stats().Attempted
	// Until the peer has mined a few blocks (announced as heavier cuts): the reads answer.
	hangguard.Until(t, "three blocks mined by the peer", func() bool {
		fetchCut(t, b.url) // 200, or the test fails
		return a.node.rt.Cut().Height >= peerHeight+3
	})
	if h := rt.Cut().Height; h != height {
		t.Fatalf("the cut moved from %d to %d while writes failed", height, h)
	}
	if h := a.node.rt.Cut().Height; h <= peerHeight {
		t.Fatalf("the peer did not mine meanwhile (height %d)", h)
	}
	// Sync stopped trying: it handed no block to insert meanwhile, while the peer announced
	// heavier cuts every 250 ms. (Other writers may still fail once: an executor applying a
	// block inserted before the fault, the heads writer.)
	if n := b.node.syncer.Stats().Attempted; n != attempted {
		t.Fatalf("sync tried to insert %d blocks while writes failed", n-attempted)
	}

	db.ClearWriteFault()
	target := a.node.rt.Cut().Height
	hangguard.Until(t, "the catch-up after writes succeed", func() bool { return rt.Cut().Height >= target })
	text := logs.String()
	if c := strings.Count(text, "cannot write to the data directory"); c != 1 ||
		strings.Contains(text, "sync from peer stopped") || strings.Contains(text, "invalid block") {
		t.Fatalf("%d failure messages, want one, and no sync failures:\n%s", c, text)
	}
}
