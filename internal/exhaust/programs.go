package exhaust

import (
	"fmt"
	"strings"
)

// Outcome is what a bounded server must answer to a program.
type Outcome int

const (
	// Fails: the command must get a failure result (out of gas, an
	// evaluation budget, a result size cap) whatever the gas it was
	// given. Succeeding means a bound is missing.
	Fails Outcome = iota
	// Bounded: the program is a legitimate computation of modest size
	// (upstream charges it a fair amount of gas and its result is a few
	// hundred kilobytes), so a success is allowed; it must still be
	// answered in time and within the memory bound.
	Bounded
)

// Program is one resource-exhaustion program.
type Program struct {
	// Name is short, for subtest names and reports.
	Name string
	// Code is the Pact code of an exec command.
	Code string
	// Want is what a bounded server answers.
	Want Outcome
	// Why says what the program attacks, for failure messages.
	Why string
	// TableGas, for Bounded programs, is what Pact 5's table model
	// charges for them (measured with env-gasmodel "table"): a server
	// that meters them must charge at least this much.
	TableGas int64
}

// mapEnumerate is the program of issue 14: N lists of N+1 integers, 2N+2
// gas under the old flat model.
func mapEnumerate(n int) string {
	return fmt.Sprintf("(map (lambda (x) (enumerate 0 %d)) (enumerate 0 %d))", n, n-1)
}

// doubling is a string of len(seed) * 2^times characters built by
// concatenation.
func doubling(seed string, times int) string {
	return fmt.Sprintf(`(fold (lambda (s i) (+ s s)) %q (enumerate 1 %d))`, seed, times)
}

// dagList is a list nested 64 deep in which each level holds the level
// below twice: 64 list literals of two elements to build, 2^64 leaves to
// write out. Nothing in evaluation pays for the size of the value, only
// encoding it does.
const dagList = `(fold (lambda (l i) [l l]) [] (enumerate 1 64))`

// Programs are the resource-exhaustion programs, cheapest to answer first.
var Programs = []Program{
	{Name: "map-enumerate-10000", Code: mapEnumerate(10000), Want: Fails,
		Why: "10^8 list elements for 2N+2 gas under the old flat model (issue 14: 10 GB, no answer)"},
	{Name: "map-enumerate-1000", Code: mapEnumerate(1000), Want: Fails,
		Why: "10^6 list elements for 8,292 gas under the table model: a result of about 5 MB (issue 14: a 12 MB poll answer)"},
	{Name: "map-enumerate-300", Code: mapEnumerate(300), Want: Bounded, TableGas: 808,
		Why: "90,300 integers, 808 gas under the table model as upstream charges; about 1.1 MB of JSON ({\"int\":n} each)"},
	{Name: "string-doubling", Code: doubling("ab", 64), Want: Fails,
		Why: "64 concatenations doubling a string: 2^65 characters"},
	{Name: "fold-objects", Code: `(fold (lambda (o i) (+ {"l": o, "r": o, "i": i} o)) {"seed": true} (enumerate 1 64))`,
		Want: Fails,
		Why:  "merging ever bigger objects: each step holds the previous object twice, 2^64 objects to encode"},
	{Name: "deep-map-nesting", Want: Fails,
		Code: `(map (lambda (a) (map (lambda (b) (map (lambda (c) (enumerate 0 100)) (enumerate 0 100))) (enumerate 0 100))) (enumerate 0 100))`,
		Why:  "maps of maps of enumerates: 101^4, about 10^8 elements"},
	{Name: "str-to-list", Code: "(str-to-list " + doubling("ab", 20) + ")", Want: Fails,
		Why: "a 2 MB string built by concatenation exploded into one-character strings"},
	{Name: "format-big-lists", Code: `(format "{} {}" [(enumerate 0 1000000) (enumerate 0 1000000)])`, Want: Fails,
		Why: "rendering two million-element lists into one string"},
	{Name: "make-list-of-make-list", Code: `(make-list 2000 (make-list 2000 "abcdefghij"))`, Want: Fails,
		Why: "4 million strings, shared, built for little gas: a 52 MB result"},
	{Name: "dag-list", Code: dagList, Want: Fails,
		Why: "a list holding its predecessor twice, 64 levels: cheap to build, 2^64 leaves to encode"},
	{Name: "many-forms", Code: strings.Repeat("(fold (lambda (a x) (+ a (* x x))) 0 (enumerate 0 1999999))\n", 20),
		Want: Fails,
		Why:  "20 top-level forms, each within a per-form budget, 20 times the work of one"},
	{Name: "dag-type-error", Code: "(if " + dagList + " 1 2)", Want: Fails,
		Why: "a type error whose message shows the offending value: 2^64 leaves to render"},
}

// Named returns the program called name; it panics on an unknown name (a
// test bug).
func Named(name string) Program {
	for _, p := range Programs {
		if p.Name == name {
			return p
		}
	}
	panic("exhaust: no program " + name)
}

// Trivial is the request that must keep being answered while heavy ones
// run.
const Trivial = "(+ 1 2)"
