package eval

import (
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The compiled form of Pact code: the syntax tree with names resolved
// (locals to frame slots, module members to their *Def, natives to their
// table entry) and special forms recognised. Evaluation walks this tree.

type node interface{ span() syntax.Span }

type (
	nConst struct {
		v   value.Value
		loc syntax.Span
		// lits are the lengths of the list literals folded into v, in the
		// order P5 evaluates (and charges) them.
		lits []int32
	}
	// nLocal is a variable: up frames out, slot idx.
	nLocal struct {
		up, idx int
		name    string
		loc     syntax.Span
	}
	nDef struct {
		def *Def
		loc syntax.Span
	}
	// nModRef is a module named as a value; resolved when evaluated so that
	// it sees upgrades.
	nModRef struct {
		mod value.ModuleName
		loc syntax.Span
	}
	nNative struct {
		n   *Native
		loc syntax.Span
	}
	// nDyn is ref::member.
	nDyn struct {
		ref    node
		member string
		loc    syntax.Span
	}
	nApp struct {
		fn   node
		args []node
		loc  syntax.Span
		// plain is fn's native when the call needs none of evalApp's
		// general cases: an eager native that lends its argument list,
		// given an argument count within its bounds, callable anywhere.
		// eval calls it by callPlain.
		plain *Native
	}
	nList struct {
		elems []node
		loc   syntax.Span
	}
	// nObject is an object literal. Its keys are sorted and made unique
	// at compile time (shared by every object it builds: objects never
	// modify their key slice); pos[i] is where the i-th written field goes,
	// so a repeated key keeps its last value, as Map.fromList does.
	nObject struct {
		keys []string
		pos  []int
		vals []node
		loc  syntax.Span
	}
	nLambda struct {
		params []Param
		body   []node
		loc    syntax.Span
	}
	// nLet binds its values in one new frame, in order; each value sees
	// the ones before it (P5 desugars let into nested lets).
	nLet struct {
		params []Param
		vals   []node
		body   []node
		loc    syntax.Span
		// frameFree says neither vals nor body keeps a reference to the
		// let's frame (keepsFrame), so that it may be given back.
		frameFree bool
	}
	nSpecial struct {
		form resolve.Form
		// condClause marks an if made from a cond clause (coverage counts
		// the cond's branches, not the ifs').
		condClause bool
		args       []node
		loc        syntax.Span
	}
	// nBinding is a binding form {"k" := v ...} body: a function of one
	// object that binds the fields in a new frame and runs the body.
	nBinding struct {
		fields []string
		params []Param
		body   []node
		loc    syntax.Span
		// frameFree says body keeps no reference to the binding's frame
		// (keepsFrame), so that it may be given back.
		frameFree bool
	}
)

func (n *nConst) span() syntax.Span   { return n.loc }
func (n *nLocal) span() syntax.Span   { return n.loc }
func (n *nDef) span() syntax.Span     { return n.loc }
func (n *nModRef) span() syntax.Span  { return n.loc }
func (n *nNative) span() syntax.Span  { return n.loc }
func (n *nDyn) span() syntax.Span     { return n.loc }
func (n *nApp) span() syntax.Span     { return n.loc }
func (n *nList) span() syntax.Span    { return n.loc }
func (n *nObject) span() syntax.Span  { return n.loc }
func (n *nLambda) span() syntax.Span  { return n.loc }
func (n *nLet) span() syntax.Span     { return n.loc }
func (n *nSpecial) span() syntax.Span { return n.loc }
func (n *nBinding) span() syntax.Span { return n.loc }

// sfInvalid is a special form applied wrongly, not one of package
// resolve's: evaluating it fails with the message in its one constant
// argument (P5 reports these at run time, so expect-failure can catch
// them).
const sfInvalid = ^resolve.Form(0)

// env is a chain of frames of local variables.
type env struct {
	vals []value.Value
	up   *env
}

func (e *env) lookup(up, idx int) value.Value {
	for ; up > 0; up-- {
		e = e.up
	}
	return e.vals[idx]
}
