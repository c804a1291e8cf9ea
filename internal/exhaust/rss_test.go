package exhaust

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
)

func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
}

func TestRSS(t *testing.T) {
	linuxOnly(t)
	pid := os.Getpid()
	rss, err := RSS(pid)
	if err != nil || rss == 0 {
		t.Fatalf("RSS: %d, %v", rss, err)
	}
	// Touch 64 MiB: the peak must show it.
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = byte(i)
	}
	peak, err := PeakRSS(pid)
	if err != nil || peak < 64<<20 {
		t.Fatalf("peak %d MiB after touching 64 MiB, %v", peak>>20, err)
	}
	runtime.KeepAlive(b)
	if _, err := RSS(1 << 30); err == nil {
		t.Error("RSS of a process that does not exist")
	}
}

func TestResetPeakRSS(t *testing.T) {
	linuxOnly(t)
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Let the child finish exec'ing and loading sleep, so that its RSS is steady.
	time.Sleep(100 * time.Millisecond)
	if err := ResetPeakRSS(cmd.Process.Pid); err != nil {
		t.Skipf("the kernel does not let the peak be reset here: %v", err)
	}
	// RSS first: the kernel reports the peak as at least the RSS at the moment it is read, so
	// a peak read after the RSS is never below it even if the child still grows in between
	// (read the other way round, a child that grew between the reads failed this test).
	rss, err2 := RSS(cmd.Process.Pid)
	peak, err1 := PeakRSS(cmd.Process.Pid)
	if err1 != nil || err2 != nil || peak < rss || peak > rss+1<<20 {
		t.Errorf("after a reset the peak is %d bytes, the RSS %d (%v, %v)", peak, rss, err1, err2)
	}
}

// The guard kills what passes its limit, and says so.
func TestGuard(t *testing.T) {
	linuxOnly(t)
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	g := Watch(cmd.Process.Pid, 1, time.Millisecond, func() { cmd.Process.Kill() })
	defer g.Stop()
	select {
	case <-exited:
	case <-hangguard.After():
		cmd.Process.Kill()
		t.Fatal("a process over the limit was not killed")
	}
	if killed, peak := g.Killed(); !killed || peak == 0 {
		t.Errorf("Killed() = %v, %d", killed, peak)
	}

	// Under the limit, nothing happens.
	idle := exec.Command("sleep", "30")
	if err := idle.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { idle.Process.Kill(); idle.Wait() }()
	g2 := Watch(idle.Process.Pid, GiB, time.Millisecond, func() { t.Error("killed a process under its limit") })
	time.Sleep(20 * time.Millisecond)
	g2.Stop()
	if killed, peak := g2.Killed(); killed || peak == 0 {
		t.Errorf("Killed() = %v, %d", killed, peak)
	}
}

func TestPrograms(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Programs {
		if seen[p.Name] || p.Code == "" || p.Why == "" {
			t.Errorf("program %q: duplicate, or no code or reason", p.Name)
		}
		seen[p.Name] = true
		if Named(p.Name).Code != p.Code {
			t.Errorf("Named(%q)", p.Name)
		}
		if p.Want == Bounded && p.TableGas <= 0 {
			t.Errorf("%s: a bounded program needs its table gas", p.Name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Named of an unknown program did not panic")
		}
	}()
	Named("no such program")
}
