package eval

import "strings"

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
func Pretty(v Value) string {
	if !containsLayoutGuard(v) {
		var b strings.Builder
		prettyFlat(&b, v)
		return b.String()
	}
	return layout(prettyDoc(v))
}

// containsLayoutGuard reports whether v holds a guard whose rendering has
// line-break opportunities; everything else renders on one line.
func containsLayoutGuard(v Value) bool {
	switch x := v.(type) {
	case *KeySet, *UserGuard, *CapabilityGuard, *ModuleGuard, *PactGuard:
		return true
	case List:
		for _, e := range x {
			if containsLayoutGuard(e) {
				return true
			}
		}
	case *Object:
		for _, e := range x.vals {
			if containsLayoutGuard(e) {
				return true
			}
		}
	case *CapToken:
		for _, e := range x.Args {
			if containsLayoutGuard(e) {
				return true
			}
		}
	}
	return false
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

func prettyDoc(v Value) doc {
	switch x := v.(type) {
	case List:
		ds := make([]doc, 0, 2*len(x)+2)
		ds = append(ds, dText("["))
		for i, e := range x {
			if i > 0 {
				ds = append(ds, dText(" "))
			}
			ds = append(ds, prettyDoc(e))
		}
		return cat(append(ds, dText("]"))...)
	case *Object:
		ds := []doc{dText("{")}
		for i, k := range x.keys {
			if i > 0 {
				ds = append(ds, dText(","))
			}
			ds = append(ds, dText(`"`+k+`": `), prettyDoc(x.vals[i]))
		}
		return cat(append(ds, dText("}"))...)
	case *CapToken:
		ds := []doc{dText("CapToken(" + x.Name.QualName().String())}
		for _, a := range x.Args {
			ds = append(ds, dText(" "), prettyDoc(a))
		}
		return cat(append(ds, dText(")"))...)
	case *KeySet:
		keys := make([]doc, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = dText(k)
		}
		return cat(dText("KeySet "), commaBraces(
			cat(dText("keys: "), prettyList(keys)),
			dText("pred: "+x.Pred)))
	case *UserGuard:
		return cat(dText("UserGuard "), commaBraces(
			dText("fun: "+x.Fun.String()),
			cat(dText("args: "), prettyList(prettyDocs(x.Args)))))
	case *CapabilityGuard:
		return cat(dText("CapabilityGuard "), commaBraces(
			dText("name: "+x.Name.String()),
			cat(dText("args: "), prettyList(prettyDocs(x.Args))),
			dText("pactId: "+x.PactID)))
	case *ModuleGuard:
		return cat(dText("ModuleGuard "), commaBraces(
			dText("module: "+x.Module.String()),
			dText("name: "+x.Name)))
	case *PactGuard:
		return cat(dText("PactGuard "), commaBraces(
			dText("pactId: "+x.PactID),
			dText("name: "+x.Name)))
	}
	return dText(prettyAtom(v))
}

func prettyDocs(vs []Value) []doc {
	ds := make([]doc, len(vs))
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
