// Command ledger-node runs a node of the braided multi-chain ledger: it stores and serves block
// data over the service API, and imports header chains from files.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

func main() {
	isProcess = true
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// isProcess is set by main: run is the process, not a test calling it, so the node's logger
// may become slog's default, which tests share.
var isProcess bool

// stopSignals stop a running node gracefully: SIGINT, SIGTERM, and SIGHUP, which chainweb-node
// treats as a fatal signal too (it logs it and stops). Each is logged. A SIGHUP the node was
// started ignoring (nohup) stays ignored: Go would otherwise take it up again.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
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
		case "reindex-transfers":
			return runReindexTransfers(args[1:], stdout, stderr)
		case "version":
			fmt.Fprintln(stdout, versionLine())
			return 0
		}
	}
	// Warnings wait for the logger when the node runs: with --log-format json they are JSON
	// lines too. Otherwise they go to stderr as they come.
	// The flag package's complaints and usage wait too: a JSON refusal has no usage text.
	var warnings []string
	var usage bytes.Buffer
	cfg, printAs, _, err := loadConfigWarn(args, &usage, false, func(msg string) { warnings = append(warnings, msg) })
	flushWarnings := func() {
		for _, w := range warnings {
			fmt.Fprintf(stderr, "ledger-node: warning: %s\n", w)
		}
	}
	switch {
	case errors.Is(err, errHelp):
		stderr.Write(usage.Bytes())
		return 0
	case errors.Is(err, errVersion):
		fmt.Fprintln(stdout, versionLine())
		return 0
	case errors.Is(err, errInfo):
		fmt.Fprint(stdout, infoText())
		return 0
	case errors.Is(err, errLongInfo):
		fmt.Fprint(stdout, longInfoText())
		return 0
	case errors.Is(err, errLicense):
		fmt.Fprint(stdout, licenseText())
		return 0
	case err != nil:
		if strings.EqualFold(cfg.LogFormat, "json") {
			// The configuration asked for JSON as far as it was read: the refusal is JSON too.
			cfg.LogLevel, cfg.LogFormat = "info", "json" // not finished: any case was asked for
			log := newLogger(cfg, stderr)
			for _, w := range warnings {
				log.Warn(w)
			}
			log.Error("configuration refused: "+err.Error(), "exitCode", 2)
			return 2
		}
		flushWarnings()
		stderr.Write(usage.Bytes())
		fmt.Fprintf(stderr, "ledger-node: %v\n", err)
		return 2
	case printAs != "":
		flushWarnings()
		stdout.Write(printConfig(cfg, printAs))
		return 0
	}
	logTo, closeLog, err := openLogHandle(cfg.LogHandle, stdout, stderr)
	if err != nil {
		flushWarnings()
		fmt.Fprintf(stderr, "ledger-node: %v\n", err)
		return 1
	}
	defer closeLog()
	log := newLogger(cfg, logTo)
	if isProcess {
		// What logs through slog's default (a part opened without a logger) or the standard
		// log package is a record of the node's log too, not a plain line.
		slog.SetDefault(log)
	}
	// fail logs why the node stops, and the last line; when the log goes to a file, the
	// reason is said on stderr too, where whoever started the node looks.
	fail := func(err error, advice ...string) int {
		log.Error(err.Error())
		for _, a := range advice {
			log.Error(a)
		}
		if strings.HasPrefix(cfg.LogHandle, "file:") {
			fmt.Fprintf(stderr, "ledger-node: %v\n", err)
			for _, a := range advice {
				fmt.Fprintf(stderr, "ledger-node: %s\n", a)
			}
		}
		log.Info("shutdown complete", "exitCode", 1)
		return 1
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	log.Info("ledger-node starting", "version", packageVersion, "commit", readBuild().commit, "go", runtime.Version(),
		"network", cfg.Network, "dataDir", cfg.DataDir, "pid", os.Getpid())
	if cfg.ResetChainDatabases {
		// chainweb-node's resetChainDatabases: the node starts afresh on the same settings.
		log.Warn("resetChainDatabases: deleting the data directory", "dir", cfg.DataDir)
		if err := resetDataDir(cfg.DataDir); err != nil {
			return fail(fmt.Errorf("reset the data directory: %w", err))
		}
	}
	tuneGC(cfg.Runtime, log)
	if cfg.OnlySyncPact {
		if err := syncPactOnly(cfg, log); err != nil {
			return fail(err, openAdvice(cfg, err)...)
		}
		log.Info("shutdown complete", "exitCode", 0)
		return 0
	}
	n, err := openNode(cfg, log)
	if err != nil {
		return fail(err, openAdvice(cfg, err)...)
	}
	// actors.Start logged the cut it resumes at ("resuming at cut height N").
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals()...)
	sigDone := make(chan struct{})
	go func() {
		defer close(sigDone)
		shutting := false
		for s := range sigs {
			if shutting {
				log.Info("signal received: already shutting down", "signal", signalName(s))
				continue
			}
			log.Info("signal received: shutting down", "signal", signalName(s))
			shutting = true
			cancel()
		}
	}()
	serr := n.serve(ctx, stdout)
	logHeadsWritten(n, log)
	if err := n.close(); err != nil && serr == nil {
		serr = fmt.Errorf("close the database: %w", err)
	}
	signal.Stop(sigs)
	close(sigs)
	<-sigDone
	if serr != nil {
		return fail(serr)
	}
	log.Info("shutdown complete", "exitCode", 0)
	return 0
}

