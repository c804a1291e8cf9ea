package value

import (
	"strings"

	"github.com/ledgernode/ledger-node/pact/pretty"
)

// Two text renderings exist in P5 and they differ:
//
//   - Pretty is the REPL's (the Pretty instance): what the REPL echoes,
//     what `print` and expect's failure messages show. Lists are spaced
//     `[1 2 3]`, integral decimals print `2.0` whatever their places, and
//     guards lay out over several lines past 80 columns.
//   - Show is pactValueToText, used by `show` and by `format` for
//     non-string arguments: lists are `[1, 2, 3]` and a decimal keeps its
//     places unless it has none (`2.00` stays "2.00", `2` is "2.0").
//
// Both print objects as {"a": 1,"b": 2} with keys sorted, strings quoted
// without escaping, and times at second precision.

// Pretty renders v as the P5 REPL prints it.
//
// Error messages and the REPL render values that nothing has paid for:
// a list holding its predecessor twice, 64 levels deep, costs 64 cheap
// steps to build and has 2^64 leaves to print. A value of more than
// prettyNodeLimit nodes is therefore rendered on one line and cut at
// PrettyLimit bytes, ending in "..."; smaller values render exactly as
// P5's.
func Pretty(v Value) string {
	budget := prettyNodeLimit
	guards := scanPretty(v, &budget)
	if budget < 0 {
		w := cappedText{limit: PrettyLimit}
		prettyCapped(&w, v)
		return w.text()
	}
	if !guards {
		var b strings.Builder
		prettyFlat(&b, v)
		return b.String()
	}
	return pretty.Render(prettyDoc(v))
}

const (
	// prettyNodeLimit is how many nodes (list elements, object fields,
	// arguments of guards and capability tokens) a value may have and
	// still be rendered exactly.
	prettyNodeLimit = 1 << 17
	// PrettyLimit is the most bytes a larger value renders to: more than
	// anyone reads on a line, little enough to make in a few milliseconds.
	PrettyLimit = 4 << 20
)

// scanPretty counts v's nodes against budget, stopping once it is spent
// (below zero), and reports whether the nodes it saw hold a guard whose
// rendering has line-break opportunities.
func scanPretty(v Value, budget *int) (guards bool) {
	*budget--
	if *budget < 0 {
		return false
	}
	var inner []Value
	switch x := v.(type) {
	case *KeySet, *ModuleGuard, *PactGuard:
		return true
	case *UserGuard:
		guards, inner = true, x.Args
	case *CapabilityGuard:
		guards, inner = true, x.Args
	case List:
		inner = x
	case *Object:
		inner = x.vals
	case *CapToken:
		inner = x.Args
	}
	for _, e := range inner {
		if scanPretty(e, budget) {
			guards = true
		}
		if *budget < 0 {
			return guards
		}
	}
	return guards
}

// cappedText collects text up to a limit, then ignores the rest.
type cappedText struct {
	b     strings.Builder
	limit int
}

func (w *cappedText) full() bool { return w.b.Len() >= w.limit }

func (w *cappedText) write(s string) {
	if room := w.limit - w.b.Len(); room > 0 {
		w.b.WriteString(s[:min(len(s), room)])
	}
}

func (w *cappedText) text() string {
	if w.full() {
		return w.b.String() + "..."
	}
	return w.b.String()
}

// prettyCapped renders v on one line (guards as they lay out when they
// fit) until w is full. Each level stops as soon as w is full, so the
// work is bounded by the limit and the value's depth, not its size.
func prettyCapped(w *cappedText, v Value) {
	if w.full() {
		return
	}
	switch x := v.(type) {
	case List:
		w.list("[", " ", "]", x)
	case *Object:
		w.write("{")
		for i, k := range x.keys {
			if w.full() {
				return
			}
			if i > 0 {
				w.write(",")
			}
			w.write(`"` + k + `": `)
			prettyCapped(w, x.vals[i])
		}
		w.write("}")
	case *CapToken:
		w.write("CapToken(" + x.Name.QualName().String())
		for _, e := range x.Args {
			if w.full() {
				return
			}
			w.write(" ")
			prettyCapped(w, e)
		}
		w.write(")")
	case *KeySet:
		w.write("KeySet {keys: [" + strings.Join(x.Keys, ", ") + "],pred: " + x.Pred + "}")
	case *UserGuard:
		w.write("UserGuard {fun: " + x.Fun.String() + ",args: ")
		w.list("[", ", ", "]}", x.Args)
	case *CapabilityGuard:
		w.write("CapabilityGuard {name: " + x.Name.String() + ",args: ")
		w.list("[", ", ", "]", x.Args)
		w.write(",pactId: " + x.PactID + "}")
	case *ModuleGuard:
		w.write("ModuleGuard {module: " + x.Module.String() + ",name: " + x.Name + "}")
	case *PactGuard:
		w.write("PactGuard {pactId: " + x.PactID + ",name: " + x.Name + "}")
	default:
		w.write(prettyAtom(v))
	}
}

// list renders vs between open and close, separated by sep.
func (w *cappedText) list(open, sep, close string, vs []Value) {
	w.write(open)
	for i, e := range vs {
		if w.full() {
			return
		}
		if i > 0 {
			w.write(sep)
		}
		prettyCapped(w, e)
	}
	w.write(close)
}

// prettyDecimal is the Pretty instance of Literal for decimals: integral
// values as `<integer>.0`, others with their stored places.
func prettyDecimal(d Decimal) string {
	if d.IsIntegral() {
		return d.RoundTo(0, RoundHalfEven).mant.Text() + ".0"
	}
	return d.Text()
}

