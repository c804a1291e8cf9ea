package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// `ledger-node check` and `ledger-node repair`: the operator's tools for a data directory the
// node refused, or that answered 503 for damaged data. Both need the node stopped (goleveldb's
// lock tells). check changes nothing; repair does what a start would do, plus what only it
// does (rebuilding goleveldb's manifest, rebuilding both indexes from the header log), then
// checks again.

// dataDirFlags parses the --data-dir of check and repair; code is non-zero (with the message
// written) when the command should stop.
func dataDirFlags(name, blurb string, args []string, stderr io.Writer) (dir string, code int, stop bool) {
	fs := flag.NewFlagSet("ledger-node "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "", "the data directory (the node must not be running)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n  ledger-node %s --data-dir DIR\n\n%s\n\nFlags:\n", name, blurb)
		fs.PrintDefaults()
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return "", 0, true
	}
	switch {
	case err != nil:
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	case *dataDir == "":
		err = fmt.Errorf("%s needs --data-dir DIR", name)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node %s: %v\n", name, err)
		return "", 2, true
	}
	return *dataDir, 0, false
}

// runCheck is `ledger-node check --data-dir DIR`: it verifies the directory read-only and
// prints one line per part. Exit 0: healthy; 1: damaged; 2: usage, or the directory cannot
// be checked (no store there, or a node holds it).
func runCheck(args []string, stdout, stderr io.Writer) int {
	dir, code, stop := dataDirFlags("check", "Verifies the data directory DIR without changing it: goleveldb's journal and every row,\n"+
		"every header-log record's checksum, the header and height indexes, the heads and the Pact states.\n"+
		"Exit status 0: healthy; 1: damaged; 2: usage error, or the directory cannot be checked.", args, stderr)
	if stop {
		return code
	}
	r, err := store.Check(dir, pactStateBlock)
	if err != nil {
		fmt.Fprintf(stderr, "ledger-node check: %v\n", err)
		return 2
	}
	printReport(stdout, dir, r)
	if r.Damaged() {
		return 1
	}
	return 0
}

// printReport writes the findings and a verdict naming what to do.
func printReport(w io.Writer, dir string, r *store.CheckReport) {
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%-9s %s: %s\n", label(f.Severity), f.Part, f.Text)
	}
	switch r.Worst() {
	case store.Fine:
		fmt.Fprintf(w, "%s is healthy\n", dir)
	case store.RepairedAtStart:
		fmt.Fprintf(w, "%s is damaged; the node repairs it when it starts (or run `ledger-node repair --data-dir %s`)\n", dir, dir)
	case store.Lost:
		fmt.Fprint(w, lostDataAdvice(dir))
	default:
		fmt.Fprintf(w, "%s is damaged; run `ledger-node repair --data-dir %s`\n", dir, dir)
	}
}

// lostDataAdvice is what check, repair and a refused start say of a directory that has lost
// data: the same words wherever the operator meets it.
func lostDataAdvice(dir string) string {
	return fmt.Sprintf("%s has lost data that no repair brings back; restore a backup (`ledger-node restore --from DIR/ID --data-dir NEW`)"+
		" or start a new data directory that syncs from peers; `ledger-node check --data-dir %s` lists what is lost\n", dir, dir)
}

func label(s store.Severity) string {
	switch s {
	case store.Fine:
		return "ok"
	case store.RepairedAtStart:
		return "DAMAGED"
	case store.Lost:
		return "LOST"
	default:
		return "DAMAGED!"
	}
}

