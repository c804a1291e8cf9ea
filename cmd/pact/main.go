// Command pact is the Pact 5.4 interpreter's command line: an interactive
// REPL, a script runner for .repl and .pact files, the request tools and
// the local HTTP server of spec §1.1 and §2 (server.go).
//
// One mode per invocation, as upstream's options are mutually exclusive:
//
//	pact                          interactive REPL
//	pact [-r] [-t] [-c] FILE      run FILE
//	pact -b | --builtins          list the natives
//	pact -v | --version           print "pact version 5.4"
//	pact -h | --help              print the usage text
//	pact -a | --apireq REQ_YAML [-l]             build and sign a command
//	pact -u | --unsigned REQ_YAML                build an unsigned command
//	pact -g | --genkey                           print a fresh key pair
//	pact add-sig KEYFILE... [-l]                 sign SigData (standard input)
//	pact combine-sigs SIGFILE... [-l]            merge SigData files
//	pact sign KEYFILE...                         sign a hash (standard input)
//	pact -s | --server | --serve CONFIG          run the HTTP server
//
// # Interactive REPL
//
// With no arguments pact prompts with "pact> ", reads lines until the
// parentheses, brackets, braces and string literals of the input balance
// (prompting "....> " meanwhile), evaluates the input as a REPL program and
// prints every non-unit result. Errors are printed as Pact 5's REPL prints
// them (repl.Runner.RenderError: file:line:col: message with a 0-based
// column, the source lines and carets, the call stack) and the loop goes
// on. Ctrl-D prints "goodbye" and quits.
//
// On a terminal the lines are edited (liner): arrow keys, Emacs keys,
// Ctrl-R to search the history, Tab to complete natives, special forms,
// module names and module members (coin.transfer, ns.mod.fn), and file
// names inside a string (for load); Tab twice lists them. Up recalls
// a form typed earlier (one that starts with what is typed so far), a
// multi-line one on one line. Ctrl-C drops the
// form being typed; during an evaluation it stops the evaluation ("Execution
// interrupted: Ctrl-C") and the prompt comes back with the session intact (a
// second Ctrl-C before the evaluation stops ends pact, exit 130). The
// history is kept in .pc-history in the working directory (P5's file,
// newest entry first), or in the file PACT_HISTORY names; with
// PACT_HISTORY set empty it is not written.
//
// When standard input is not a terminal (a pipe, a file) there are no
// prompts and no "goodbye": each result is printed, and the first error is
// printed on standard error with "Aborting execution" and "Load failed",
// and ends pact with status 1 (P4's pipe mode), as does a failed expect at
// the end of the input.
//
// # Running a file
//
// A FILE whose name does not end in .pact is a REPL script: the REPL
// natives (expect, begin-tx, env-data, ...) are available. A .pact file is
// executed (Pact 5 behaviour) without them. On success pact prints "Load
// successful" on standard output and exits 0. Otherwise it prints, on
// standard error, the error that stopped the script as Pact 5 does (as the
// REPL prints it, then an empty line), or, when none did, each failed
// expect, expect-failure or expect-that as file:line:col: message; then
// "Load failed", and exits 1.
//
//	-r, --findscript  with a .pact FILE: run <FILE without .pact>.repl if it
//	                  exists, else the only .repl file in FILE's directory if
//	                  there is exactly one, else FILE itself
//	-t, --trace       print each top-level result as file:line:col:Trace: value
//	                  and prefix print output with file:line:col:Print: (the
//	                  position of the print call)
//	-c, --coverage    write an LCOV report to <dir of FILE>/coverage/lcov.info:
//	                  per file FN/FNDA per function, BRDA per if and cond
//	                  branch, DA per line of code, each 0 when it never ran
//
// # Other modes
//
// -b prints every native name in double quotes, one per line: the core
// natives in P5's order, then the REPL natives. -v prints the version.
//
// # Request tools
//
// -a reads a request YAML (spec §1.2; codeFile and dataFile are relative
// to its directory), signs the command with its keyPairs and prints one
// line of JSON: {"cmds":[CMD]} for /send, or with -l the bare CMD for
// /local. -l, like every modifier, may come anywhere on the line (pact -l
// -a REQ, pact -a REQ -l, pact -l combine-sigs A B); as upstream's, it
// modifies -a, add-sig and combine-sigs only, so pact -l FILE is a usage
// error that says to run pact -a FILE -l. -u reads a request YAML with signers instead of keyPairs and
// prints the unsigned command as SigData in one line of JSON (hash, sigs
// with a null per signer, cmd): the interface says JSON where P5 prints
// YAML, and JSON is YAML, so add-sig and combine-sigs read it unchanged. A
// request YAML that cannot be read or built, or that has a key the request
// does not define, prints the reason and the valid fields.
//
// add-sig reads SigData on standard input and signs its hash with each key
// file (YAML with public and secret, as -g prints). While signatures are
// missing it checks those present and prints the SigData; once all are
// present it prints the verified command as -a does (-l for /local).
// combine-sigs merges the signatures of SigData files for one command and
// prints the same way. A command or signature that does not verify prints
// "Command verification failed!" and the reason on standard error (exit
// 1). sign reads an unpadded base64url hash on standard input and prints a
// YAML map from each key's public key to its signature.
//
// # Exit status
//
// 0 on success, 1 when a file or piped REPL input fails (or the REPL
// cannot read or write), a request tool fails or the server cannot start, 2 on a usage
// error (unknown option, two modes at once, a missing or extra argument,
// a server configuration that does not decode) and for the modes not
// implemented yet.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/repl"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// invocation is a parsed command line, what a mode's run function gets.
type invocation struct {
	mode *mode
	// arg is the argument of the option that selected the mode (-a
	// REQ_YAML, -u REQ_YAML, -s CONFIG).
	arg string
	// args are the positional arguments (FILE, KEYFILE..., SIGFILE...).
	args []string
	// flags are the modifier options given, by long name (findscript,
	// trace, coverage, local).
	flags map[string]bool

	stdin          io.Reader
	stdout, stderr io.Writer
}