func prettyFlat(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case List:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			prettyFlat(b, e)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + k + `": `)
			prettyFlat(b, x.vals[i])
		}
		b.WriteByte('}')
	case *CapToken:
		b.WriteString("CapToken(" + x.Name.QualName().String())
		for _, a := range x.Args {
			b.WriteByte(' ')
			prettyFlat(b, a)
		}
		b.WriteByte(')')
	default:
		b.WriteString(prettyAtom(v))
	}
}

// prettyAtom renders the values with no inner structure to lay out.
func prettyAtom(v Value) string {
	switch x := v.(type) {
	case String:
		return `"` + string(x) + `"`
	case Integer:
		return x.Text()
	case Decimal:
		return prettyDecimal(x)
	case Bool:
		if x {
			return "true"
		}
		return "false"
	case Unit:
		return "()"
	case Time:
		return `"` + FormatTime(ISO8601, x) + `"`
	case *KeySetRef:
		return "'" + x.Text()
	case *ModRef:
		return x.Module.String()
	case *Table:
		return x.FullName()
	}
	return v.String()
}

func prettyDoc(v Value) pretty.Doc {
	switch x := v.(type) {
	case List:
		ds := make([]pretty.Doc, 0, 2*len(x)+2)
		ds = append(ds, pretty.Text("["))
		for i, e := range x {
			if i > 0 {
				ds = append(ds, pretty.Text(" "))
			}
			ds = append(ds, prettyDoc(e))
		}
		return pretty.Cat(append(ds, pretty.Text("]"))...)
	case *Object:
		ds := []pretty.Doc{pretty.Text("{")}
		for i, k := range x.keys {
			if i > 0 {
				ds = append(ds, pretty.Text(","))
			}
			ds = append(ds, pretty.Text(`"`+k+`": `), prettyDoc(x.vals[i]))
		}
		return pretty.Cat(append(ds, pretty.Text("}"))...)
	case *CapToken:
		ds := []pretty.Doc{pretty.Text("CapToken(" + x.Name.QualName().String())}
		for _, a := range x.Args {
			ds = append(ds, pretty.Text(" "), prettyDoc(a))
		}
		return pretty.Cat(append(ds, pretty.Text(")"))...)
	case *KeySet:
		keys := make([]pretty.Doc, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = pretty.Text(k)
		}
		return pretty.Cat(pretty.Text("KeySet "), commaBraces(
			pretty.Cat(pretty.Text("keys: "), pretty.List(keys)),
			pretty.Text("pred: "+x.Pred)))
	case *UserGuard:
		return pretty.Cat(pretty.Text("UserGuard "), commaBraces(
			pretty.Text("fun: "+x.Fun.String()),
			pretty.Cat(pretty.Text("args: "), pretty.List(prettyDocs(x.Args)))))
	case *CapabilityGuard:
		return pretty.Cat(pretty.Text("CapabilityGuard "), commaBraces(
			pretty.Text("name: "+x.Name.String()),
			pretty.Cat(pretty.Text("args: "), pretty.List(prettyDocs(x.Args))),
			pretty.Text("pactId: "+x.PactID)))
	case *ModuleGuard:
		return pretty.Cat(pretty.Text("ModuleGuard "), commaBraces(
			pretty.Text("module: "+x.Module.String()),
			pretty.Text("name: "+x.Name)))
	case *PactGuard:
		return pretty.Cat(pretty.Text("PactGuard "), commaBraces(
			pretty.Text("pactId: "+x.PactID),
			pretty.Text("name: "+x.Name)))
	}
	return pretty.Text(prettyAtom(v))
}

// commaBraces is P5's encloseSep "{" "}" ",".
func commaBraces(ds ...pretty.Doc) pretty.Doc {
	return pretty.EncloseSep(pretty.Text("{"), pretty.Text("}"), pretty.Text(","), ds)
}

func prettyDocs(vs []Value) []pretty.Doc {
	ds := make([]pretty.Doc, len(vs))
	for i, v := range vs {
		ds[i] = prettyDoc(v)
	}
	return ds
}

// Show renders v as P5's pactValueToText: the `show` native, and `format`
// for non-string arguments.
func Show(v Value) string {
	var b strings.Builder
	showInto(&b, v)
	return b.String()
}

func showList(b *strings.Builder, vs []Value) {
	b.WriteByte('[')
	for i, e := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		showInto(b, e)
	}
	b.WriteByte(']')
}

func showInto(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case Decimal:
		b.WriteString(x.Text())
		if x.places == 0 {
			b.WriteString(".0")
		}
	case List:
		showList(b, x)
	case *Object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + k + `": `)
			showInto(b, x.vals[i])
		}
		b.WriteByte('}')
	case *KeySet:
		b.WriteString("KeySet {keys: [" + strings.Join(x.Keys, ", ") + "],pred: " + x.Pred + "}")
	case *UserGuard:
		b.WriteString("UserGuard {fun: " + x.Fun.String() + ",args: ")
		showList(b, x.Args)
		b.WriteByte('}')
	case *CapabilityGuard:
		b.WriteString("CapabilityGuard {name: " + x.Name.String() + ",args: ")
		showList(b, x.Args)
		b.WriteString(",pactId: " + x.PactID + "}")
	case *ModuleGuard:
		b.WriteString("ModuleGuard {module: " + x.Module.String() + ",name: " + x.Name + "}")
	case *PactGuard:
		b.WriteString("PactGuard {pactId: " + x.PactID + ",name: " + x.Name + "}")
	case *CapToken:
		b.WriteString("CapToken(" + x.Name.QualName().String())
		for _, a := range x.Args {
			b.WriteByte(' ')
			showInto(b, a)
		}
		b.WriteByte(')')
	default:
		b.WriteString(prettyAtom(v))
	}
}
