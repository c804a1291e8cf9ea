package layout

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ledgernode/ledger-node/"

// language is the Pact language's packages: they know nothing of blocks.
var language = []string{"pact/syntax", "pact/resolve", "pact/value", "pact/p5", "pact/eval", "pact/gas", "pact/db", "pact/crypto", "pact/api",
	"pact/result", "pact/contracts", "pact/persist", "pact/repl", "pact/keyorder", "pact/jsontext",
	"pact/timefmt", "pact/pretty", "pact/typecheck"}

// rules says which packages of the module a package may import, by path prefix: the longest
// prefix of a package's path that has a rule governs it ("cmd/" covers every command; "pact"
// alone covers pact and everything under it). "*" allows every package of the module. Every
// package must be governed by some rule.
var rules = map[string][]string{
	"ledger":      {},
	"pow":         {"ledger"},
	"pow/powtest": {"ledger", "pow"},
	// The language: no ledger, pow, chain, store, actors, transport, mempool or server.
	"pact": language,
	// The Pact database reports damaged data with kv's ErrCorrupt, as the store does.
	"pact/persist": append([]string{"kv"}, language...),
	// The desugaring pass, which the compiler and the module hasher share, reads the syntax only.
	"pact/resolve": {"pact/syntax"},
	// The static type checker reads the syntax, its desugaring and the modules the evaluator
	// installed; the REPL and pact -s's verify call it.
	"pact/typecheck": {"pact/syntax", "pact/resolve", "pact/value", "pact/eval"},
	// The values and their pure operations, JSON and rendering: what api, result and mempool
	// read and write. Below the evaluator, so it knows nothing of it.
	"pact/value": {"pact/syntax", "pact/crypto", "pact/jsontext", "pact/keyorder", "pact/pretty", "pact/timefmt"},
	// Pact 5's stored forms of a module (the IR writer, images and their measures): below the
	// evaluator, whose module hasher writes through it.
	"pact/p5": {"pact/syntax", "pact/value", "pact/gas"},
	// Key order imports nothing: the JSON writers of every layer use it.
	"pact/keyorder": {},
	// The one JSON parser (and string escaper), shared by api and eval, imports nothing.
	"pact/jsontext": {},
	// pact-time's formats and calendar, over plain microseconds, imports nothing.
	"pact/timefmt": {},
	// Haskell prettyprinter's layout, for the REPL's rendering of values, imports nothing.
	"pact/pretty": {},
	// pact -s's engine: the language and the contract API it implements, and no blocks (its
	// development-contract preload is given to it by cmd/pact).
	"pact/server": append([]string{"transport/contractapi"}, language...),
	// Block execution: genesis payloads, building and executing payloads, the node's records
	// in the state, routes for rewind and replay, SPV proofs (chain); the versioned Pact
	// state over a key space the store provides (chain/state). Over the language, ledger, pow
	// and txexec; not the store, which it reaches through interfaces (state.KeySpace,
	// chain.Headers).
	"chain":       append([]string{"ledger", "pow", "chain/state", "txexec", "kv"}, language...),
	"chain/state": append([]string{"kv"}, language...),
	// A command as a chain runs it, gas bought and redeemed, coinbase and genesis: over the
	// language only, so that pact -s runs the development genesis without linking the node.
	"txexec":  language,
	"mempool": {"ledger", "pact/api", "pact/syntax", "pact/value"},
	"store":   {"ledger", "kv", "store/internal/records"},
	// Backup jobs and restores around the store's copy of a snapshot.
	"store/backup": {"store", "ledger", "kv"},
	// The key-value vocabulary the store lends the Pact state (batch, iterator, not found),
	// so that goleveldb stays in the store.
	"kv":     {},
	"actors": append([]string{"ledger", "pow", "mempool", "store", "chain", "txexec", "transport/contractapi", "metrics/hist", "kv", "actors/headerimport"}, language...),
	"transport": {"ledger", "store", "store/backup", "kv", "actors", "actors/mining", "actors/peersync", "pact/api", "pact/result", "pact/keyorder", "transport/contractapi",
		"transport/contracthttp", "transport/httpkit", "transport/connguard", "metrics/hist", "explorer"},
	"explorer": {},
	// The metrics: a Prometheus registry over what the node's packages count (read at scrape
	// time); the node wires it and transport serves it. metrics/hist, the atomic histogram the
	// hot paths observe into, imports nothing, so actors and transport can keep one.
	"metrics":      {"ledger", "pow", "store", "store/backup", "actors", "actors/peersync", "transport", "transport/connguard", "metrics/hist"},
	"metrics/hist": {},
	// Private commands on the node: a chain's contract API with pact -s's engine beside it, the
	// one package of the node that may import pact/server (actors and transport may not).
	"private": {"ledger", "actors", "pact/api", "pact/server", "transport", "transport/contractapi", "transport/contracthttp"},
	// The contract API's vocabulary, which the node and pact -s implement: commands, results,
	// the parser (local's validation) and nothing else.
	"transport/contractapi": {"pact/api", "pact/result", "pact/syntax"},
	// What pact -s serves with besides the language, so that pact links none of the node: the
	// contract endpoints' handlers and pact -s's server over the vocabulary (contracthttp), the
	// HTTP plumbing they share with transport (httpkit), the connection guard (connguard).
	"transport/contracthttp": {"ledger", "pact/api", "pact/keyorder", "transport/contractapi", "transport/httpkit"},
	"transport/httpkit":      {},
	"transport/connguard":    {},
	"cmd/":                   {"*"},
	"bench/":                 {"*"},
	"internal/":              {"*"},
	"interop":                {"*"},

	// Parts that run over the runtime, as clients of it (the cut it publishes, Insert, each
	// chain's executor and mempool): the miner and the mining API's coordinator, peer sync.
	// actorstest is their tests' runtime and store.
	"actors/mining":     {"ledger", "pow", "store", "chain", "chain/state", "pact/api", "actors"},
	"actors/peersync":   {"ledger", "pow", "store", "chain", "mempool", "pact/api", "actors"},
	"actors/actorstest": {"ledger", "store", "actors"},
	// Header import validates as the chain actors do, on a data directory no node runs on; the
	// chain actors share its parent lookup.
	"actors/headerimport": {"ledger", "pow", "store"},
}