// A mode is one of the mutually exclusive things pact does.
type mode struct {
	name string
	// synopsis and help are the mode's lines in the usage text.
	synopsis, help string
	// option selects the mode (nil for the modes chosen by position:
	// the REPL, FILE and the subcommands).
	option *option
	// subcommand is the first argument that selects the mode, if any.
	subcommand string
	// minArgs and maxArgs bound the positional arguments (maxArgs < 0:
	// any number).
	minArgs, maxArgs int
	argName          string
	// flags are the modifier options the mode accepts.
	flags []string
	// run runs the mode and returns the exit code; nil means the mode is
	// recognised but not implemented yet (exit 2).
	run func(*invocation) int
}

// An option is a command-line option: it selects a mode or, when modifier
// is set, modifies one.
type option struct {
	short    byte     // 0 when there is no short form
	long     []string // long forms, the first is the canonical name
	arg      string   // the argument's name, "" for a flag
	modifier bool
	help     string
}

func (o *option) name() string { return o.long[0] }

func (o *option) String() string {
	var names []string
	if o.short != 0 {
		names = append(names, "-"+string(o.short))
	}
	for _, l := range o.long {
		names = append(names, "--"+l)
	}
	s := strings.Join(names, ", ")
	if o.arg != "" {
		s += " " + o.arg
	}
	return s
}

// The modifier options.
var (
	optFindScript = &option{short: 'r', long: []string{"findscript"}, modifier: true,
		help: "with a .pact FILE: run NAME.repl beside it, else the directory's only .repl, else FILE"}
	optTrace = &option{short: 't', long: []string{"trace"}, modifier: true,
		help: "print each top-level result as FILE:LINE:COL:Trace: VALUE; prefix print with FILE:LINE:COL:Print:"}
	optCoverage = &option{short: 'c', long: []string{"coverage"}, modifier: true,
		help: "write an LCOV coverage report to <dir of FILE>/coverage/lcov.info"}
	optLocal = &option{short: 'l', long: []string{"local"}, modifier: true,
		help: "with -a, add-sig or combine-sigs: format for the /local endpoint"}
	optHelp = &option{short: 'h', long: []string{"help"}, help: "print this text"}
)

