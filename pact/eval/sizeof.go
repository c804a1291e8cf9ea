package eval

import (
	"strings"

	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Byte-size estimates of values: P5's SizeOf (pact/Pact/Core/SizeOf.hs,
// version SizeOfV0), the "bytes" that writes, reads, show, hash, sort,
// make-list and the rest are charged by. It is an estimate of a CBOR
// encoding, not a serialisation: a text is its UTF-8 length + 4, an integer
// at least 8 bytes, a list or map 5 + its elements, a pair 1 + its parts, a
// record 1 + its fields, and a constructor of a type with several 2 + its
// fields. Field and constructor counts here are those of P5's Haskell types
// (PactValue, Literal, Guard, KeySet, ...), which is what makes the figures
// upstream's.

// sizeCounter counts bytes up to a budget; past it, over is set and counting
// stops (P5 raises ByteLimitExceeded at the first count past the limit).
type sizeCounter struct {
	n, budget uint64
	over      bool
}

func (c *sizeCounter) add(b uint64) {
	if c.over {
		return
	}
	c.n += b
	if c.n > c.budget {
		c.over = true
	}
}

func (c *sizeCounter) text(s string) { c.add(uint64(len(s)) + p5.SizeText) }

// namespace is a Maybe NamespaceName.
func (c *sizeCounter) maybeText(s string, present bool) {
	if present {
		c.add(p5.SizeADT)
		c.text(s)
		return
	}
	c.add(p5.SizeADT)
}

func (c *sizeCounter) moduleName(m value.ModuleName) {
	c.add(p5.SizeTag)
	c.text(m.Name)
	c.maybeText(m.Namespace, m.Namespace != "")
}

func (c *sizeCounter) qualName(q value.QualifiedName) {
	c.add(p5.SizeTag)
	c.text(q.Name)
	c.moduleName(q.Module)
}

// hash is a ModuleHash given as unpadded base64url text: its decoded length
// + 4.
func (c *sizeCounter) hash(h string) { c.add(uint64(len(h))*3/4 + p5.SizeText) }

func (c *sizeCounter) fqn(f value.FullyQualifiedName) {
	c.add(p5.SizeTag)
	c.moduleName(f.Module)
	c.text(f.Name)
	c.hash(f.Hash)
}

func (c *sizeCounter) values(vs []value.Value) {
	c.add(p5.SizeArray)
	for _, v := range vs {
		if c.over {
			return
		}
		c.value(v)
	}
}

// value sizes a PactValue: a constructor of PactValue (2) and its field.
func (c *sizeCounter) value(v value.Value) {
	c.add(p5.SizeADT)
	switch v := v.(type) {
	case value.String:
		c.add(p5.SizeADT) // PLiteral (LString s)
		c.text(string(v))
	case value.Integer:
		c.add(p5.SizeADT + p5.IntSize(v))
	case value.Decimal:
		// LDecimal (Decimal places mantissa): a two-field record.
		c.add(p5.SizeADT + p5.SizeTag + p5.SizeTag + p5.IntSize(v.Mantissa()))
	case value.Unit:
		c.add(p5.SizeADT)
	case value.Bool:
		c.add(p5.SizeADT + p5.SizeTag)
	case value.Time:
		c.add(p5.SizeTime)
	case value.List:
		c.values(v)
	case *value.Object:
		c.fields(v)
	case value.Guard:
		c.guard(v)
	case *value.ModRef:
		c.add(p5.SizeTag)
		c.moduleName(v.Module)
		c.add(p5.SizeArray)
		for _, m := range v.Implemented {
			c.moduleName(m)
		}
	case *value.CapToken:
		c.capToken(v)
	case *value.Table:
		c.add(p5.SizeTag)
		c.add(p5.SizeTag) // TableName
		c.text(v.Name)
		c.moduleName(v.Module)
		c.hash(v.Hash)
		c.schema(&v.Schema)
	}
}

// fields sizes a Map Field PactValue: the map overhead and a pair per field.
func (c *sizeCounter) fields(o *value.Object) {
	c.add(p5.SizeArray)
	for i, k := range o.Keys() {
		if c.over {
			return
		}
		c.add(p5.SizeTag)
		c.text(k)
		c.value(o.Values()[i])
	}
}

func (c *sizeCounter) capToken(t *value.CapToken) {
	c.add(p5.SizeTag)
	c.fqn(t.Name)
	c.values(t.Args)
}

func (c *sizeCounter) guard(g value.Guard) {
	c.add(p5.SizeADT)
	c.guardBody(g)
}

// guardBody sizes the guard inside its Guard constructor.
func (c *sizeCounter) guardBody(g value.Guard) {
	switch g := g.(type) {
	case *value.KeySet:
		c.keySet(g)
	case *value.KeySetRef:
		c.add(p5.SizeTag)
		c.text(g.Name)
		c.maybeText(g.Namespace, g.Namespace != "")
	case *value.UserGuard:
		c.add(p5.SizeTag)
		c.qualName(g.Fun)
		c.values(g.Args)
	case *value.CapabilityGuard:
		c.add(p5.SizeTag)
		c.qualName(g.Name)
		c.values(g.Args)
		c.maybeText(g.PactID, g.HasPactID)
	case *value.ModuleGuard:
		c.add(p5.SizeTag)
		c.moduleName(g.Module)
		c.text(g.Name)
	case *value.PactGuard:
		c.add(p5.SizeTag)
		c.text(g.PactID)
		c.text(g.Name)
	}
}

func (c *sizeCounter) keySet(k *value.KeySet) {
	c.add(p5.SizeTag + p5.SizeArray)
	for _, key := range k.Keys {
		c.text(key)
	}
	c.predicate(k.Pred)
}

// predicate sizes a KSPredicate: the built-in ones are field-less
// constructors; a custom one holds its parsed name (TQN or TBN).
func (c *sizeCounter) predicate(p string) {
	switch p {
	case value.KeysAll, value.KeysAny, "keys-2":
		c.add(p5.SizeADT)
		return
	}
	c.add(p5.SizeADT + p5.SizeADT) // CustomPredicate, then TQN or TBN
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		c.text(p) // TBN (BareName)
		return
	}
	mod := p[:i]
	m := value.ModuleName{Name: mod}
	if j := strings.IndexByte(mod, '.'); j >= 0 {
		m = value.ModuleName{Namespace: mod[:j], Name: mod[j+1:]}
	}
	c.qualName(value.QualifiedName{Module: m, Name: p[i+1:]})
}