// runRepair is `ledger-node repair --data-dir DIR`: goleveldb's manifest is rebuilt from its
// tables (RecoverFile), the store is opened in repair mode (the header log cut at its first bad
// record, both indexes rebuilt from it), heads that name lost headers and Pact states at lost
// blocks are moved to stored ones, and the directory is checked again. Every step is printed.
// Exit 0: healthy afterwards; 1: still damaged, or a step failed; 2: usage.
func runRepair(args []string, stdout, stderr io.Writer) int {
	dir, code, stop := dataDirFlags("repair", "Repairs the data directory DIR as far as it can: rebuilds goleveldb's manifest from its tables,\n"+
		"cuts headers.log at its first damaged record (saving the rest as headers.log.damaged-<time>),\n"+
		"rebuilds the header and height indexes, moves heads and Pact states off lost blocks, then checks DIR.\n"+
		"The node must be stopped. Exit status 0: healthy afterwards; 1: still damaged; 2: usage error.", args, stderr)
	if stop {
		return code
	}
	log := slog.New(slog.NewTextHandler(stdout, nil))
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ledger-node repair: %v\n", err)
		if errors.Is(err, store.ErrLocked) || errors.Is(err, store.ErrNotAStore) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stdout, "rebuilding goleveldb's manifest from its tables in %s\n", dir)
	notes, err := store.RecoverLevelDB(dir)
	for _, n := range notes {
		fmt.Fprintf(stdout, "repaired: %s\n", n)
	}
	if err != nil {
		return fail(err)
	}
	db, err := store.Open(dir, store.Options{Repair: true, VerifyWholeLog: true, Logger: log})
	if err != nil {
		return fail(err)
	}
	for _, s := range db.Recovered() {
		fmt.Fprintf(stdout, "repaired: %s\n", s)
	}
	err = repairState(db, log, stdout)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	r, err := store.Check(dir, pactStateBlock)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintln(stdout, "check after the repair:")
	printReport(stdout, dir, r)
	if r.Worst() == store.Lost {
		// The node must not start over the gap: it would serve and mine on a directory that
		// cannot execute its own chain. The mark makes it refuse, naming what was lost.
		if err := markLost(dir, r, log); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "marked %s as having lost data: the node refuses to start on it\n", dir)
	}
	if r.Damaged() {
		return 1
	}
	return 0
}

// markLost records the check's lost findings in dir (store.MarkLost).
func markLost(dir string, r *store.CheckReport, log *slog.Logger) error {
	var lost []string
	for _, f := range r.Findings {
		if f.Severity == store.Lost {
			lost = append(lost, f.Part+": "+f.Text)
		}
	}
	db, err := store.Open(dir, store.Options{Logger: log})
	if err != nil {
		return err
	}
	err = db.MarkLost(strings.Join(lost, "; "))
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// repairState moves heads and Pact states off blocks that are no longer stored.
func repairState(db *store.DB, log *slog.Logger, stdout io.Writer) error {
	name, err := db.Network()
	if err != nil || name == "" {
		return err
	}
	v, ok := ledger.VersionByName(name)
	if !ok {
		return fmt.Errorf("the store belongs to network %q, which this build does not know", name)
	}
	changed, err := actors.RepairHeads(v, db, log)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		fmt.Fprintf(stdout, "repaired: heads of chains %v moved to their highest stored blocks\n", changed)
	}
	reset, err := actors.ResetIncompletePactStates(v, db, log)
	if err != nil {
		return err
	}
	if len(reset) > 0 {
		fmt.Fprintf(stdout, "repaired: Pact states of chains %v had lost rows; emptied, the node rebuilds them by replaying from genesis\n", reset)
	}
	return actors.RepairPactStates(v, db, log)
}

// pactStateBlock lets the store's check read the block a chain's Pact state is at, and verify
// that the state's data is whole.
func pactStateBlock(space store.KeySpace) (uint64, ledger.Hash, bool, string, error) {
	h, b, ok, err := chain.StateBlock(space)
	if err != nil || !ok {
		return h, b, ok, "", err
	}
	st, err := state.Open(space)
	if err != nil {
		return h, b, ok, "", err
	}
	w, err := st.Verify()
	if err != nil || w.Whole() {
		return h, b, ok, "", err
	}
	return h, b, ok, w.String(), nil
}