// signalName is a signal as an operator writes it (SIGHUP), not Go's text ("hangup").
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// openAdvice is what to do about a data directory the node could not open, line by line.
func openAdvice(cfg Config, err error) []string {
	switch {
	case errors.Is(err, store.ErrDataLost):
		return []string{strings.TrimSpace(lostDataAdvice(cfg.DataDir))}
	case errors.Is(err, kv.ErrCorrupt):
		return []string{"the data directory is damaged beyond what a start repairs: stop here, and run",
			fmt.Sprintf("  ledger-node check --data-dir %s    (what is damaged)", cfg.DataDir),
			fmt.Sprintf("  ledger-node repair --data-dir %s   (repair it)", cfg.DataDir)}
	}
	return nil
}

// logHeadsWritten says, after the runtime stopped, whether the heads of the last cut are the
// stored ones the next start resumes from.
func logHeadsWritten(n *node, log *slog.Logger) {
	view := n.rt.View()
	stored, err := n.db.Heads()
	if err != nil {
		log.Error("heads not readable after shutdown", "err", err)
		return
	}
	for c, h := range view.Heads {
		if h != nil && stored[h.ChainID] != h.Hash {
			log.Error("heads not written at shutdown: the next start resumes from older heads", "chain", c)
			return
		}
	}
	log.Info("heads written", "cutHeight", view.Cut.Height)
}

// syncPactOnly is chainweb-node's onlySyncPact: the Pact state of every chain is brought up
// to the stored cut (actors.Start replays what it lacks), then the node stops without serving,
// mining or syncing from peers.
func syncPactOnly(cfg Config, log *slog.Logger) error {
	v := nodeVersion(cfg, nil)
	budget := newDescriptorBudget(&cfg, connguard.DescriptorLimit(), false)
	n, err := initStore(cfg, v, log, budget.levelDB)
	if err != nil {
		return err
	}
	defer n.db.Close()
	if n.runner == nil {
		log.Info(fmt.Sprintf("onlySyncPact: this node keeps no Pact state on %s; nothing to synchronize", v.Name))
		return nil
	}
	log.Info("onlySyncPact: synchronizing the Pact state to the stored cut")
	pool := mempool.DefaultConfig()
	pool.BlockGasLimit = cfg.Execution.BlockGasLimit
	rt, err := actors.Start(actors.Config{Version: v, Store: n.db, Genesis: n.genesis,
		Updates: actors.NewUpdatesHub(1), Logger: log,
		Execution: &actors.ExecutionConfig{Runner: n.runner, MinerData: cfg.Mining.minerData(),
			Mempool: actors.MempoolConfig{Logger: log, Pool: &pool}, MaxBlockOutputBytes: cfg.Execution.MaxBlockOutputBytes}})
	if err != nil {
		return fmt.Errorf("synchronize the Pact state: %w", err)
	}
	cut := rt.Cut()
	rt.Stop()
	log.Info(fmt.Sprintf("onlySyncPact: the Pact state is at the stored cut, height %d; exiting", cut.Height),
		"cutHeight", cut.Height)
	return nil
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
