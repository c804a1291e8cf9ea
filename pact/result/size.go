package result

import (
	"strconv"

	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Size bounds of results. A result's JSON can be far larger than the memory its values take:
// values are shared, so a list holding the same long string a million times, or nested
// lists that each hold their inner list twice, cost little gas and little memory, yet encode
// to megabytes or, for the nesting, to 2^depth copies. Whoever stores or serves a result
// checks its size first with Exceeds, which stops counting at the limit, and encodes it only
// when it fits.

// Exceeds reports whether the JSON of o's parts that grow with the program (its value, its
// events' parameters and its continuation's arguments and yield) certainly takes more than
// limit bytes. It counts a lower bound (strings and the digits of large numbers exactly,
// every other leaf as one byte) and stops as soon as the count passes limit, so its work is
// bounded by limit however the values are shared. A false answer does not mean the result
// fits: encode it and measure.
func Exceeds(o *Outcome, limit int) bool {
	c := count(o, limit)
	return c.over()
}

// count adds up o's size until it passes limit.
func count(o *Outcome, limit int) sizeCounter {
	c := sizeCounter{limit: limit}
	if o.Fail == nil && o.Value != nil {
		c.value(o.Value)
	}
	for _, ev := range o.Events {
		c.add(len(ev.Name.Name) + len(ev.Name.Module.Name) + len(ev.ModuleHash))
		for _, a := range ev.Args {
			c.value(a)
		}
	}
	if o.Pact != nil {
		c.pact(o.Pact)
	}
	return c
}

// sizeCounter adds up a lower bound of JSON bytes until it passes limit.
type sizeCounter struct {
	limit, n int
	visits   int // values looked at: each adds at least a byte, so at most limit+1 of them
}

func (c *sizeCounter) over() bool { return c.n > c.limit }

func (c *sizeCounter) add(k int) { c.n += k }

func (c *sizeCounter) value(v value.Value) {
	if c.over() {
		return
	}
	c.visits++
	switch x := v.(type) {
	case value.String:
		c.add(len(x) + 2)
	case value.List:
		c.add(2 + max(len(x)-1, 0)) // brackets and commas
		for _, e := range x {
			if c.over() {
				return
			}
			c.value(e)
		}
	case *value.Object:
		c.add(2 + max(x.Len()-1, 0))
		for i := range x.Len() {
			if c.over() {
				return
			}
			c.add(len(x.Key(i)) + 3) // quotes and colon
			c.value(x.Val(i))
		}
	case value.Integer:
		c.add(intDigits(x))
	case value.Decimal:
		c.add(intDigits(x.Mantissa()))
	case *value.KeySet:
		for _, k := range x.Keys {
			c.add(len(k) + 3)
		}
		c.add(len(x.Pred))
	case *value.UserGuard:
		c.list(x.Args)
	case *value.CapabilityGuard:
		c.list(x.Args)
	default:
		c.add(1)
	}
}

func (c *sizeCounter) list(vs []value.Value) {
	for _, v := range vs {
		if c.over() {
			return
		}
		c.value(v)
	}
}

func (c *sizeCounter) pact(pe *eval.PactExec) {
	c.add(len(pe.PactID) * 2)
	c.list(pe.Args)
	if pe.Yield != nil && pe.Yield.Data != nil {
		c.value(pe.Yield.Data)
	}
	for _, n := range pe.Nested {
		if c.over() {
			return
		}
		c.pact(n)
	}
}

// intDigits is a lower bound of the decimal digits of i: one for a machine-size integer,
// floor(bits × 0.3) for a larger one (log10 2 ≈ 0.30103).
func intDigits(i value.Integer) int {
	if i.IsSmall() {
		return 1
	}
	return max(i.Big().BitLen()*3/10, 1)
}

// TooLargeText is the message of a command failed for the size of its result.
func TooLargeText(limit int) string {
	return "Result too large: a command's result may take at most " + strconv.Itoa(limit) + " bytes"
}
