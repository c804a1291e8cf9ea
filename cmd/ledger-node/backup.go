package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ledgernode/ledger-node/store/backup"
)

// runRestore is `ledger-node restore --from DIR/ID --data-dir NEW`: it makes a new data
// directory from a finished backup (backup.Restore), which a node then opens and resumes from.
// It never writes into a directory that holds anything, so it cannot overwrite a live node's
// data; the restore flags are command arguments, not node settings, so they have no YAML keys.
func runRestore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ledger-node restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the backup to restore: <backup directory>/<backup id>")
	dataDir := fs.String("data-dir", "", "the data directory to make (must not exist, or be empty)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n  ledger-node restore --from DIR/ID --data-dir NEW\n\n"+
			"Makes the data directory NEW from the finished backup DIR/ID (DIR is the node's --backup-directory,\n"+
			"ID the id make-backup returned). Start the node on it with --data-dir NEW.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	switch {
	case err != nil:
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	case *from == "" || *dataDir == "":
		err = errors.New("restore needs --from DIR/ID (the backup) and --data-dir NEW (the directory to make)")
	}
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node restore: %v\n", err)
		return 2
	}
	if err := backup.Restore(*from, *dataDir); err != nil {
		fmt.Fprintf(stderr, "ledger-node restore: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "restored backup %s into %s\n", *from, *dataDir)
	if m, err := backup.ReadManifest(*from); err == nil {
		low, high := uint64(0), uint64(0)
		for i, h := range m.Heads {
			if i == 0 || h.Height < low {
				low = h.Height
			}
			high = max(high, h.Height)
		}
		pact := "included"
		if !m.Pact {
			pact = "not included: the node rebuilds it at its first start by replaying every block"
		}
		fmt.Fprintf(stdout, "network %s, %d chains at heights %d–%d, taken %s; Pact state %s\n",
			m.Network, len(m.Heads), low, high, m.Started.Format("2006-01-02 15:04:05 UTC"), pact)
	}
	fmt.Fprintf(stdout, "start the node with --data-dir %s (and the network and block delay the backup was made with)\n", *dataDir)
	return 0
}
