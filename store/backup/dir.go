package backup

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/store"
)

// A backup job lives in its own directory, <backup directory>/<id>:
//
//	status       the job's state, one line (InProgress, Done, Failed); a failed
//	             job's reason follows on the next line. Written atomically (temporary file and
//	             rename), so a reader never sees half of it.
//	backup.json  what the backup holds (Manifest); written before status says done
//	data/        the store directory (store.Snapshot.WriteBackup): goleveldb's files and
//	             headers.log

// The states of a backup job, as check-backup reports them.
const (
	InProgress = "backup-in-progress"
	Done       = "backup-done"
	Failed     = "backup-failed"
)

// Names inside a job directory.
const (
	statusFile   = "status"
	manifestFile = "backup.json"
	dataDir      = "data"
)

// Manifest is backup.json: what a finished backup holds.
type Manifest struct {
	ID      string             `json:"id"`
	Network string             `json:"network"`
	Pact    bool               `json:"pact"` // the Pact state is included
	Started time.Time          `json:"started"`
	Seconds float64            `json:"seconds"` // time spent writing the copy
	Heads   []store.BackupHead `json:"heads"`
	store.BackupStats
}

// ReadManifest reads backup.json of the backup job directory dir.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return nil, fmt.Errorf("store: backup manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("store: backup manifest %s: %w", dir, err)
	}
	return &m, nil
}

// ReadStatus reads the state of the backup job directory dir and, for a failed job, the
// reason it recorded. A status file that is missing reports fs.ErrNotExist.
func ReadStatus(dir string) (state, reason string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, statusFile))
	if err != nil {
		return "", "", err
	}
	state, reason, _ = strings.Cut(strings.TrimRight(string(b), "\n"), "\n")
	switch state {
	case InProgress, Done, Failed:
		return state, reason, nil
	}
	return "", "", fmt.Errorf("%w: backup status file in %s says %q", kv.ErrCorrupt, dir, state)
}

// writeStatus replaces the status file of job directory dir, atomically and durably.
func writeStatus(dir, state, reason string) error {
	text := state + "\n"
	if reason != "" {
		// One line: the file's format is the state line and the reason line.
		text += strings.ReplaceAll(reason, "\n", " ") + "\n"
	}
	return writeFileAtomic(dir, statusFile, []byte(text))
}

// writeFileAtomic writes name in dir through a synced temporary file renamed over it, then
// syncs dir, so that after a crash the file holds either the old or the new bytes.
func writeFileAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(0o644) // CreateTemp makes it private; the operator's tools read these files
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory, so that the entries made in it (a rename) survive a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}
