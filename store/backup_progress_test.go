package store_test

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store/backup"
)

// A long backup logs its progress at the configured interval, each line with the rows and
// bytes so far, the rates, the share done and the time left; the share only grows; the job
// counters follow.
func TestBackupLogsProgressWithRateAndETA(t *testing.T) {
	f := newBackupFixture(t)
	// About 14 MB of payload rows (incompressible), so that the copy writes several 4 MiB
	// batches and reports after each; compacted, so that goleveldb's size estimates see them.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 350 {
		out := make([]byte, 40_000)
		for j := range out {
			out[j] = 'a' + byte(rng.IntN(26))
		}
		p := ledger.NewPayloadWithOutputs([]byte(`{}`), []byte(fmt.Sprint(`{"c":`, i, `}`)),
			[]ledger.TxWithOutput{{Tx: []byte(fmt.Sprint(`{"tx":`, i, `}`)), Output: []byte(`"` + string(out) + `"`)}})
		if err := f.db.PutPayload(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.db.Compact(); err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	b, err := backup.Open(f.db, backup.Config{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		ProgressEvery: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, err := b.Start(true)
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, b, id, backup.Done)

	line := regexp.MustCompile(`msg="backup in progress" id=\d+ rows=(\d+) MB=([\d.]+) rowsPerSecond=(\d+) mbPerSecond=([\d.]+) done=(\d+)% eta=(\S+)`)
	var lines, withETA int
	lastDone := -1
	for _, l := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(l, "backup in progress") {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("progress line without rows, MB, rates, done and eta:\n%s", l)
		}
		lines++
		done, _ := strconv.Atoi(m[5])
		if done < lastDone {
			t.Errorf("done went back from %d%% to %d%%:\n%s", lastDone, done, l)
		}
		lastDone = done
		if rows, _ := strconv.Atoi(m[1]); rows > 0 && done > 0 && done < 100 {
			if _, err := time.ParseDuration(m[6]); err != nil {
				t.Errorf("eta %q is not a duration: %s", m[6], l)
			}
			withETA++
		}
	}
	if lines < 3 || withETA < 2 || lastDone != 100 {
		t.Fatalf("%d progress lines, %d with rows, a share between 0 and 100%% and an eta; last at %d%%; want ≥ 3, ≥ 2, 100:\n%s",
			lines, withETA, lastDone, logs.String())
	}
	st := b.Stats()
	if st.Started != 1 || st.Done != 1 || st.Failed != 0 || st.Running || st.Rows < 350 || st.Bytes < 14_000_000 {
		t.Fatalf("job stats %+v", st)
	}
}
