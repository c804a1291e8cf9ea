// Command ledger-node runs a node of the braided multi-chain ledger: it stores and serves block
// data over the service API, and imports header chains from files.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/ledgernode/ledger-node/store"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code (0 ok, 1 runtime failure, 2 usage).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "import-headers":
			return runImport(args[1:], stdout, stderr)
		case "restore":
			return runRestore(args[1:], stdout, stderr)
		case "check":
			return runCheck(args[1:], stdout, stderr)
		case "repair":
			return runRepair(args[1:], stdout, stderr)
		case "version", "--version", "-version":
			fmt.Fprintln(stdout, versionLine())
			return 0
		}
	}
	cfg, printAs, err := loadConfig(args, stderr)
	switch {
	case errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errVersion):
		fmt.Fprintln(stdout, versionLine())
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "ledger-node: %v\n", err)
		return 2
	case printAs != "":
		stdout.Write(printConfig(cfg, printAs))
		return 0
	}
	logTo, closeLog, err := openLogHandle(cfg.LogHandle, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node: %v\n", err)
		return 1
	}
	defer closeLog()
	log := newLogger(cfg, logTo)
	if cfg.ResetChainDatabases {
		// chainweb-node's resetChainDatabases: the node starts afresh on the same settings.
		log.Warn("resetChainDatabases: deleting the data directory", "dir", cfg.DataDir)
		if err := resetDataDir(cfg.DataDir); err != nil {
			fmt.Fprintf(stderr, "ledger-node: reset the data directory: %v\n", err)
			return 1
		}
	}
	tuneGC(cfg.Runtime, log)
	n, err := openNode(cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node: %v\n", err)
		if errors.Is(err, store.ErrDataLost) {
			fmt.Fprint(stderr, lostDataAdvice(cfg.DataDir))
		} else if errors.Is(err, store.ErrCorrupt) {
			fmt.Fprintf(stderr, "ledger-node: the data directory is damaged beyond what a start repairs: stop here, and run\n"+
				"  ledger-node check --data-dir %s    (what is damaged)\n  ledger-node repair --data-dir %s   (repair it)\n", cfg.DataDir, cfg.DataDir)
		}
		return 1
	}
	defer n.close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := n.serve(ctx, stdout); err != nil {
		fmt.Fprintf(stderr, "ledger-node: %v\n", err)
		return 1
	}
	return 0
}

// resetDataDir deletes a data directory for resetChainDatabases. A mistyped --data-dir must not
// cost an operator a home directory: only a directory that is missing, empty, or holds this
// node's header log (and so is a data directory of ours) is deleted.
func resetDataDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) == 0:
		return os.Remove(dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "headers.log")); err != nil {
		return fmt.Errorf("refusing to delete %s: it does not look like a ledger-node data directory (no headers.log); "+
			"check --data-dir, or delete it yourself", dir)
	}
	return os.RemoveAll(dir)
}