// modes is the table of modes, in the order the usage text lists them. To
// add a mode, add a row: parsing, the exclusivity check, the usage text and
// error messages all come from the table. A row without run is recognised
// but not implemented yet; implementing it is setting run.
var modes = []*mode{
	{name: "repl", synopsis: "pact", help: `interactive REPL (prompt "pact> ", Ctrl-D quits; history in .pc-history)`, run: runInteractive},
	{name: "load", synopsis: "pact [-r] [-t] [-c] FILE",
		help:    "run FILE: a .pact file is executed; any other file is a REPL script with the REPL natives",
		minArgs: 1, maxArgs: 1, argName: "FILE",
		flags: []string{"findscript", "trace", "coverage"}, run: runLoad},
	{name: "builtins", option: &option{short: 'b', long: []string{"builtins"}},
		help: "list every native name in double quotes, one per line", run: runBuiltins},
	{name: "version", option: &option{short: 'v', long: []string{"version"}},
		help: `print "pact version ` + repl.Version + `"`, run: runVersion},
	{name: "apireq", option: &option{short: 'a', long: []string{"apireq"}, arg: "REQ_YAML"},
		synopsis: "pact -a, --apireq REQ_YAML [-l]",
		help:     "print the signed command of REQ_YAML as JSON for /send (-l: for /local)",
		flags:    []string{"local"}, run: runAPIReq},
	{name: "unsigned", option: &option{short: 'u', long: []string{"unsigned"}, arg: "REQ_YAML"},
		help: "print the unsigned command REQ_YAML describes, as SigData JSON (add-sig and combine-sigs read it)", run: runUnsigned},
	{name: "genkey", option: &option{short: 'g', long: []string{"genkey"}},
		help: "print a fresh Ed25519 key pair (public:, secret:)", run: runGenKey},
	{name: "add-sig", subcommand: "add-sig", synopsis: "pact add-sig KEYFILE... [-l]",
		help:    "sign the SigData YAML on standard input with each key file",
		minArgs: 1, maxArgs: -1, argName: "KEYFILE", flags: []string{"local"}, run: runAddSig},
	{name: "combine-sigs", subcommand: "combine-sigs", synopsis: "pact combine-sigs SIGFILE... [-l]",
		help:    "merge the signatures of SigData files",
		minArgs: 1, maxArgs: -1, argName: "SIGFILE", flags: []string{"local"}, run: runCombineSigs},
	{name: "sign", subcommand: "sign", synopsis: "pact sign KEYFILE...",
		help:    "sign the base64url hash on standard input with each key file",
		minArgs: 1, maxArgs: -1, argName: "KEYFILE", run: runSign},
	{name: "server", option: &option{short: 's', long: []string{"server", "serve"}, arg: "CONFIG"},
		help: "run the Pact HTTP server on 127.0.0.1 configured by CONFIG (YAML), until SIGINT or SIGTERM",
		run:  runServer},
}

var modifiers = []*option{optFindScript, optTrace, optCoverage, optLocal}

func modeNamed(name string) *mode {
	for _, m := range modes {
		if m.name == name {
			return m
		}
	}
	panic("pact: no mode " + name)
}

// usageError is a command line we cannot run.
type usageError string

func (e usageError) Error() string { return string(e) }

// errHelp is returned by parse for -h and --help.
var errHelp = usageError("help requested")

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inv, err := parse(args)
	if err == errHelp {
		usage(stdout)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "pact: %v\n", err)
		fmt.Fprintln(stderr, "Run 'pact --help' for usage.")
		return exitUsage
	}
	inv.stdin, inv.stdout, inv.stderr = stdin, stdout, stderr
	if inv.mode.run == nil {
		fmt.Fprintf(stderr, "pact: %s: not implemented yet\n", inv.mode.title())
		return exitUsage
	}
	return inv.mode.run(inv)
}