func (c *sizeCounter) schema(s *value.Schema) {
	c.add(p5.SizeTag)
	c.qualName(s.Name)
	c.add(p5.SizeArray)
	for i := range s.Fields {
		c.add(p5.SizeTag)
		c.text(s.Fields[i].Name)
		c.typ(&s.Fields[i].Type)
	}
}

func (c *sizeCounter) typ(t *value.Type) {
	c.add(p5.SizeADT)
	switch t.Kind {
	case value.TyPrim:
		c.add(p5.SizeTag)
	case value.TyList:
		c.typ(t.Elem)
	case value.TyModRef:
		c.add(p5.SizeArray)
		for _, m := range t.ModRefs {
			c.moduleName(m)
		}
	case value.TyObject, value.TyTable:
		if t.Schema != nil {
			c.schema(t.Schema)
		}
	}
}

// sizeOf is P5's sizeOf of a value against the gas left: the estimate,
// or, when counting would pass what the remaining gas can pay for at
// SizeOfBytePenalty per byte, the charge of the bytes counted so far (which
// fails with GasExceeded).
func (in *Interp) sizeOf(v value.Value) (uint64, error) {
	c := sizeCounter{budget: in.Gas.SizeBudget()}
	c.value(v)
	return c.result(in)
}

// sizeOfFields is sizeOf of a row (a Map Field PactValue, without the
// PObject constructor), as database reads and writes measure rows.
func (in *Interp) sizeOfFields(o *value.Object) (uint64, error) {
	c := sizeCounter{budget: in.Gas.SizeBudget()}
	c.fields(o)
	return c.result(in)
}

func (c *sizeCounter) result(in *Interp) (uint64, error) {
	if !c.over {
		return c.n, nil
	}
	if err := in.chargeConst(gasMul(c.n, in.Gas.Config().SizeOfBytePenalty)); err != nil {
		return 0, err
	}
	return c.n, nil
}

// pactExec sizes a DefPactExec (or, nested, a NestedDefPactExec, which has
// no step-has-rollback field), as a completed defpact step's write is
// charged.
func (c *sizeCounter) pactExec(p *PactExec, nested bool) {
	c.add(p5.SizeTag + p5.SizeInt)
	c.yield(p.Yield)
	c.add(p5.SizeInt)
	c.text(p.PactID)
	c.add(p5.SizeTag) // DefPactContinuation
	c.qualName(p.Def.QualName())
	c.values(p.Args)
	if !nested {
		c.add(p5.SizeTag) // Bool
	}
	c.add(p5.SizeArray)
	for id, n := range p.Nested {
		c.add(p5.SizeTag)
		c.text(id)
		c.pactExec(n, true)
	}
}

// yield sizes a Maybe Yield: its data, its provenance (target chain and
// module hash) and its source chain, both present only across chains.
func (c *sizeCounter) yield(y *Yield) {
	c.add(p5.SizeADT)
	if y == nil {
		return
	}
	c.add(p5.SizeTag)
	c.fields(y.Data)
	if y.HasTarget {
		c.add(p5.SizeADT + p5.SizeTag)
		c.text(y.TargetChain)
		c.hash(y.ModuleHash)
		c.add(p5.SizeADT)
		c.text(y.SourceChain)
	} else {
		c.add(p5.SizeADT + p5.SizeADT)
	}
}

// sizeOfPactExec is sizeOf of a defpact state.
func (in *Interp) sizeOfPactExec(p *PactExec) (uint64, error) {
	c := sizeCounter{budget: in.Gas.SizeBudget()}
	c.pactExec(p, false)
	return c.result(in)
}

// sizeOfKeySet is sizeOf of a KeySet (not wrapped as a guard or a value),
// as define-keyset's write is charged.
func (in *Interp) sizeOfKeySet(k *value.KeySet) (uint64, error) {
	c := sizeCounter{budget: in.Gas.SizeBudget()}
	c.keySet(k)
	return c.result(in)
}

// sizeOfNamespace is sizeOf of a Namespace record: its name and its two
// guards.
func (in *Interp) sizeOfNamespace(ns *Namespace) (uint64, error) {
	c := sizeCounter{budget: in.Gas.SizeBudget()}
	c.add(p5.SizeTag)
	c.text(ns.Name)
	for _, g := range []value.Value{ns.User, ns.Admin} {
		if g, ok := g.(value.Guard); ok {
			c.guard(g)
		}
	}
	return c.result(in)
}
