package contracts

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.pact
var files embed.FS

// FS is the embedded .pact files, by file name.
func FS() fs.FS { return files }

// File returns an embedded .pact file; it panics on an unknown name.
func File(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("contracts: " + err.Error())
	}
	return string(b)
}

// Source is one genesis transaction.
type Source struct {
	// Name is unique within a genesis and may serve as the nonce.
	Name string
	// File is the embedded file the code comes from; empty for code
	// generated from the development tables.
	File string
	// Code is the Pact code of the transaction (an exec payload).
	Code string
	// Reads are the keys of the transaction data the code reads.
	Reads []string
	// Data holds a value for each of Reads. Genesis leaves it nil (the
	// keys are the network's choice); DevelopmentGenesis fills it.
	Data map[string]any
}

// Keyset is a keyset as transaction data carries it.
type Keyset struct {
	Keys []string `json:"keys"`
	Pred string   `json:"pred"`
}

// KeysAll is the keys-all keyset of keys.
func KeysAll(keys ...string) Keyset { return Keyset{Keys: keys, Pred: "keys-all"} }

// genesisFiles are the network-independent genesis transactions, in load
// order, with the data keys each reads.
var genesisFiles = []struct {
	name, file string
	reads      []string
}{
	// The interfaces before the module implementing them.
	{"fungible-v2", "fungible-v2.pact", nil},
	{"fungible-xchain-v1", "fungible-xchain-v1.pact", nil},
	// The coin module and its tables coin-table and allocation-table.
	{"coin", "coin.pact", nil},
	{"gas-payer-v1", "gas-payer-v1.pact", nil},
	// ns, its registry, the namespaces kadena, user, free, util. The
	// operator keysets start as ns-genesis-keyset, which must be
	// {"keys": [], "pred": "="} (passes unsigned).
	{"ns", "ns.pact", []string{"ns-admin-keyset", "ns-genesis-keyset"}},
	// util.guards and util.guards1, installed while util-ns-users still
	// passes unsigned.
	{"util-guards", "util-guards.pact", nil},
	// The operator keysets rotated to their real keys.
	{"ns-keysets", "ns-keysets.pact", []string{"ns-operate-keyset", "util-ns-users", "util-ns-admin"}},
}

// Genesis returns the transactions every chain's genesis runs first, in
// order. The same code on every chain gives the same module hashes, which
// cross-chain transfers need.
func Genesis() []Source {
	out := make([]Source, 0, len(genesisFiles))
	for _, g := range genesisFiles {
		out = append(out, Source{Name: g.name, File: g.file, Code: File(g.file), Reads: slices.Clone(g.reads)})
	}
	return out
}

// GenesisKeysetEmpty is the value ns-genesis-keyset must have: no keys, and
// a predicate that passes when the number of signatures equals the number
// of keys (zero).
var GenesisKeysetEmpty = Keyset{Keys: []string{}, Pred: "="}

// quote renders a Pact string literal.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
