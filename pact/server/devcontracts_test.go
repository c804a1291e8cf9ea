package server

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
	"github.com/ledgernode/ledger-node/txexec"
)

// devGenesis is what pact -s's preloadDevContracts wires (cmd/pact): block execution's
// development genesis of chain 0.
func devGenesis(st db.DB) error { return txexec.RunDevelopmentGenesis(st, "0", "development") }

// The development contracts load at start: the modules of the hint's list
// (no more, no fewer), and the README's transfer runs.
func TestDevContracts(t *testing.T) {
	// The server's flags are its commands': the genesis loads under any.
	e := open(t, Config{DevContracts: devGenesis, Flags: []string{"RequireKeysetNs"}})
	mods, err := e.state.Keys(db.Modules, "")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(mods)
	want := slices.Sorted(slices.Values(devContractModules))
	if !slices.Equal(mods, want) {
		t.Fatalf("modules after loading: %v, want %v (devContractModules)", mods, want)
	}
	r := local(t, e, transfer(t))
	if r.Result.Status != "success" || string(r.Result.Data) != `"Write succeeded"` {
		t.Fatalf("transfer: %+v %s", r.Result.Error, r.Result.Data)
	}
	// The development accounts are funded, and the namespaces exist.
	r = local(t, e, build(t, cmdSpec{code: `(> (coin.get-balance "sender01") 0.0)`, nonce: "balance"}))
	if r.Result.Status != "success" || string(r.Result.Data) != "true" {
		t.Errorf("balance of sender01: %+v %s", r.Result.Error, r.Result.Data)
	}
	r = local(t, e, build(t, cmdSpec{code: `(describe-namespace "free")`, nonce: "ns"}))
	if r.Result.Status != "success" {
		t.Errorf("namespace free: %+v", r.Result.Error)
	}
}

// transfer is the README's: sender00 pays sender01 1.0 on chain 0.
func transfer(t *testing.T) *api.Command {
	k := mustKey(contracts.TestKeys[0].Secret)
	return build(t, cmdSpec{code: `(coin.transfer "sender00" "sender01" 1.0)`, nonce: "transfer", signers: []*api.KeyPair{k},
		caps: []api.SigCapability{{Name: "coin.TRANSFER", Args: []value.Value{value.String("sender00"), value.String("sender01"),
			value.NewDecimal(value.NewInt(1), 0)}}}})
}

// Without them, naming one of their modules says why it is missing and
// which setting loads it; other unknown modules get the plain error.
func TestDevContractsHint(t *testing.T) {
	e := open(t, Config{})
	for _, c := range []struct{ code, want string }{
		{`(coin.transfer "sender00" "sender01" 1.0)`, "Cannot resolve module coin (this server starts without the development contracts; set preloadDevContracts: true"},
		{`(describe-module "fungible-v2")`, "Cannot find module: fungible-v2 (this server starts without"},
		{`(module t G (defcap G () true) (implements fungible-v2))`, "Cannot find module: fungible-v2 (this server starts without"},
	} {
		r := local(t, e, build(t, cmdSpec{code: c.code, nonce: c.code}))
		if r.Result.Error == nil || !strings.HasPrefix(r.Result.Error.Message, c.want) {
			t.Errorf("%s: %+v, want %q", c.code, r.Result.Error, c.want)
		}
	}
	r := local(t, e, build(t, cmdSpec{code: `(other.f)`, nonce: "other"}))
	if r.Result.Error == nil || r.Result.Error.Message != "Cannot resolve module other" {
		t.Errorf("another module: %+v", r.Result.Error)
	}
	loaded := open(t, Config{DevContracts: devGenesis})
	r = local(t, loaded, build(t, cmdSpec{code: `(gas-payer-v1.nope)`, nonce: "member"}))
	if r.Result.Error == nil || strings.Contains(r.Result.Error.Message, DevContractsKey) {
		t.Errorf("loaded server: %+v", r.Result.Error)
	}
}

// A persistent state keeps what was loaded; starting again with the
// setting does not load it twice (which would fail: interfaces cannot be
// upgraded).
func TestDevContractsRestart(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Config{PersistDir: dir, DevContracts: devGenesis})
	if err != nil {
		t.Fatal(err)
	}
	if r := sendOne(t, e, transfer(t)); r.Result.Status != "success" {
		t.Fatalf("transfer: %+v", r.Result.Error)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open(t, Config{PersistDir: dir, DevContracts: devGenesis})
	r := local(t, e, build(t, cmdSpec{code: `(coin.get-balance "sender00")`, nonce: "balance"}))
	if r.Result.Status != "success" || !strings.HasPrefix(string(r.Result.Data), "99999999") {
		t.Errorf("balance of sender00 after the restart: %+v %s", r.Result.Error, r.Result.Data)
	}
}
