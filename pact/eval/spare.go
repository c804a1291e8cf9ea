package eval

import (
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Spare is the memory an interpreter leaves to the next one: the arena's
// chunks as far as they are uncut, the frames given back, the lent stack
// and the top-level desugaring blocks. None of it is state of an
// evaluation. An object already cut from a chunk stays its holder's for
// good, and the next interpreter cuts only what is left; a given-back frame
// is zeroed and nothing refers to it; the lent stack is empty between
// applications; the desugarer's blocks are cleared when recycled. A node
// applies every command with an interpreter of its own, and each new one
// used to start from fresh chunks (see NewWith).
type Spare struct {
	alloc arena
	lent  []value.Value
	topDs resolve.Desugarer
}

// NewWith is New, the interpreter taking sp's memory (none when sp is nil)
// until Release gives it back.
func NewWith(d db.DB, sp *Spare) *Interp {
	in := New(d)
	if sp != nil {
		in.alloc, in.lent, in.topDs = sp.alloc, sp.lent[:0], sp.topDs
		*sp = Spare{}
		in.spare = sp
	}
	return in
}

// Release gives the interpreter's memory back, in the Spare it was made
// with (a new one if none), for NewWith. The interpreter must not evaluate
// again: it keeps none of that memory.
func (in *Interp) Release() *Spare {
	sp := in.spare
	if sp == nil {
		sp = new(Spare)
	}
	clear(in.lent[:cap(in.lent)])
	*sp = Spare{alloc: in.alloc, lent: in.lent[:0], topDs: in.topDs}
	in.alloc, in.lent, in.topDs, in.spare = arena{}, nil, resolve.Desugarer{}, nil
	return sp
}
