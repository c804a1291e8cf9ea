package p5

import (
	"strings"

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

// SizeCounter counts bytes up to a budget; past it, over is set and counting
// stops (P5 raises ByteLimitExceeded at the first count past the limit).
type SizeCounter struct {
	n, budget uint64
	over      bool
}

// NewSizeCounter is a counter that stops past budget bytes.
func NewSizeCounter(budget uint64) SizeCounter { return SizeCounter{budget: budget} }

// Count is the bytes counted and whether counting passed the budget.
func (c *SizeCounter) Count() (n uint64, over bool) { return c.n, c.over }

// Add counts b bytes.
func (c *SizeCounter) Add(b uint64) {
	if c.over {
		return
	}
	c.n += b
	if c.n > c.budget {
		c.over = true
	}
}

// Text counts a text: its UTF-8 length and the text overhead.
func (c *SizeCounter) Text(s string) { c.Add(uint64(len(s)) + SizeText) }

// namespace is a Maybe NamespaceName.
func (c *SizeCounter) maybeText(s string, present bool) {
	if present {
		c.Add(SizeADT)
		c.Text(s)
		return
	}
	c.Add(SizeADT)
}

func (c *SizeCounter) moduleName(m value.ModuleName) {
	c.Add(SizeTag)
	c.Text(m.Name)
	c.maybeText(m.Namespace, m.Namespace != "")
}

// QualName sizes a QualifiedName: its name and its module name.
func (c *SizeCounter) QualName(q value.QualifiedName) {
	c.Add(SizeTag)
	c.Text(q.Name)
	c.moduleName(q.Module)
}

// Hash is a ModuleHash given as unpadded base64url text: its decoded length
// + 4.
func (c *SizeCounter) Hash(h string) { c.Add(uint64(len(h))*3/4 + SizeText) }

func (c *SizeCounter) fqn(f value.FullyQualifiedName) {
	c.Add(SizeTag)
	c.moduleName(f.Module)
	c.Text(f.Name)
	c.Hash(f.Hash)
}

// Values sizes a list of PactValues.
func (c *SizeCounter) Values(vs []value.Value) {
	c.Add(SizeArray)
	for _, v := range vs {
		if c.over {
			return
		}
		c.Value(v)
	}
}

// Value sizes a PactValue: a constructor of PactValue (2) and its field.
func (c *SizeCounter) Value(v value.Value) {
	c.Add(SizeADT)
	switch v := v.(type) {
	case value.String:
		c.Add(SizeADT) // PLiteral (LString s)
		c.Text(string(v))
	case value.Integer:
		c.Add(SizeADT + IntSize(v))
	case value.Decimal:
		// LDecimal (Decimal places mantissa): a two-field record.
		c.Add(SizeADT + SizeTag + SizeTag + IntSize(v.Mantissa()))
	case value.Unit:
		c.Add(SizeADT)
	case value.Bool:
		c.Add(SizeADT + SizeTag)
	case value.Time:
		c.Add(SizeTime)
	case value.List:
		c.Values(v)
	case *value.Object:
		c.Fields(v)
	case value.Guard:
		c.Guard(v)
	case *value.ModRef:
		c.Add(SizeTag)
		c.moduleName(v.Module)
		c.Add(SizeArray)
		for _, m := range v.Implemented {
			c.moduleName(m)
		}
	case *value.CapToken:
		c.capToken(v)
	case *value.Table:
		c.Add(SizeTag)
		c.Add(SizeTag) // TableName
		c.Text(v.Name)
		c.moduleName(v.Module)
		c.Hash(v.Hash)
		c.schema(&v.Schema)
	}
}

// Fields sizes a Map Field PactValue: the map overhead and a pair per field.
func (c *SizeCounter) Fields(o *value.Object) {
	c.Add(SizeArray)
	for i, k := range o.Keys() {
		if c.over {
			return
		}
		c.Add(SizeTag)
		c.Text(k)
		c.Value(o.Values()[i])
	}
}

func (c *SizeCounter) capToken(t *value.CapToken) {
	c.Add(SizeTag)
	c.fqn(t.Name)
	c.Values(t.Args)
}

// Guard sizes a guard as a PactValue.
func (c *SizeCounter) Guard(g value.Guard) {
	c.Add(SizeADT)
	c.GuardBody(g)
}

// GuardBody sizes the guard inside its Guard constructor.
func (c *SizeCounter) GuardBody(g value.Guard) {
	switch g := g.(type) {
	case *value.KeySet:
		c.KeySet(g)
	case *value.KeySetRef:
		c.Add(SizeTag)
		c.Text(g.Name)
		c.maybeText(g.Namespace, g.Namespace != "")
	case *value.UserGuard:
		c.Add(SizeTag)
		c.QualName(g.Fun)
		c.Values(g.Args)
	case *value.CapabilityGuard:
		c.Add(SizeTag)
		c.QualName(g.Name)
		c.Values(g.Args)
		c.maybeText(g.PactID, g.HasPactID)
	case *value.ModuleGuard:
		c.Add(SizeTag)
		c.moduleName(g.Module)
		c.Text(g.Name)
	case *value.PactGuard:
		c.Add(SizeTag)
		c.Text(g.PactID)
		c.Text(g.Name)
	}
}

// KeySet sizes a KeySet record.
func (c *SizeCounter) KeySet(k *value.KeySet) {
	c.Add(SizeTag + SizeArray)
	for _, key := range k.Keys {
		c.Text(key)
	}
	c.predicate(k.Pred)
}

// predicate sizes a KSPredicate: the built-in ones are field-less
// constructors; a custom one holds its parsed name (TQN or TBN).
func (c *SizeCounter) predicate(p string) {
	switch p {
	case value.KeysAll, value.KeysAny, "keys-2":
		c.Add(SizeADT)
		return
	}
	c.Add(SizeADT + SizeADT) // CustomPredicate, then TQN or TBN
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		c.Text(p) // TBN (BareName)
		return
	}
	mod := p[:i]
	m := value.ModuleName{Name: mod}
	if j := strings.IndexByte(mod, '.'); j >= 0 {
		m = value.ModuleName{Namespace: mod[:j], Name: mod[j+1:]}
	}
	c.QualName(value.QualifiedName{Module: m, Name: p[i+1:]})
}

func (c *SizeCounter) schema(s *value.Schema) {
	c.Add(SizeTag)
	c.QualName(s.Name)
	c.Add(SizeArray)
	for i := range s.Fields {
		c.Add(SizeTag)
		c.Text(s.Fields[i].Name)
		c.typ(&s.Fields[i].Type)
	}
}

func (c *SizeCounter) typ(t *value.Type) {
	c.Add(SizeADT)
	switch t.Kind {
	case value.TyPrim:
		c.Add(SizeTag)
	case value.TyList:
		c.typ(t.Elem)
	case value.TyModRef:
		c.Add(SizeArray)
		for _, m := range t.ModRefs {
			c.moduleName(m)
		}
	case value.TyObject, value.TyTable:
		if t.Schema != nil {
			c.schema(t.Schema)
		}
	}
}
