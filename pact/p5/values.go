package p5

import (
	"slices"

	"github.com/ledgernode/ledger-node/pact/value"
)

// The IR's encodings of values and types: how a module's types, literals
// and evaluated constants are written (Pact.Core.Serialise.CBOR_V1).

// primIndex is the constructor index of each primitive type in P5's
// PrimType (keyset is guard).
var primIndex = map[string]uint64{
	"integer": 0, "decimal": 1, "bool": 2, "string": 3, "guard": 4, "keyset": 4, "time": 5, "unit": 6,
}

// Type writes a Pact type as P5's Type.
func (w *Writer) Type(t *value.Type) {
	switch t.Kind {
	case value.TyPrim:
		w.Con(0, 1)
		w.Word(primIndex[t.Prim], SizeTag)
	case value.TyList:
		w.Con(1, 1)
		w.Type(t.Elem)
	case value.TyAnyList:
		w.Con(2, 0)
	case value.TyModRef:
		w.Con(3, 1)
		w.Array(len(t.ModRefs))
		for _, m := range t.ModRefs {
			w.ModuleName(m)
		}
	case value.TyObject:
		w.Con(4, 1)
		w.Schema(t.Schema)
	case value.TyAnyObject:
		w.Con(5, 0)
	case value.TyTable:
		w.Con(6, 1)
		w.Schema(t.Schema)
	case value.TyCapToken:
		w.Con(7, 0)
	default:
		w.Con(8, 0)
	}
}

// Schema writes a schema: its name and its fields.
func (w *Writer) Schema(s *value.Schema) {
	w.Rec(2)
	w.QualName(s.Name)
	w.Fields(s.Fields)
}

// Fields writes a schema's fields as a map of names to types.
func (w *Writer) Fields(fs []value.SchemaField) {
	w.MapHead(len(fs))
	for i := range fs {
		w.Entry()
		w.Text(fs[i].Name)
		w.Type(&fs[i].Type)
	}
}

// Literal writes a literal: a string, integer, decimal, unit or boolean.
func (w *Writer) Literal(v value.Value) {
	switch v := v.(type) {
	case value.String:
		w.Con(0, 1)
		w.Text(string(v))
	case value.Integer:
		w.Con(1, 1)
		w.Integer(v)
	case value.Decimal:
		w.Con(2, 1)
		w.Rec(2)
		w.Word(uint64(v.Places()), SizeTag)
		w.Integer(v.Mantissa())
	case value.Unit:
		w.Con(3, 0)
	case value.Bool:
		w.Con(4, 1)
		w.Boolean(bool(v))
	}
}

// PactValue writes a PactValue: what a module's evaluated constants are
// hashed and stored as. Values that are not Pact values (closures) fail.
func (w *Writer) PactValue(v value.Value) error {
	switch v := v.(type) {
	case value.String, value.Integer, value.Decimal, value.Unit, value.Bool:
		w.Con(0, 1)
		w.Literal(v)
	case value.List:
		w.Con(1, 1)
		w.Array(len(v))
		for _, e := range v {
			if err := w.PactValue(e); err != nil {
				return err
			}
		}
	case value.Guard:
		w.Con(2, 1)
		return w.Guard(v)
	case *value.Object:
		w.Con(3, 1)
		w.MapHead(v.Len())
		for i := 0; i < v.Len(); i++ {
			w.Entry()
			w.Text(v.Key(i))
			if err := w.PactValue(v.Val(i)); err != nil {
				return err
			}
		}
	case *value.ModRef:
		w.Con(4, 1)
		w.Rec(2)
		w.ModuleName(v.Module)
		w.Array(len(v.Implemented))
		for _, m := range v.Implemented {
			w.ModuleName(m)
		}
	case *value.CapToken:
		w.Con(5, 1)
		w.Rec(2)
		hb, _ := value.DecodeBase64URL(v.Name.Hash)
		w.FQN(v.Name.Module, v.Name.Name, hb)
		return w.PactValues(v.Args)
	case value.Time:
		w.Con(6, 1)
		w.Time(v.MjdMicros())
	case *value.Table:
		w.Con(7, 1)
		w.Rec(3)
		w.Rec(2)
		w.Text(v.Name)
		w.ModuleName(v.Module)
		hb, _ := value.DecodeBase64URL(v.Hash)
		w.Hash(hb)
		s := v.Schema
		w.Schema(&s)
	default:
		return value.EvalError("module hash: a constant's value cannot be serialised: " + v.String())
	}
	return nil
}

// PactValues writes a Haskell list of PactValues.
func (w *Writer) PactValues(vs []value.Value) error {
	return w.HList(len(vs), func(i int) error { return w.PactValue(vs[i]) })
}

// Guard writes a guard.
func (w *Writer) Guard(g value.Guard) error {
	switch g := g.(type) {
	case *value.KeySet:
		w.Con(0, 1)
		w.Rec(2)
		keys := slices.Clone(g.Keys)
		slices.Sort(keys)
		keys = slices.Compact(keys)
		w.Array(len(keys))
		for _, k := range keys {
			w.Text(k)
		}
		switch g.Pred {
		case value.KeysAll, "":
			w.Con(0, 0)
		case value.Keys2:
			w.Con(1, 0)
		case value.KeysAny:
			w.Con(2, 0)
		default:
			w.Con(3, 1)
			if q, ok := value.ParseQualifiedName(g.Pred); ok {
				w.Con(0, 1)
				w.QualName(q)
			} else {
				w.Con(1, 1)
				w.Text(g.Pred)
			}
		}
	case *value.KeySetRef:
		w.Con(1, 1)
		w.Rec(2)
		w.Text(g.Name)
		w.Maybe(g.Namespace != "", func() { w.Text(g.Namespace) })
	case *value.UserGuard:
		w.Con(2, 1)
		w.Rec(2)
		w.QualName(g.Fun)
		return w.PactValues(g.Args)
	case *value.CapabilityGuard:
		w.Con(3, 1)
		w.Rec(3)
		w.QualName(g.Name)
		if err := w.PactValues(g.Args); err != nil {
			return err
		}
		w.Maybe(g.HasPactID, func() { w.Text(g.PactID) })
	case *value.ModuleGuard:
		w.Con(4, 1)
		w.Rec(2)
		w.ModuleName(g.Module)
		w.Text(g.Name)
	case *value.PactGuard:
		w.Con(5, 1)
		w.Rec(2)
		w.Text(g.PactID)
		w.Text(g.Name)
	default:
		return value.EvalError("module hash: unknown guard")
	}
	return nil
}
