package contracts_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/typecheck"
	"github.com/ledgernode/ledger-node/pact/value"
)

// TestRepl runs every testdata/*.repl script in a fresh REPL and fails on
// any failed expect, expect-failure or expect-that, and on a script that
// stops early.
func TestRepl(t *testing.T) {
	scripts, err := filepath.Glob("testdata/*.repl")
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) < 2 {
		t.Fatalf("only %d scripts in testdata", len(scripts))
	}
	for _, f := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".repl"), func(t *testing.T) {
			r := repl.New(io.Discard)
			err := r.LoadFile(f)
			for _, res := range r.Results {
				if !res.Passed {
					t.Errorf("%s:%d: %s", filepath.Base(res.Loc.File), res.Loc.Start.Line,
						strings.ReplaceAll(res.Msg, "\n", " "))
				}
			}
			if err != nil {
				t.Fatalf("load stopped: %s", repl.FormatError(err))
			}
			if len(r.Results) == 0 {
				t.Fatal("no expectations ran")
			}
			t.Logf("%d expectations passed", len(r.Results))
		})
	}
}

// TestEveryMemberTested checks that every function, capability and defpact
// of the contracts is called (as module.name) by at least one script.
func TestEveryMemberTested(t *testing.T) {
	var tests strings.Builder
	scripts, _ := filepath.Glob("testdata/*.repl")
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tests.Write(b)
	}
	all := tests.String()
	member := regexp.MustCompile(`\((defun|defcap|defpact)\s+([^\s:()]+)`)
	modules := map[string]string{
		"coin.pact":        "coin",
		"ns.pact":          "ns",
		"util-guards.pact": "",
	}
	for file, mod := range modules {
		src := contracts.File(file)
		cur := mod
		for _, line := range strings.Split(src, "\n") {
			if m := regexp.MustCompile(`^\(module\s+(\S+)`).FindStringSubmatch(line); m != nil && mod == "" {
				cur = "util." + m[1]
			}
			m := member.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			name := cur + "." + m[2]
			if !strings.Contains(all, name) {
				t.Errorf("%s: %s is not exercised by any script", file, name)
			}
		}
	}
}

// TestGenesisSources checks the shape of Genesis: every embedded file is
// loaded exactly once, interfaces before coin, and Reads lists exactly the
// keys the code reads.
func TestGenesisSources(t *testing.T) {
	g := contracts.Genesis()
	var names []string
	used := map[string]bool{}
	for _, s := range g {
		names = append(names, s.Name)
		if s.Code == "" || s.File == "" {
			t.Errorf("%s: no code", s.Name)
		}
		if used[s.File] {
			t.Errorf("%s loaded twice", s.File)
		}
		used[s.File] = true
		checkReads(t, s)
	}
	want := "fungible-v2 fungible-xchain-v1 coin gas-payer-v1 ns util-guards ns-keysets"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".pact") && !used[e.Name()] {
			t.Errorf("%s is not part of Genesis", e.Name())
		}
	}
	for _, chain := range []int{0, 7} {
		for _, s := range contracts.DevelopmentGenesis(chain) {
			checkReads(t, s)
			for _, k := range s.Reads {
				if _, ok := s.Data[k]; !ok {
					t.Errorf("chain %d, %s: no data for %q", chain, s.Name, k)
				}
			}
		}
	}
}

func checkReads(t *testing.T, s contracts.Source) {
	t.Helper()
	// Genesis data are keysets; coin's own (read-decimal "fee") is the
	// node's data for redeem-gas, not genesis data.
	read := regexp.MustCompile(`\(read-keyset\s+"([^"]+)"\)`)
	var got []string
	seen := map[string]bool{}
	for _, m := range read.FindAllStringSubmatch(s.Code, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			got = append(got, m[1])
		}
	}
	sort.Strings(got)
	want := append([]string(nil), s.Reads...)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s reads %v, Reads says %v", s.Name, got, want)
	}
}

// runGenesis runs DevelopmentGenesis(chain) the way a genesis block runs
// it: each source one unsigned transaction, parsed as a program (no REPL
// natives), with its data, coin.GENESIS and coin.COINBASE granted, root
// definitions allowed.
func runGenesis(t *testing.T, chain int) *repl.Runner {
	t.Helper()
	r := repl.New(io.Discard)
	replEval := func(src string) {
		t.Helper()
		if _, err := r.EvalSource("harness", src, true); err != nil {
			t.Fatalf("chain %d: %s: %s", chain, src, repl.FormatError(err))
		}
	}
	replEval(fmt.Sprintf(`(env-chain-data {"chain-id": "%d"}) (env-sigs [])`, chain))
	for _, s := range contracts.DevelopmentGenesis(chain) {
		data := []byte("{}")
		if s.Data != nil {
			var err error
			if data, err = json.Marshal(s.Data); err != nil {
				t.Fatal(err)
			}
		}
		replEval(fmt.Sprintf(`(begin-tx %q) (env-data %s)`, s.Name, data))
		if r.In.HasModule("coin") {
			replEval(`(test-capability (coin.GENESIS)) (test-capability (coin.COINBASE))`)
		}
		if _, err := r.EvalSource(s.Name, s.Code, false); err != nil {
			t.Fatalf("chain %d: genesis transaction %s: %s", chain, s.Name, repl.FormatError(err))
		}
		replEval(`(commit-tx)`)
	}
	return r
}

