package eval

import (
	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The sizes P5's SizeOf gives values and the interpreter's records, as the
// evaluation charges them: package p5's SizeCounter counts, these say what
// is counted and charge past the gas left.

// sizeOf is P5's sizeOf of a value against the gas left: the estimate,
// or, when counting would pass what the remaining gas can pay for at
// SizeOfBytePenalty per byte, the charge of the bytes counted so far (which
// fails with GasExceeded).
func (in *Interp) sizeOf(v value.Value) (uint64, error) {
	c := p5.NewSizeCounter(in.Gas.SizeBudget())
	c.Value(v)
	return sizeResult(in, &c)
}

// sizeOfFields is sizeOf of a row (a Map Field PactValue, without the
// PObject constructor), as database reads and writes measure rows.
func (in *Interp) sizeOfFields(o *value.Object) (uint64, error) {
	c := p5.NewSizeCounter(in.Gas.SizeBudget())
	c.Fields(o)
	return sizeResult(in, &c)
}

// sizeResult is what c counted; past its budget, the bytes counted are
// charged first, at SizeOfBytePenalty each (which fails with GasExceeded).
func sizeResult(in *Interp, c *p5.SizeCounter) (uint64, error) {
	n, over := c.Count()
	if !over {
		return n, nil
	}
	if err := in.chargeConst(gasMul(n, in.Gas.Config().SizeOfBytePenalty)); err != nil {
		return 0, err
	}
	return n, nil
}

// sizePactExec sizes a DefPactExec (or, nested, a NestedDefPactExec, which has
// no step-has-rollback field), as a completed defpact step's write is
// charged.
func sizePactExec(c *p5.SizeCounter, p *PactExec, nested bool) {
	c.Add(p5.SizeTag + p5.SizeInt)
	sizeYield(c, p.Yield)
	c.Add(p5.SizeInt)
	c.Text(p.PactID)
	c.Add(p5.SizeTag) // DefPactContinuation
	c.QualName(p.Def.QualName())
	c.Values(p.Args)
	if !nested {
		c.Add(p5.SizeTag) // Bool
	}
	c.Add(p5.SizeArray)
	for id, n := range p.Nested {
		c.Add(p5.SizeTag)
		c.Text(id)
		sizePactExec(c, n, true)
	}
}

// sizeYield sizes a Maybe Yield: its data, its provenance (target chain and
// module hash) and its source chain, both present only across chains.
func sizeYield(c *p5.SizeCounter, y *Yield) {
	c.Add(p5.SizeADT)
	if y == nil {
		return
	}
	c.Add(p5.SizeTag)
	c.Fields(y.Data)
	if y.HasTarget {
		c.Add(p5.SizeADT + p5.SizeTag)
		c.Text(y.TargetChain)
		c.Hash(y.ModuleHash)
		c.Add(p5.SizeADT)
		c.Text(y.SourceChain)
	} else {
		c.Add(p5.SizeADT + p5.SizeADT)
	}
}

// sizeOfPactExec is sizeOf of a defpact state.
func (in *Interp) sizeOfPactExec(p *PactExec) (uint64, error) {
	c := p5.NewSizeCounter(in.Gas.SizeBudget())
	sizePactExec(&c, p, false)
	return sizeResult(in, &c)
}

// sizeOfKeySet is sizeOf of a KeySet (not wrapped as a guard or a value),
// as define-keyset's write is charged.
func (in *Interp) sizeOfKeySet(k *value.KeySet) (uint64, error) {
	c := p5.NewSizeCounter(in.Gas.SizeBudget())
	c.KeySet(k)
	return sizeResult(in, &c)
}

// sizeOfNamespace is sizeOf of a Namespace record: its name and its two
// guards.
func (in *Interp) sizeOfNamespace(ns *Namespace) (uint64, error) {
	c := p5.NewSizeCounter(in.Gas.SizeBudget())
	c.Add(p5.SizeTag)
	c.Text(ns.Name)
	for _, g := range []value.Value{ns.User, ns.Admin} {
		if g, ok := g.(value.Guard); ok {
			c.Guard(g)
		}
	}
	return sizeResult(in, &c)
}
