package dbtest

import (
	"math"
	"math/big"

	"github.com/ledgernode/ledger-node/pact/value"
)

// SampleValues returns one or more values of every kind the interpreter
// stores, with the edge cases of each: integers around the int64 limits
// and beyond, decimals whose places matter for display, times before the
// epoch, nested lists and objects, every guard kind, module references,
// capability tokens and table references with schemas of every type form.
// Schemas here are acyclic (eval.StructEqual does not terminate on a
// self-referential schema).
func SampleValues() []value.Value {
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	bigNeg := new(big.Int).Neg(big1)
	justOver := new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(1))
	justUnder := new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1))
	mn := value.ModuleName{Name: "m", Namespace: "free"}
	root := value.ModuleName{Name: "coin"}
	iface := value.ModuleName{Name: "fungible-v2"}
	obj := value.NewObject(
		value.Field{Key: "balance", Val: value.NewDecimal(value.NewInt(150), 2)},
		value.Field{Key: "guard", Val: value.NewKeySet([]string{"k2", "k1"}, "")},
		value.Field{Key: "nested", Val: value.NewObject(value.Field{Key: "l", Val: value.List{value.NewInt(1), value.List{}}})},
		value.Field{Key: "", Val: value.UnitValue},
	)
	schema := &value.Schema{Name: value.QualifiedName{Module: mn, Name: "row"}, Fields: []value.SchemaField{
		{Name: "a", Type: value.Type{Kind: value.TyPrim, Prim: "integer"}},
		{Name: "b", Type: value.Type{Kind: value.TyList, Elem: &value.Type{Kind: value.TyPrim, Prim: "string"}}},
		{Name: "c", Type: value.Type{Kind: value.TyAnyList}},
		{Name: "d", Type: value.Type{Kind: value.TyModRef, ModRefs: []value.ModuleName{iface, {Name: "i", Namespace: "free"}}}},
		{Name: "e", Type: value.Type{Kind: value.TyAny}},
		{Name: "f", Type: value.Type{Kind: value.TyAnyObject}},
		{Name: "g", Type: value.Type{Kind: value.TyCapToken}},
	}}
	withObj := value.Schema{Name: value.QualifiedName{Module: mn, Name: "outer"}, Fields: []value.SchemaField{
		{Name: "inner", Type: value.Type{Kind: value.TyObject, Schema: schema}},
		{Name: "same", Type: value.Type{Kind: value.TyTable, Schema: schema}}, // shared, not cyclic
		{Name: "untyped", Type: value.Type{Kind: value.TyObject}},
	}}
	return []value.Value{
		value.NewInt(0),
		value.NewInt(1),
		value.NewInt(-1),
		value.NewInt(math.MaxInt64),
		value.NewInt(math.MinInt64),
		value.NewIntBig(justOver),
		value.NewIntBig(justUnder),
		value.NewIntBig(big1),
		value.NewIntBig(bigNeg),
		value.NewDecimal(value.NewInt(0), 0),
		value.NewDecimal(value.NewInt(0), 3),   // 0.000
		value.NewDecimal(value.NewInt(150), 2), // 1.50
		value.NewDecimal(value.NewInt(-5), 1),  // -0.5
		value.NewDecimal(value.NewIntBig(big1), 255),
		value.NewDecimal(value.NewIntBig(bigNeg), 7),
		value.String(""),
		value.String("hello, world"),
		value.String("ünïcødé \u2603 \x00 nul"),
		value.True,
		value.False,
		value.UnitValue,
		value.TimeFromMicros(0),
		value.TimeFromMicros(1_700_000_000_123_456),
		value.TimeFromMicros(-62_135_596_800_000_000), // 0001-01-01
		value.TimeFromMicros(math.MaxInt64),
		value.TimeFromMicros(math.MinInt64),
		value.List{},
		value.List{value.NewInt(1), value.String("two"), value.List{value.True, value.List{}}, obj},
		value.EmptyObject,
		obj,
		value.NewKeySet([]string{"368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca"}, ""),
		value.NewKeySet([]string{"a", "b", "c"}, value.KeysAny),
		value.NewKeySet(nil, value.Keys2),
		value.NewKeySet([]string{"a"}, "free.m.my-pred"),
		&value.KeySetRef{Name: "admin"},
		&value.KeySetRef{Name: "admin", Namespace: "free"},
		&value.UserGuard{Fun: value.QualifiedName{Module: mn, Name: "enforce-it"}, Args: []value.Value{value.String("x"), value.NewInt(2)}},
		&value.UserGuard{Fun: value.QualifiedName{Module: root, Name: "f"}, Args: []value.Value{}},
		&value.CapabilityGuard{Name: value.QualifiedName{Module: root, Name: "TRANSFER"}, Args: []value.Value{value.String("a"), value.NewDecimal(value.NewInt(10), 1)}},
		&value.CapabilityGuard{Name: value.QualifiedName{Module: mn, Name: "CAP"}, PactID: "pid-1", HasPactID: true, Args: []value.Value{}},
		&value.CapabilityGuard{Name: value.QualifiedName{Module: mn, Name: "CAP"}, PactID: "", HasPactID: true, Args: []value.Value{}},
		&value.ModuleGuard{Module: mn, Name: "bank"},
		&value.PactGuard{PactID: "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g", Name: "escrow"},
		value.NewModRef(root, []value.ModuleName{iface, {Name: "fungible-xchain-v1"}}),
		value.NewModRef(mn, nil),
		&value.CapToken{Name: value.FullyQualifiedName{Module: root, Name: "GAS", Hash: "h1"}, Args: []value.Value{}},
		&value.CapToken{Name: value.FullyQualifiedName{Module: mn, Name: "TRANSFER"}, Args: []value.Value{value.String("a"), value.String("b"), value.NewDecimal(value.NewInt(1), 0)}},
		&value.Table{Name: "accounts", Module: mn, Hash: "abc", Schema: *schema},
		&value.Table{Name: "wrapped", Module: root, Hash: "", Schema: withObj},
		value.List{&value.Table{Name: "empty", Module: root, Schema: value.Schema{Name: value.QualifiedName{Module: root, Name: "s"}}}},
	}
}
