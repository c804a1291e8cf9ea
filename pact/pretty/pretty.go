package pretty

import (
	"strings"
	"unicode/utf8"
)

// A Doc is a document: text with places where a line may break.
type Doc interface{ isDoc() }

// Text is a document of text that holds no line break.
type Text string

type (
	dLine    struct{}                   // a hard line break
	dFlatAlt struct{ broken, flat Doc } // `broken` normally, `flat` once flattened
	dCat     struct{ a, b Doc }
	dUnion   struct{ flat, broken Doc } // a group's two layouts
	dFail    struct{}
)

func (Text) isDoc()     {}
func (dLine) isDoc()    {}
func (dFlatAlt) isDoc() {}
func (dCat) isDoc()     {}
func (dUnion) isDoc()   {}
func (dFail) isDoc()    {}

const pageWidth = 80

// Cat is the documents one after the other.
func Cat(ds ...Doc) Doc {
	var out Doc = Text("")
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
var lineBreak Doc = dFlatAlt{dLine{}, Text("")}

func flatten(d Doc) Doc {
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

func group(d Doc) Doc { return dUnion{flatten(d), d} }

// EncloseSep is prettyprinter's: l d1 s d2 s ... r, with a possible line
// break before each separator.
func EncloseSep(l, r, s Doc, ds []Doc) Doc {
	switch len(ds) {
	case 0:
		return Cat(l, r)
	case 1:
		return Cat(l, ds[0], r)
	}
	var body Doc
	for i, d := range ds {
		item := d
		if i == 0 {
			item = Cat(l, d)
		} else {
			item = Cat(s, d)
		}
		if body == nil {
			body = item
		} else {
			body = Cat(body, lineBreak, item)
		}
	}
	return Cat(group(body), r)
}

// List is prettyprinter's `list`.
func List(ds []Doc) Doc {
	return group(EncloseSep(dFlatAlt{Text("[ "), Text("[")}, dFlatAlt{Text(" ]"), Text("]")},
		Text(", "), ds))
}

// Layout: Wadler-Leijen's `best` with layoutPretty's fitting predicate
// (the rest of the current line must fit the page). The token stream is
// lazy, as in Haskell, so each choice looks ahead only to the next line
// break.

type docList struct {
	d    Doc
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
		case Text:
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

// Render lays d out on prettyprinter's default page, 80 columns wide.
func Render(d Doc) string {
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
