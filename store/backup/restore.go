package backup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/store"
)

// Restore makes the new data directory to from the finished backup job directory from
// (<backup directory>/<id>): it copies the backup's store files, syncs them, then opens the
// result once, which rebuilds the header index and checks that the heads are stored. to must
// not exist or be empty; on failure what Restore wrote there is removed again.
func Restore(from, to string) error {
	state, _, err := ReadStatus(from)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is not a backup: it has no status file (give <backup directory>/<backup id>)", from)
	}
	if err != nil {
		return fmt.Errorf("read backup status: %w", err)
	}
	if state != Done {
		return fmt.Errorf("backup %s is %s, not %s: only a finished backup can be restored", from, state, Done)
	}
	src := filepath.Join(from, dataDir)
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("read backup: %w", err)
	}
	created, err := prepareEmptyDir(to)
	if err != nil {
		return err
	}
	err = func() error {
		for _, e := range entries {
			if e.Name() == "LOCK" || !e.Type().IsRegular() {
				continue // goleveldb makes its lock file itself; a backup has nothing else
			}
			if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return fmt.Errorf("copy backup: %w", err)
			}
		}
		if err := store.SyncTree(to); err != nil {
			return fmt.Errorf("copy backup: %w", err)
		}
		// The copy has no header index by design, and Open says so at warning level; here that
		// is expected, not news. Damage that matters fails Open or the heads check below.
		db, err := store.Open(to, store.Options{HeaderCacheSize: -1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return fmt.Errorf("open the restored database: %w", err)
		}
		heads, err := db.Heads()
		for c, h := range heads {
			if err != nil {
				break
			}
			var ok bool
			if ok, err = db.HasHeader(h); err == nil && !ok {
				err = fmt.Errorf("%w: the head of chain %d, %s, is not in the backup", kv.ErrCorrupt, c, h)
			}
		}
		if cerr := db.Close(); cerr != nil && err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("check the restored database: %w", err)
		}
		return nil
	}()
	if err != nil {
		if created {
			os.RemoveAll(to)
		} else {
			clearDir(to)
		}
	}
	return err
}

// prepareEmptyDir makes sure dir exists and is empty, creating it (and its parents) if needed;
// created reports whether it did.
func prepareEmptyDir(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create %s: %w", dir, err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("restore into %s: %w", dir, err)
	case len(entries) > 0:
		return false, fmt.Errorf("restore into %s: the directory is not empty (restore makes a new data directory; pick another path or empty it)", dir)
	}
	return false, nil
}

// clearDir removes everything inside dir.
func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// copyFile copies the regular file src to the new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}
