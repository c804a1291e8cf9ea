package transport

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ledgernode/ledger-node/store/backup"
)

// fakeBackups is a BackupAPI that records its calls.
type fakeBackups struct {
	mu      sync.Mutex
	starts  []bool
	states  map[string]string
	asked   []string
	stopped bool
	running string // a job that runs: Start refuses
}

func (f *fakeBackups) Start(pact bool) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return "", errors.New("shutting down")
	}
	if f.running != "" {
		return f.running, backup.ErrRunning
	}
	f.starts = append(f.starts, pact)
	return "1700000000000001", nil
}

func (f *fakeBackups) Status(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, id)
	s, ok := f.states[id]
	return s, ok
}

func TestBackupEndpoints(t *testing.T) {
	fb := &fakeBackups{states: map[string]string{"1700000000000001": "backup-done", "7": "backup-failed"}}
	f := newFixture(t, func(c *ServiceConfig) { c.Backup = fb })

	for _, c := range []struct {
		query string
		pact  bool
	}{{"", false}, {"?backupPact", true}, {"?backupPact=true", true}, {"?backupPact=", true},
		{"?backupPact=false", false}, {"?other=1", false}} {
		r := f.do(http.MethodPost, "make-backup"+c.query, []byte("ignored")).expect(t, http.StatusOK)
		if string(r.body) != "1700000000000001" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
			t.Errorf("make-backup%s: %q %s", c.query, r.body, r.header.Get("Content-Type"))
		}
		if got := fb.starts[len(fb.starts)-1]; got != c.pact {
			t.Errorf("make-backup%s: backupPact %v, want %v", c.query, got, c.pact)
		}
	}
	n := len(fb.starts)
	if r := f.do(http.MethodPost, "make-backup?backupPact=maybe", nil).expect(t, http.StatusBadRequest); !strings.Contains(string(r.body), "backupPact") {
		t.Errorf("bad backupPact: %q", r.body)
	}
	if len(fb.starts) != n {
		t.Error("a bad request started a backup")
	}

	// While a job runs: 409, naming it, and nothing started.
	fb.running = "1700000000000009"
	if r := f.do(http.MethodPost, "make-backup", nil).expect(t, http.StatusConflict); !strings.Contains(string(r.body), "a backup is running: 1700000000000009") {
		t.Errorf("make-backup while a job runs: %q", r.body)
	}
	if len(fb.starts) != n {
		t.Error("a request while a job ran started another")
	}
	fb.running = ""

	r := f.get("check-backup/1700000000000001").expect(t, http.StatusOK)
	if string(r.body) != "backup-done" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Errorf("check-backup: %q %s", r.body, r.header.Get("Content-Type"))
	}
	if r := f.get("check-backup/7").expect(t, http.StatusOK); string(r.body) != "backup-failed" {
		t.Errorf("check-backup/7: %q", r.body)
	}
	f.get("check-backup/123").expect(t, http.StatusNotFound)
	r404 := f.get("check-backup/123")
	checkCommon(t, "check-backup 404", r404.header, r404.header.Get("X-Peer-Addr"))
	if r404.header.Get("X-Peer-Addr") == "" {
		t.Error("check-backup 404: no X-Peer-Addr")
	}

	// Ids that are not canonical decimal numbers never reach the BackupAPI.
	asked := len(fb.asked)
	for _, bad := range []string{"abc", "-1", "+7", "07", "1.5", "18446744073709551616", "99999999999999999999999",
		"%2e%2e", "..", "7%2f..", "7/data", ""} {
		if r := f.get("check-backup/" + bad); r.status != http.StatusNotFound {
			t.Errorf("check-backup/%s: %d %q", bad, r.status, r.body)
		}
	}
	if len(fb.asked) != asked {
		t.Errorf("malformed ids reached Status: %v", fb.asked[asked:])
	}
	f.get("check-backup/18446744073709551615").expect(t, http.StatusNotFound) // the largest id parses
	if fb.asked[len(fb.asked)-1] != "18446744073709551615" {
		t.Error("the largest id did not reach Status")
	}

	// Methods.
	f.get("make-backup").expect(t, http.StatusMethodNotAllowed)
	f.do(http.MethodPost, "check-backup/7", nil).expect(t, http.StatusMethodNotAllowed)
	// Only under the network's prefix: the service API has no rooted backup routes.
	f.do(http.MethodPost, "/make-backup", nil).expect(t, http.StatusNotFound)

	// A node that is stopping cannot start one.
	fb.mu.Lock()
	fb.stopped = true
	fb.mu.Unlock()
	f.do(http.MethodPost, "make-backup", nil).expect(t, http.StatusServiceUnavailable)
}

func TestBackupEndpointsAbsentWhenDisabled(t *testing.T) {
	f := newFixture(t)
	for _, r := range []response{
		f.do(http.MethodPost, "make-backup", nil), f.do(http.MethodPost, "make-backup?backupPact", nil),
		f.get("check-backup/1700000000000001"), f.get("make-backup"),
	} {
		if r.status != http.StatusNotFound {
			t.Errorf("backup API disabled: %d %q", r.status, r.body)
		}
	}
}

func TestParseIDSegment(t *testing.T) {
	for s, want := range map[string]uint64{"0": 0, "1": 1, "1700000000000001": 1700000000000001,
		"18446744073709551615": 1<<64 - 1} {
		if n, ok := parseIDSegment([]byte(s)); !ok || n != want {
			t.Errorf("%s: %d %v", s, n, ok)
		}
	}
	for _, s := range []string{"", "00", "01", "-1", "+1", "1a", " 1", "18446744073709551616", "20000000000000000000",
		"184467440737095516150"} {
		if n, ok := parseIDSegment([]byte(s)); ok {
			t.Errorf("%q parsed as %d", s, n)
		}
	}
}
