package eval

// Evaluation makes many small objects that mostly die with the
// application that made them: argument lists, call frames, capability
// tokens. A coin transfer made about 200 of them, one allocation each.
// arena cuts them from chunks instead, so that a transfer allocates a few
// chunks.
//
// Nothing is ever reused: an object cut from a chunk is the caller's for
// good, exactly as if it had been allocated alone (a closure may keep its
// frame, a partial application its arguments, a capability token may be
// stored). The price is that a kept object keeps its whole chunk alive;
// chunks are a few kilobytes, and what is kept beyond a transaction (a
// module's constants) is small and bounded.
type arena struct {
	vals   []Value
	frames []smallFrame
	pairs  []pairFrame
	tokens []CapToken
}

const (
	valueChunk = 128 // values per chunk (2 KiB)
	frameChunk = 32  // frames per chunk (3 KiB)
	pairChunk  = 48  // two-value frames per chunk (3 KiB)
	tokenChunk = 32  // capability tokens per chunk
)

// values returns a zeroed slice of n values whose capacity is n, so that
// appending to it never writes into a neighbour's values.
func (a *arena) values(n int) []Value {
	if n > valueChunk/8 {
		return make([]Value, n)
	}
	if len(a.vals) < n {
		a.vals = make([]Value, valueChunk)
	}
	s := a.vals[:n:n]
	a.vals = a.vals[n:]
	return s
}

// frame returns a zeroed call frame for n values, at most
// len(smallFrame{}.buf): its vals are n long, with capacity n. Most frames
// hold one or two values and come from chunks of two-value frames, a
// third smaller than the others.
func (a *arena) frame(n int) *env {
	if n <= len(pairFrame{}.buf) {
		if len(a.pairs) == 0 {
			a.pairs = make([]pairFrame, pairChunk)
		}
		f := &a.pairs[0]
		a.pairs = a.pairs[1:]
		f.vals = f.buf[:n:n]
		return &f.env
	}
	if len(a.frames) == 0 {
		a.frames = make([]smallFrame, frameChunk)
	}
	f := &a.frames[0]
	a.frames = a.frames[1:]
	f.vals = f.buf[:n:n]
	return &f.env
}

// capToken returns a zeroed capability token.
func (a *arena) capToken() *CapToken {
	if len(a.tokens) == 0 {
		a.tokens = make([]CapToken, tokenChunk)
	}
	t := &a.tokens[0]
	a.tokens = a.tokens[1:]
	return t
}
