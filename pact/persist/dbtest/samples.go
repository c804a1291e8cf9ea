package dbtest

import (
	"math"
	"math/big"

	"github.com/ledgernode/ledger-node/pact/eval"
)

// SampleValues returns one or more values of every kind the interpreter
// stores, with the edge cases of each: integers around the int64 limits
// and beyond, decimals whose places matter for display, times before the
// epoch, nested lists and objects, every guard kind, module references,
// capability tokens and table references with schemas of every type form.
// Schemas here are acyclic (eval.StructEqual does not terminate on a
// self-referential schema).
func SampleValues() []eval.Value {
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	bigNeg := new(big.Int).Neg(big1)
	justOver := new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(1))
	justUnder := new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1))
	mn := eval.ModuleName{Name: "m", Namespace: "free"}
	root := eval.ModuleName{Name: "coin"}
	iface := eval.ModuleName{Name: "fungible-v2"}
	obj := eval.NewObject(
		eval.Field{Key: "balance", Val: eval.NewDecimal(eval.NewInt(150), 2)},
		eval.Field{Key: "guard", Val: eval.NewKeySet([]string{"k2", "k1"}, "")},
		eval.Field{Key: "nested", Val: eval.NewObject(eval.Field{Key: "l", Val: eval.List{eval.NewInt(1), eval.List{}}})},
		eval.Field{Key: "", Val: eval.UnitValue},
	)
	schema := &eval.Schema{Name: eval.QualifiedName{Module: mn, Name: "row"}, Fields: []eval.SchemaField{
		{Name: "a", Type: eval.Type{Kind: eval.TyPrim, Prim: "integer"}},
		{Name: "b", Type: eval.Type{Kind: eval.TyList, Elem: &eval.Type{Kind: eval.TyPrim, Prim: "string"}}},
		{Name: "c", Type: eval.Type{Kind: eval.TyAnyList}},
		{Name: "d", Type: eval.Type{Kind: eval.TyModRef, ModRefs: []eval.ModuleName{iface, {Name: "i", Namespace: "free"}}}},
		{Name: "e", Type: eval.Type{Kind: eval.TyAny}},
		{Name: "f", Type: eval.Type{Kind: eval.TyAnyObject}},
		{Name: "g", Type: eval.Type{Kind: eval.TyCapToken}},
	}}
	withObj := eval.Schema{Name: eval.QualifiedName{Module: mn, Name: "outer"}, Fields: []eval.SchemaField{
		{Name: "inner", Type: eval.Type{Kind: eval.TyObject, Schema: schema}},
		{Name: "same", Type: eval.Type{Kind: eval.TyTable, Schema: schema}}, // shared, not cyclic
		{Name: "untyped", Type: eval.Type{Kind: eval.TyObject}},
	}}
	return []eval.Value{
		eval.NewInt(0),
		eval.NewInt(1),
		eval.NewInt(-1),
		eval.NewInt(math.MaxInt64),
		eval.NewInt(math.MinInt64),
		eval.NewIntBig(justOver),
		eval.NewIntBig(justUnder),
		eval.NewIntBig(big1),
		eval.NewIntBig(bigNeg),
		eval.NewDecimal(eval.NewInt(0), 0),
		eval.NewDecimal(eval.NewInt(0), 3),   // 0.000
		eval.NewDecimal(eval.NewInt(150), 2), // 1.50
		eval.NewDecimal(eval.NewInt(-5), 1),  // -0.5
		eval.NewDecimal(eval.NewIntBig(big1), 255),
		eval.NewDecimal(eval.NewIntBig(bigNeg), 7),
		eval.String(""),
		eval.String("hello, world"),
		eval.String("ünïcødé \u2603 \x00 nul"),
		eval.True,
		eval.False,
		eval.UnitValue,
		eval.TimeFromMicros(0),
		eval.TimeFromMicros(1_700_000_000_123_456),
		eval.TimeFromMicros(-62_135_596_800_000_000), // 0001-01-01
		eval.TimeFromMicros(math.MaxInt64),
		eval.TimeFromMicros(math.MinInt64),
		eval.List{},
		eval.List{eval.NewInt(1), eval.String("two"), eval.List{eval.True, eval.List{}}, obj},
		eval.EmptyObject,
		obj,
		eval.NewKeySet([]string{"368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca"}, ""),
		eval.NewKeySet([]string{"a", "b", "c"}, eval.KeysAny),
		eval.NewKeySet(nil, eval.Keys2),
		eval.NewKeySet([]string{"a"}, "free.m.my-pred"),
		&eval.KeySetRef{Name: "admin"},
		&eval.KeySetRef{Name: "admin", Namespace: "free"},
		&eval.UserGuard{Fun: eval.QualifiedName{Module: mn, Name: "enforce-it"}, Args: []eval.Value{eval.String("x"), eval.NewInt(2)}},
		&eval.UserGuard{Fun: eval.QualifiedName{Module: root, Name: "f"}, Args: []eval.Value{}},
		&eval.CapabilityGuard{Name: eval.QualifiedName{Module: root, Name: "TRANSFER"}, Args: []eval.Value{eval.String("a"), eval.NewDecimal(eval.NewInt(10), 1)}},
		&eval.CapabilityGuard{Name: eval.QualifiedName{Module: mn, Name: "CAP"}, PactID: "pid-1", HasPactID: true, Args: []eval.Value{}},
		&eval.CapabilityGuard{Name: eval.QualifiedName{Module: mn, Name: "CAP"}, PactID: "", HasPactID: true, Args: []eval.Value{}},
		&eval.ModuleGuard{Module: mn, Name: "bank"},
		&eval.PactGuard{PactID: "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g", Name: "escrow"},
		eval.NewModRef(root, []eval.ModuleName{iface, {Name: "fungible-xchain-v1"}}),
		eval.NewModRef(mn, nil),
		&eval.CapToken{Name: eval.FullyQualifiedName{Module: root, Name: "GAS", Hash: "h1"}, Args: []eval.Value{}},
		&eval.CapToken{Name: eval.FullyQualifiedName{Module: mn, Name: "TRANSFER"}, Args: []eval.Value{eval.String("a"), eval.String("b"), eval.NewDecimal(eval.NewInt(1), 0)}},
		&eval.Table{Name: "accounts", Module: mn, Hash: "abc", Schema: *schema},
		&eval.Table{Name: "wrapped", Module: root, Hash: "", Schema: withObj},
		eval.List{&eval.Table{Name: "empty", Module: root, Schema: eval.Schema{Name: eval.QualifiedName{Module: root, Name: "s"}}}},
	}
}