// thirdParty says which of the module's packages may import a third-party module (its path and
// every package under it), by package prefix as in rules: the storage engine stays behind the
// store and the Pact database, the actor runtime inside actors (and any package under it),
// the HTTP server in the HTTP layers, the node's commands and the benchmarks. Modules not listed
// are unconstrained. Only non-test code is checked: tests may reach the engine directly.
var thirdParty = map[string][]string{
	"github.com/syndtr/goleveldb":       {"store", "pact/persist"},
	"github.com/asynkron/protoactor-go": {"actors"},
	"github.com/valyala/fasthttp":       {"transport", "metrics", "cmd/ledger-node", "bench/"},
}

// debt lists the arrows the rules forbid that exist today, each with the issue that removes it.
// The test fails on an arrow in neither list, and on an arrow listed here that is gone.
var debt = map[string]string{}

// notImportable says which packages' non-test code may import a package of the prefix: none
// for commands and test helpers, the harnesses for the harnesses' own helpers.
var notImportable = map[string]string{
	"cmd/":                 "",
	"interop":              "",
	"pow/powtest":          "",
	"actors/actorstest":    "",
	"internal/pactsrvtest": "",
	"internal/jsontest":    "",
	"internal/syncbuf":     "",
	"internal/hangguard":   "internal/",
	"bench/":               "",
	"bench/internal/":      "bench/",
}

// TestThirdPartyImports checks the module's packages' imports against thirdParty.
func TestThirdPartyImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		imports[strings.TrimPrefix(fields[0], module)] = fields[1:]
	}
	for _, v := range thirdPartyViolations(imports) {
		t.Error(v)
	}
}

// The check fails on an import thirdParty does not allow, and only on one.
func TestThirdPartyCheck(t *testing.T) {
	imports := map[string][]string{
		"store":             {"github.com/syndtr/goleveldb/leveldb", "errors"},
		"store/sub":         {"github.com/syndtr/goleveldb/leveldb/util"},
		"actors/runtime":    {"github.com/asynkron/protoactor-go/actor"},
		"chain/state":       {"github.com/syndtr/goleveldb/leveldb/util", module + "store"},
		"metrics":           {"github.com/syndtr/goleveldb/leveldb", "github.com/valyala/fasthttp"},
		"pact/server":       {"github.com/asynkron/protoactor-go/actor"},
		"storefront":        {"github.com/syndtr/goleveldb/leveldb"},
		"transport/httpkit": {"github.com/valyala/fasthttp", "github.com/prometheus/client_golang/prometheus"},
	}
	got := thirdPartyViolations(imports)
	want := []string{
		"chain/state imports github.com/syndtr/goleveldb/leveldb/util: only [store pact/persist] may import github.com/syndtr/goleveldb",
		"metrics imports github.com/syndtr/goleveldb/leveldb: only [store pact/persist] may import github.com/syndtr/goleveldb",
		"pact/server imports github.com/asynkron/protoactor-go/actor: only [actors] may import github.com/asynkron/protoactor-go",
		"storefront imports github.com/syndtr/goleveldb/leveldb: only [store pact/persist] may import github.com/syndtr/goleveldb",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// thirdPartyViolations lists, sorted, the imports (package → its imports) that thirdParty
// forbids.
func thirdPartyViolations(imports map[string][]string) []string {
	var bad []string
	for pkg, imps := range imports {
		for _, imp := range imps {
			for mod, allowed := range thirdParty {
				if matches(imp, mod) && !permitted(pkg, allowed) {
					bad = append(bad, fmt.Sprintf("%s imports %s: only %v may import %s", pkg, imp, allowed, mod))
				}
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		allowed, ok := governing(pkg)
		if !ok {
			t.Errorf("%s has no rule: add it to rules (and to the README's Layout section)", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			imp = strings.TrimPrefix(imp, module)
			arrow := pkg + " -> " + imp
			if only, ok := longest(imp, notImportable); ok && (only == "" || !matches(pkg, only)) {
				t.Errorf("%s: %s is not for import by other packages", arrow, imp)
			}
			if permitted(imp, allowed) {
				continue
			}
			if _, known := debt[arrow]; known {
				seen[arrow] = true
				continue
			}
			t.Errorf("%s: not allowed by the package map (rules in %s); allowed: %v", arrow, "internal/layout", allowed)
		}
	}
	for arrow, why := range debt {
		if !seen[arrow] {
			t.Errorf("%s is gone (%s): delete it from debt", arrow, why)
		}
	}
}

// governing returns the rule of the longest prefix of pkg that has one.
func governing(pkg string) ([]string, bool) { return longest(pkg, rules) }

// longest returns the value of m's longest key that pkg matches.
func longest[V any](pkg string, m map[string]V) (V, bool) {
	best, found := "", false
	for p := range m {
		if matches(pkg, p) && (!found || len(p) > len(best)) {
			best, found = p, true
		}
	}
	return m[best], found
}

func permitted(imp string, allowed []string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool { return a == "*" || matches(imp, a) })
}

// matches reports whether pkg is p, or lies under p when p ends in "/".
func matches(pkg, p string) bool {
	if strings.HasSuffix(p, "/") {
		return strings.HasPrefix(pkg, p)
	}
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}
