package eval

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
)

// A module that reached the state with neither a governance keyset nor a capability (as one
// governed by "" did before install refused it) is not left open: acquiring its admin, which
// an upgrade does first, fails as its install would now. An interface, which has no
// governance, keeps granting it.
func TestModuleWithoutGovernanceIsNotOpen(t *testing.T) {
	in := New(db.NewMemDB())
	err := in.acquireAdmin(&Module{Name: value.ModuleName{Namespace: "free", Name: "govempty"}, Defs: map[string]*Def{}})
	if err == nil || !strings.Contains(err.Error(), "Invalid keyset name format") {
		t.Errorf("admin of a module without governance: %v", err)
	}
	if err := in.acquireAdmin(&Module{Name: value.ModuleName{Name: "iface"}, Interface: true, Defs: map[string]*Def{}}); err != nil {
		t.Errorf("admin of an interface: %v", err)
	}
}
