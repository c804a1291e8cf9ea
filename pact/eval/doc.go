package eval

import (
	"strings"
	"unicode/utf8"
)

// A minimal port of the parts of Haskell's prettyprinter that P5's REPL
// rendering of values goes through. Guards are printed with `encloseSep`
// and `list`, which break lines when a value does not fit the 80-column
// page of `layoutPretty defaultLayoutOptions`; a long keyset therefore
// prints over two lines in the REPL, and we reproduce that exactly.
//
// Only the constructors our values use exist here. There is no nesting:
// P5's value documents never indent.

type doc interface{ isDoc() }

type (
	dText    string
	dLine    struct{}                   // a hard line break
	dFlatAlt struct{ broken, flat doc } // `broken` normally, `flat` once flattened
	dCat     struct{ a, b doc }
	dUnion   struct{ flat, broken doc } // a group's two layouts
	dFail    struct{}
)

func (dText) isDoc()    {}
func (dLine) isDoc()    {}
func (dFlatAlt) isDoc() {}
func (dCat) isDoc()     {}
func (dUnion) isDoc()   {}
func (dFail) isDoc()    {}

const pageWidth = 80

func cat(ds ...doc) doc {
	var out doc = dText("")
	for i, d := range ds {
		if i == 0 {
			out = d
			continue
		}
		out = dCat{out, d}
	}
	return out
}

// lineBreak is prettyprinter's line': a newline, or nothing when grouped
// onto one line.
var lineBreak doc = dFlatAlt{dLine{}, dText("")}

func flatten(d doc) doc {
	switch x := d.(type) {
	case dFlatAlt:
		return flatten(x.flat)
	case dLine:
		return dFail{}
	case dUnion:
		return flatten(x.flat)
	case dCat:
		return dCat{flatten(x.a), flatten(x.b)}
	}
	return d
}

func group(d doc) doc { return dUnion{flatten(d), d} }

// encloseSep is prettyprinter's: l d1 s d2 s ... r, with a possible line
// break before each separator.
func encloseSep(l, r, s doc, ds []doc) doc {
	switch len(ds) {
	case 0:
		return cat(l, r)
	case 1:
		return cat(l, ds[0], r)
	}
	var body doc
	for i, d := range ds {
		item := d
		if i == 0 {
			item = cat(l, d)
		} else {
			item = cat(s, d)
		}
		if body == nil {
			body = item
		} else {
			body = cat(body, lineBreak, item)
		}
	}
	return cat(group(body), r)
}

// prettyList is prettyprinter's `list`.
func prettyList(ds []doc) doc {
	return group(encloseSep(dFlatAlt{dText("[ "), dText("[")}, dFlatAlt{dText(" ]"), dText("]")},
		dText(", "), ds))
}

// commaBraces is P5's encloseSep "{" "}" ",".
func commaBraces(ds ...doc) doc { return encloseSep(dText("{"), dText("}"), dText(","), ds) }

// Layout: Wadler-Leijen's `best` with layoutPretty's fitting predicate
// (the rest of the current line must fit the page). The token stream is
// lazy, as in Haskell, so each choice looks ahead only to the next line
// break.

type docList struct {
	d    doc
	next *docList
}

type token struct {
	text string
	line bool
	fail bool
	end  bool
	rest *lazyToken
}

type lazyToken struct {
	f   func() *token
	val *token
}

func (l *lazyToken) get() *token {
	if l.val == nil {
		l.val = l.f()
		l.f = nil
	}
	return l.val
}

func best(col int, ds *docList) *token {
	for ds != nil {
		switch x := ds.d.(type) {
		case dText:
			if x == "" {
				ds = ds.next
				continue
			}
			next, w := ds.next, col+utf8.RuneCountInString(string(x))
			return &token{text: string(x), rest: &lazyToken{f: func() *token { return best(w, next) }}}
		case dLine:
			next := ds.next
			return &token{line: true, rest: &lazyToken{f: func() *token { return best(0, next) }}}
		case dFlatAlt:
			ds = &docList{x.broken, ds.next}
		case dCat:
			ds = &docList{x.a, &docList{x.b, ds.next}}
		case dUnion:
			flat := best(col, &docList{x.flat, ds.next})
			if fits(pageWidth-col, flat) {
				return flat
			}
			ds = &docList{x.broken, ds.next}
		case dFail:
			return &token{fail: true}
		}
	}
	return &token{end: true}
}

func fits(w int, t *token) bool {
	for {
		if w < 0 || t.fail {
			return false
		}
		if t.end || t.line {
			return true
		}
		w -= utf8.RuneCountInString(t.text)
		t = t.rest.get()
	}
}

func layout(d doc) string {
	var b strings.Builder
	for t := best(0, &docList{d: d}); !t.end && !t.fail; t = t.rest.get() {
		if t.line {
			b.WriteByte('\n')
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}