// parse parses the command line: at most one mode option, the modifiers
// that mode accepts and its positional arguments. Short flags may be
// bundled (-tc); an option's argument may follow it (-a FILE, --apireq
// FILE) or be attached (-aFILE, --apireq=FILE). "--" ends the options.
func parse(args []string) (*invocation, error) {
	inv := &invocation{flags: map[string]bool{}}
	var given []*option // the modifiers given, for error messages
	var optMode *mode
	var optName string // the mode option as written

	rest := args
	// subcommand selects the mode of a subcommand named by the first
	// positional argument: modifiers may come before it (pact -l
	// combine-sigs A B) as after it.
	subcommand := func(a string) bool {
		if optMode != nil || len(inv.args) > 0 {
			return false
		}
		for _, m := range modes {
			if m.subcommand != "" && a == m.subcommand {
				optMode, optName = m, m.subcommand
				return true
			}
		}
		return false
	}

	selectMode := func(m *mode, written string) error {
		if optMode != nil {
			return usageError(fmt.Sprintf("%s and %s cannot be used together (one mode per invocation)", optName, written))
		}
		optMode, optName = m, written
		return nil
	}
	// take applies option o written as written, with its argument taken
	// from attached (if non-nil) or the next argument.
	take := func(o *option, written string, attached *string) error {
		if o == optHelp {
			return errHelp
		}
		var val string
		switch {
		case o.arg == "" && attached != nil:
			return usageError(fmt.Sprintf("option %s takes no argument", written))
		case o.arg != "" && attached != nil:
			val = *attached
		case o.arg != "":
			if len(rest) == 0 {
				return usageError(fmt.Sprintf("option %s needs an argument %s", written, o.arg))
			}
			val, rest = rest[0], rest[1:]
		}
		if o.modifier {
			inv.flags[o.name()] = true
			given = append(given, o)
			return nil
		}
		if err := selectMode(modeOf(o), written); err != nil {
			return err
		}
		inv.arg = val
		return nil
	}

	for len(rest) > 0 {
		a := rest[0]
		rest = rest[1:]
		switch {
		case a == "--":
			inv.args = append(inv.args, rest...)
			rest = nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o := longOption(name)
			if o == nil {
				return nil, usageError(fmt.Sprintf("unknown option --%s", name))
			}
			var attached *string
			if hasVal {
				attached = &val
			}
			if err := take(o, "--"+name, attached); err != nil {
				return nil, err
			}
		case len(a) > 1 && a[0] == '-':
			for i := 1; i < len(a); i++ {
				o := shortOption(a[i])
				if o == nil {
					return nil, usageError(fmt.Sprintf("unknown option -%s", string(a[i])))
				}
				var attached *string
				if o.arg != "" && i+1 < len(a) {
					s := a[i+1:]
					attached = &s
				}
				if err := take(o, "-"+string(a[i]), attached); err != nil {
					return nil, err
				}
				if attached != nil {
					break
				}
			}
		default:
			if !subcommand(a) {
				inv.args = append(inv.args, a)
			}
		}
	}

	m := optMode
	if m == nil {
		if len(inv.args) == 0 {
			m = modeNamed("repl")
		} else {
			m = modeNamed("load")
		}
	}
	inv.mode = m
	for _, o := range given {
		ok := false
		for _, f := range m.flags {
			ok = ok || f == o.name()
		}
		if !ok {
			what := "without FILE"
			switch {
			case m.name == "repl" && !slices.Contains(modeNamed("load").flags, o.name()):
				what = "on its own"
			case optName != "":
				what = "with " + optName
			case m.name == "load":
				what = "with FILE"
			}
			msg := fmt.Sprintf("option %s cannot be used %s: it modifies %s", o, what, modifiedBy(o))
			if o == optLocal && m.name == "load" {
				// Upstream's -l modifies -a only; a FILE given with it is
				// most likely the request YAML.
				msg += fmt.Sprintf("; to format a request for /local: pact -a %s -l", inv.args[0])
			}
			return nil, usageError(msg)
		}
	}
	switch {
	case len(inv.args) < m.minArgs:
		return nil, usageError(fmt.Sprintf("%s needs %s", m.displayName(optName), m.argName))
	case m.maxArgs >= 0 && len(inv.args) > m.maxArgs:
		if m.maxArgs == 0 {
			return nil, usageError(fmt.Sprintf("%s takes no file argument, got %q", m.displayName(optName), inv.args[0]))
		}
		return nil, usageError(fmt.Sprintf("too many arguments: %s", strings.Join(inv.args, " ")))
	}
	return inv, nil
}

