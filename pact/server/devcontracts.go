package server

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The project's development contracts on `pact -s` (Config.DevContracts).
//
// A Pact server starts with an empty state, as P5's does: there is no coin
// contract until a command installs one. The node's chains all start with
// the development genesis (pact/contracts), so a command written for the
// node (the README's transfer) fails on a bare server with "Cannot resolve
// module coin". With DevContracts the server runs chain 0's development
// genesis once, as a node's chain 0 does: the coin contract and its
// interfaces, the namespace policy and its namespaces, util.guards, the
// development accounts and their balances. Without it, a command that
// names one of those modules gets the reason and the setting in its error.

// DevContractsKey is the `pact -s` configuration key of DevContracts, named
// in the hint an unknown module's error carries.
const DevContractsKey = "preloadDevContracts"

// devContractModules are the modules and interfaces the development
// genesis installs (TestDevContractModules checks the list against it).
var devContractModules = []string{
	"coin", "fungible-v2", "fungible-xchain-v1", "gas-payer-v1", "ns", "util.guards", "util.guards1",
}

// loadDevContracts runs chain 0's development genesis on the state
// (Config.DevContracts) unless coin is there already (a persistDir that was
// loaded before, or a coin of the user's own, which is kept).
func (e *Engine) loadDevContracts() error {
	_, found, err := e.state.Read(db.Modules, "", "coin")
	if err != nil {
		return fmt.Errorf("%s: reading the state: %w", DevContractsKey, err)
	}
	if found {
		e.log.Info("pact server: coin is installed already; the development contracts are not loaded again")
		return nil
	}
	if err := e.cfg.DevContracts(e.state); err != nil {
		return fmt.Errorf("%s: %w (the state holds modules of the same names that are not the project's)", DevContractsKey, err)
	}
	e.log.Info("pact server: development contracts loaded", "modules", devContractModules, "network", "development", "chain", "0")
	return nil
}

// unknownModule matches the errors of a name that resolves to no module:
// the compiler's, and a module or interface looked up by name at run time.
var unknownModule = regexp.MustCompile(`^(?:Cannot resolve module |Cannot find module: |Cannot find interface: )(\S+)$`)

// devContractsHint adds to an unknown-module error, when the module is one
// of the development contracts and the server does not load them, why the
// module is missing and how to have it.
func (e *Engine) devContractsHint(err error) error {
	var ee *value.Error
	if e.cfg.DevContracts != nil || !errors.As(err, &ee) {
		return err
	}
	m := unknownModule.FindStringSubmatch(ee.Msg)
	if m == nil || !slices.Contains(devContractModules, m[1]) {
		return err
	}
	he := *ee
	he.Msg += " (this server starts without the development contracts; set " + DevContractsKey +
		": true in its configuration to load coin, its interfaces and the namespaces at start)"
	return &he
}