// TestDevelopmentGenesis runs the development genesis of chains 0 and 1
// and checks the accounts, allocations, namespaces and the cross-chain gas
// account, then a cross-chain transfer and a release on the result.
func TestDevelopmentGenesis(t *testing.T) {
	hashes := map[string]bool{}
	for _, chain := range []int{0, 1} {
		r := runGenesis(t, chain)
		var sb strings.Builder
		sb.WriteString("(begin-tx \"checks\")\n")
		for _, a := range contracts.DevAccounts {
			balance := a.Balance
			if a.Chain0 && chain != 0 {
				// The allocation accounts exist on every chain, funded
				// on chain 0 only.
				balance = "0.0"
			}
			guard := fmt.Sprintf(`(keyset-ref-guard %q)`, a.KeysetRef)
			if a.KeysetRef == "" {
				ks, _ := json.Marshal(a.Keyset)
				fmt.Fprintf(&sb, "(env-data {\"g\": %s})\n", ks)
				guard = `(read-keyset "g")`
			}
			fmt.Fprintf(&sb, "(expect %q {\"account\": %q, \"balance\": %s, \"guard\": %s} (coin.details %q))\n",
				a.Name, a.Name, balance, guard, a.Name)
		}
		for _, a := range contracts.DevAllocations {
			want := "0.0"
			if a.Account == "allocation00" || a.Account == "allocation01" || a.Account == "allocation02" {
				if chain == 0 {
					want = "100000.0"
				}
			}
			fmt.Fprintf(&sb, "(expect %q %s (coin.get-balance %q))\n", a.Account+" balance", want, a.Account)
		}
		fmt.Fprintf(&sb, "(expect \"xchain gas\" %s (coin.get-balance %q))\n", contracts.XChainGasBalance, contracts.XChainGasAccount)
		sb.WriteString(`(expect "namespaces" ["free" "kadena" "user" "util"]
  (map (lambda (n) (at "namespace-name" (describe-namespace n))) ["free" "kadena" "user" "util"]))
(expect "sender00 operates ns" (keyset-ref-guard "ns-operate-keyset") (at "admin-guard" (ns.query "kadena")))
(commit-tx)
(env-namespace-policy false (ns.validate))
(env-exec-config ["RequireKeysetNs"])
`)
		if chain == 0 {
			// A release, and a cross-chain transfer paid by sender00 and
			// continued unsigned with kadena-xchain-gas paying.
			fmt.Fprintf(&sb, `
(begin-tx "release")
(env-chain-data {"block-time": (time "2024-01-01T00:00:00Z")})
(env-sigs [{"key": %q, "caps": []}])
(expect "allocation00 releases" "Allocation successfully released to main ledger" (coin.release-allocation "allocation00"))
(expect "released" 1100000.0 (coin.get-balance "allocation00"))
(expect-failure "allocation01 is locked" "funds locked until" (coin.release-allocation "allocation01"))
(rollback-tx)
(begin-tx "xchain step 0")
(env-hash (hash "genesis-xchain"))
(env-data {"ks": {"keys": [%q], "pred": "keys-all"}})
(env-sigs [{"key": %q, "caps": [(coin.TRANSFER_XCHAIN "sender00" "sender00" 10.0 "1")]}])
(coin.transfer-crosschain "sender00" "sender00" (read-keyset "ks") "1" 10.0)
(expect "debited" 99999990.0 (coin.get-balance "sender00"))
(commit-tx)
(begin-tx "xchain step 1")
(env-chain-data {"chain-id": "1", "gas-price": 0.00000001, "gas-limit": 850})
(env-sigs [])
(env-data {"fee": 0.0000085, "miner": {"keys": [%q], "pred": "keys-all"}})
(test-capability (coin.GAS))
(expect "kadena-xchain-gas buys gas unsigned" "Write succeeded" (coin.buy-gas %q 0.0000085))
(expect "step 1" "Write succeeded" (continue-pact 1 false (hash "genesis-xchain")))
(expect "redeem" "Write succeeded"
  (coin.redeem-gas %q (read-keyset "miner") %q 0.0000085))
(expect "credited (one database stands for both chains)" 100000000.0 (coin.get-balance "sender00"))
(commit-tx)
`, contracts.Key("allocation00"), contracts.Key("sender00"), contracts.Key("sender00"),
				contracts.Key("devnet-miner"), contracts.XChainGasAccount,
				"k:"+contracts.Key("devnet-miner"), contracts.XChainGasAccount)
		}
		if _, err := r.EvalSource(fmt.Sprintf("checks-chain-%d", chain), sb.String(), true); err != nil {
			t.Fatalf("chain %d: %s", chain, repl.FormatError(err))
		}
		for _, res := range r.Results {
			if !res.Passed {
				t.Errorf("chain %d: %s", chain, strings.ReplaceAll(res.Msg, "\n", " "))
			}
		}
		v, err := r.EvalSource("hash", `(at "hash" (describe-module "coin"))`, true)
		if err != nil {
			t.Fatal(err)
		}
		hashes[value.Pretty(v[0])] = true
	}
	if len(hashes) != 1 {
		t.Errorf("coin has different hashes on chains 0 and 1: %v", hashes)
	}
}

// TestContractsTypecheck typechecks every module and interface the genesis
// contracts install, as each is installed: none may have a type error
// (issue 35: no false positives on the coin contract).
func TestContractsTypecheck(t *testing.T) {
	r := repl.New(io.Discard)
	checked := 0
	r.In.Installed = func(m *eval.Module) {
		rep, err := typecheck.Check(r.In, m)
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			return
		}
		checked++
		if rep.Failed() {
			t.Error(rep.ErrorText())
		}
		t.Logf("%s: %d checks, %d undecided", m.Name, rep.Checks, len(rep.Undecided))
	}
	if err := r.LoadFile("testdata/install.repl"); err != nil {
		t.Fatal(repl.FormatError(err))
	}
	if checked < 5 {
		t.Fatalf("only %d modules installed", checked)
	}
}
