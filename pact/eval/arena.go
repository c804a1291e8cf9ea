package eval

import "github.com/ledgernode/ledger-node/pact/value"

// Evaluation makes many small objects that mostly die with the
// application that made them: argument lists, call frames, capability
// tokens. A coin transfer made about 200 of them, one allocation each.
// arena cuts them from chunks instead, so that a transfer allocates a few
// chunks.
//
// Nothing is reused, the frames of calls that nothing can keep excepted
// (giveBack): an object cut from a chunk is the caller's for good, exactly
// as if it had been allocated alone (a closure may keep its
// frame, a partial application its arguments, a capability token may be
// stored). The price is that a kept object keeps its whole chunk alive;
// chunks are a few kilobytes, and what is kept beyond a transaction (a
// module's constants) is small and bounded.
//
// That holds while the objects of a chunk point at nothing cut much
// earlier: a dead object in a live chunk still holds what it points at,
// so objects that point at each other across chunks can hold a chain of
// older chunks without end. Compiled nodes did (an application's
// argument list is in another chunk, which holds older applications), and
// are allocated one by one for that; pact/contracts'
// TestTransfersKeepNoMemory runs twenty thousand transfers in one
// interpreter and fails if the heap grows.
type arena struct {
	vals    []value.Value
	frames  []smallFrame
	pairs   []pairFrame
	tokens  []value.CapToken
	objects value.ObjectCells
	binds   []bindFn
	mcaps   []managedCap
	// freeFrames and freePairs are call frames given back (giveBack),
	// zeroed, for the next calls.
	freeFrames []*smallFrame
	freePairs  []*pairFrame
	// freeEnvs are bare frames given back (giveBackEnv): the frames of
	// defcap bodies, whose values are their token's arguments.
	freeEnvs []*env
	// decimals are decimals recently made into Values (decimal).
	decimals *decimalBoxes
}

const (
	valueChunk = 128 // values per chunk (2 KiB)
	frameChunk = 32  // frames per chunk (3 KiB)
	pairChunk  = 48  // two-value frames per chunk (3 KiB)
	tokenChunk = 32  // capability tokens per chunk
	smallChunk = 32  // bindings' closures, managed caps per chunk
)

// values returns a zeroed slice of n values whose capacity is n, so that
// appending to it never writes into a neighbour's values.
func (a *arena) values(n int) []value.Value {
	if n > valueChunk/8 {
		return make([]value.Value, n)
	}
	if len(a.vals) < n {
		a.vals = make([]value.Value, valueChunk)
	}
	s := a.vals[:n:n]
	a.vals = a.vals[n:]
	return s
}

// one is the argument list [v], cut from the arena.
func (in *Interp) one(v value.Value) []value.Value {
	l := in.alloc.values(1)
	l[0] = v
	return l
}

// frame returns a zeroed call frame for n values, at most
// len(smallFrame{}.buf): its vals are n long, with capacity n. Most frames
// hold one or two values and come from chunks of two-value frames, a
// third smaller than the others.
func (a *arena) frame(n int) *env {
	if n <= len(pairFrame{}.buf) {
		f := cut(&a.pairs, pairChunk)
		f.vals = f.buf[:n:n]
		return &f.env
	}
	f := cut(&a.frames, frameChunk)
	f.vals = f.buf[:n:n]
	return &f.env
}

// callFrame is a call frame that may be given back (giveBack): its env
// is one of them.
type callFrame struct {
	pair  *pairFrame
	small *smallFrame
}

// callFrame returns a zeroed frame for n values, as frame does, a given
// back one first.
func (a *arena) callFrame(n int) (*env, callFrame) {
	if n <= len(pairFrame{}.buf) {
		f := reuse(&a.freePairs, &a.pairs, pairChunk)
		f.vals = f.buf[:n:n]
		return &f.env, callFrame{pair: f}
	}
	f := reuse(&a.freeFrames, &a.frames, frameChunk)
	f.vals = f.buf[:n:n]
	return &f.env, callFrame{small: f}
}

// reuse returns the last object given back to free, or else the next one
// cut from chunk.
func reuse[T any](free *[]*T, chunk *[]T, size int) *T {
	if k := len(*free); k > 0 {
		t := (*free)[k-1]
		*free = (*free)[:k-1]
		return t
	}
	return cut(chunk, size)
}

// giveBack takes back a frame nothing refers to any more: the frame of a
// call of a function whose body keeps no reference to it (Def.frameFree),
// once the call has returned.
func (a *arena) giveBack(f callFrame) {
	if f.pair != nil {
		*f.pair = pairFrame{}
		a.freePairs = append(a.freePairs, f.pair)
		return
	}
	*f.small = smallFrame{}
	a.freeFrames = append(a.freeFrames, f.small)
}

// envOver returns a frame whose values are vals, a given-back one first:
// a frame that shares its values with something else (a capability
// token's arguments), so that only the frame itself is reused.
func (a *arena) envOver(vals []value.Value) *env {
	if k := len(a.freeEnvs); k > 0 {
		e := a.freeEnvs[k-1]
		a.freeEnvs = a.freeEnvs[:k-1]
		e.vals = vals
		return e
	}
	return &env{vals: vals}
}

// giveBackEnv takes back a frame of envOver that nothing refers to any
// more (the body run in it is Def.frameFree), dropping its values.
func (a *arena) giveBackEnv(e *env) {
	*e = env{}
	a.freeEnvs = append(a.freeEnvs, e)
}

// capToken returns a zeroed capability token.
func (a *arena) capToken() *value.CapToken { return cut(&a.tokens, tokenChunk) }

// decimalBoxes is a small direct-mapped table of decimals already held in
// Values: making a Decimal (three words) a Value allocates, and the same
// amounts come back command after command (an amount's floor at 12 places,
// a gas fee and its refund). Values are immutable, so one boxed decimal
// serves every use.
type decimalBoxes [64]struct {
	d value.Decimal
	v value.Value
}

// decimal is d as a Value, the one already made for an equal decimal of
// the same places when the table has it.
func (a *arena) decimal(d value.Decimal) value.Value {
	if !d.Mantissa().IsSmall() {
		return d
	}
	if a.decimals == nil {
		a.decimals = new(decimalBoxes)
	}
	h := (uint64(d.Mantissa().Int64())*0x9e3779b97f4a7c15 + uint64(d.Places())) >> 58
	b := &a.decimals[h]
	if b.v != nil && b.d.Places() == d.Places() && b.d.Mantissa().Int64() == d.Mantissa().Int64() {
		return b.v
	}
	b.d, b.v = d, d
	return b.v
}

// object returns an object over keys (sorted and unique) and its values
// to fill in, zeroed: cut from a chunk when they fit a cell.
func (a *arena) object(keys []string) (*value.Object, []value.Value) { return a.objects.Object(keys) }

// cut returns the next zeroed object of chunk, a new chunk of size objects
// when it is used up.
func cut[T any](chunk *[]T, size int) *T {
	if len(*chunk) == 0 {
		*chunk = make([]T, size)
	}
	t := &(*chunk)[0]
	*chunk = (*chunk)[1:]
	return t
}