// modifiedBy lists the modes a modifier applies to, for error messages.
func modifiedBy(o *option) string {
	var names []string
	for _, m := range modes {
		if !slices.Contains(m.flags, o.name()) {
			continue
		}
		switch {
		case m.option != nil:
			names = append(names, "-"+string(m.option.short))
		case m.subcommand != "":
			names = append(names, m.subcommand)
		default:
			names = append(names, m.argName)
		}
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// title names the mode in messages: its option's forms or its subcommand.
func (m *mode) title() string {
	if m.option != nil {
		t := ""
		if m.option.short != 0 {
			t = "-" + string(m.option.short) + "/"
		}
		return t + "--" + strings.Join(m.option.long, "/--")
	}
	if m.subcommand != "" {
		return m.subcommand
	}
	return "pact " + m.name
}

func (m *mode) displayName(written string) string {
	if written != "" {
		return written
	}
	return "pact " + m.name
}

func modeOf(o *option) *mode {
	for _, m := range modes {
		if m.option == o {
			return m
		}
	}
	panic("pact: option without a mode: " + o.name())
}

func allOptions() []*option {
	out := []*option{optHelp}
	for _, m := range modes {
		if m.option != nil {
			out = append(out, m.option)
		}
	}
	return append(out, modifiers...)
}

func longOption(name string) *option {
	for _, o := range allOptions() {
		for _, l := range o.long {
			if l == name {
				return o
			}
		}
	}
	return nil
}

func shortOption(c byte) *option {
	for _, o := range allOptions() {
		if o.short == c {
			return o
		}
	}
	return nil
}

// usage writes the help text, built from the mode table.
func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("pact: the Pact " + repl.Version + " smart-contract language interpreter\n\n")
	b.WriteString("Usage (one mode per invocation):\n")
	for _, m := range modes {
		syn := m.synopsis
		if syn == "" {
			syn = "pact " + m.option.String()
		}
		help := m.help
		if m.run == nil {
			help += " [not implemented yet]"
		}
		fmt.Fprintf(&b, "  %s\n      %s\n", syn, help)
	}
	fmt.Fprintf(&b, "  pact %s\n      %s\n", optHelp, optHelp.help)
	b.WriteString("\nOptions for FILE and the request tools:\n")
	for _, o := range modifiers {
		fmt.Fprintf(&b, "  %s\n      %s\n", o, o.help)
	}
	b.WriteString("\nA FILE is run as a REPL script unless its name ends in .pact. Prints \"Load successful\"\n" +
		"on success; otherwise the error (as Pact 5 prints it) or the failed tests, then\n" +
		"\"Load failed\", on standard error.\n" +
		"\n" + serverConfigHelp + "\n" +
		"\nExit status: 0 success, 1 load, request-tool or server failure, 2 usage error (a server\n" +
		"configuration that does not decode included).\n")
	io.WriteString(w, b.String())
}

// runBuiltins prints every native name, quoted, one per line: the core
// natives in P5's order, then the REPL natives.
func runBuiltins(inv *invocation) int {
	var b strings.Builder
	for _, names := range [][]string{eval.CoreNativeNames, repl.ReplNativeNames} {
		for _, n := range names {
			b.WriteString(`"` + n + "\"\n")
		}
	}
	io.WriteString(inv.stdout, b.String())
	return exitOK
}

func runVersion(inv *invocation) int {
	fmt.Fprintln(inv.stdout, "pact version "+repl.Version)
	return exitOK
}
