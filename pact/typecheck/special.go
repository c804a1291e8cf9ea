package typecheck

import (
	"slices"
	"strconv"

	"github.com/ledgernode/ledger-node/pact/resolve"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// special is a special form: its arguments are typed as the evaluator
// treats them; a wrong arity fails when the form runs.
func (c *checker) special(x *resolve.Special) *ty {
	args := x.Args
	arity := func(n int, name string) bool {
		if len(args) == n {
			return true
		}
		c.note(x.Src.Loc, name+" expects "+plural(n, "argument"), false)
		for _, a := range args {
			c.infer(a)
		}
		return false
	}
	switch x.Form {
	case resolve.FormIf:
		if !arity(3, "if") {
			return tNever
		}
		c.expect(c.infer(args[0]), tBool, args[0].Span(), "the condition of if", false)
		return union(c.infer(args[1]), c.infer(args[2]))
	case resolve.FormAnd, resolve.FormOr:
		if len(args) != 2 {
			// Another arity makes them function values (and? or?).
			for _, a := range args {
				c.infer(a)
			}
			return tAny
		}
		for _, a := range args {
			c.expect(c.infer(a), tBool, a.Span(), "an argument of "+formName(x), false)
		}
		return tBool
	case resolve.FormEnforce:
		if !arity(2, "enforce") {
			return tNever
		}
		c.expect(c.infer(args[0]), tBool, args[0].Span(), "the condition of enforce", false)
		c.expect(c.infer(args[1]), tStr, args[1].Span(), "the message of enforce", false)
		return tBool
	case resolve.FormEnforceOne:
		if !arity(2, "enforce-one") {
			return tNever
		}
		c.expect(c.infer(args[0]), tStr, args[0].Span(), "the message of enforce-one", false)
		if l, ok := args[1].(*resolve.List); ok {
			for _, e := range l.Elems {
				c.expect(c.infer(e), tBool, e.Span(), "a test of enforce-one", false)
			}
		} else {
			c.infer(args[1])
		}
		return tBool
	case resolve.FormWithCapability:
		if len(args) < 2 {
			return tNever
		}
		c.expect(c.infer(args[0]), tCapToken, args[0].Span(), "the capability of with-capability", false)
		return c.block(args[1:])
	case resolve.FormTry:
		if !arity(2, "try") {
			return tNever
		}
		// The expression is expected to fail at times (its type may be
		// what it would have returned had it not): only agreement says
		// what try returns.
		dflt, expr := c.infer(args[0]), c.infer(args[1])
		if t := union(dflt, expr); t.kind != kUnion {
			return t
		}
		return tAny
	case resolve.FormCreateUserGuard:
		if !arity(1, "create-user-guard") {
			return tNever
		}
		c.infer(args[0])
		return tGuard
	case resolve.FormError:
		if !arity(1, "error") {
			return tNever
		}
		c.expect(c.infer(args[0]), tStr, args[0].Span(), "the message of error", false)
		return tNever
	case resolve.FormPure:
		if !arity(1, "pure") {
			return tNever
		}
		return c.infer(args[0])
	case resolve.FormDo:
		return c.block(args)
	}
	for _, a := range args {
		c.infer(a)
	}
	return tAny
}

func formName(x *resolve.Special) string {
	if v, ok := x.Src.Fn.(*syntax.Var); ok {
		return v.Name.Name
	}
	return "the form"
}

func plural(n int, word string) string {
	s := strconv.Itoa(n) + " " + word
	if n != 1 {
		s += "s"
	}
	return s
}

// tableNative types the natives whose arguments name a table's schema or
// bind an object's fields; ok is false for the others.
func (c *checker) tableNative(name string, x *resolve.App) (*ty, bool) {
	args := x.Args
	switch name {
	case "bind":
		if len(args) != 2 {
			return nil, false
		}
		b, ok := args[1].(*resolve.Binding)
		if !ok {
			return nil, false
		}
		obj := c.infer(args[0])
		return c.binding(b, obj, nil, "bind"), true
	case "resume":
		if len(args) != 1 {
			return nil, false
		}
		b, ok := args[0].(*resolve.Binding)
		if !ok {
			return nil, false
		}
		return c.binding(b, tAnyObj, nil, ""), true
	case "with-read", "with-default-read":
		want := 3
		if name == "with-default-read" {
			want = 4
		}
		if len(args) != want {
			return nil, false
		}
		b, ok := args[want-1].(*resolve.Binding)
		if !ok {
			return nil, false
		}
		tbl := c.infer(args[0])
		c.expect(tbl, tAnyTable, args[0].Span(), "the table of "+name, false)
		c.expect(c.infer(args[1]), tStr, args[1].Span(), "the key of "+name, false)
		var dflt *row
		if want == 4 {
			d := c.infer(args[2])
			c.expect(d, tAnyObj, args[2].Span(), "the default of "+name, false)
			if d.kind == kObject {
				dflt = d.row
			}
		}
		return c.binding(b, rowObject(tbl), dflt, name), true
	case "read":
		if len(args) < 2 || len(args) > 3 {
			return nil, false
		}
		tbl := c.infer(args[0])
		c.expect(tbl, tAnyTable, args[0].Span(), "the table of read", false)
		c.expect(c.infer(args[1]), tStr, args[1].Span(), "the key of read", false)
		if len(args) == 2 {
			return rowObject(tbl), true
		}
		return objectOf(c.columns(tbl, args[2], "read")), true
	case "select":
		if len(args) < 2 || len(args) > 3 {
			return nil, false
		}
		tbl := c.infer(args[0])
		c.expect(tbl, tAnyTable, args[0].Span(), "the table of select", false)
		c.expect(c.infer(args[len(args)-1]), tAnyFun, args[len(args)-1].Span(), "the filter of select", false)
		if len(args) == 2 {
			return listOf(rowObject(tbl)), true
		}
		return listOf(objectOf(c.columns(tbl, args[1], "select"))), true
	case "write", "insert", "update":
		if len(args) != 3 {
			return nil, false
		}
		tbl := c.infer(args[0])
		c.expect(tbl, tAnyTable, args[0].Span(), "the table of "+name, false)
		c.expect(c.infer(args[1]), tStr, args[1].Span(), "the key of "+name, false)
		obj := c.infer(args[2])
		c.expect(obj, rowObject(tbl), args[2].Span(), "the row "+name+" writes", name == "update")
		return tStr, true
	}
	return nil, false
}

// rowObject is the type of a row of a table of type tbl.
func rowObject(tbl *ty) *ty {
	if tbl.kind == kParam {
		return tParam
	}
	if tbl.kind != kTable || tbl.row == nil {
		return tAnyObj
	}
	return objectOf(tbl.row)
}

// columns checks a list of column names against a table's schema and is
// the row of those columns (nil when either is unknown).
func (c *checker) columns(tbl *ty, cols resolve.Term, native string) *row {
	ct := c.infer(cols)
	c.expect(ct, listOf(tStr), cols.Span(), "the columns of "+native, false)
	l, ok := cols.(*resolve.List)
	if !ok || tbl.kind != kTable || tbl.row == nil {
		return nil
	}
	r := &row{}
	for _, e := range l.Elems {
		lit, ok := e.(*resolve.Lit)
		if !ok {
			return nil
		}
		s, ok := lit.Src.(*syntax.StringLit)
		if !ok {
			return nil
		}
		ft, ok := tbl.row.field(s.Value)
		if !ok {
			c.note(e.Span(), native+": column "+s.Value+" is not in "+(&ty{kind: kTable, row: tbl.row}).String(), false)
			return nil
		}
		if !slices.Contains(r.names, s.Value) {
			r.names = append(r.names, s.Value)
			r.types = append(r.types, ft)
		}
	}
	sortRow(r)
	return r
}

func sortRow(r *row) {
	idx := make([]int, len(r.names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case r.names[a] < r.names[b]:
			return -1
		case r.names[a] > r.names[b]:
			return 1
		}
		return 0
	})
	names, types := make([]string, len(idx)), make([]*ty, len(idx))
	for i, j := range idx {
		names[i], types[i] = r.names[j], r.types[j]
	}
	r.names, r.types = names, types
}

// binding is a binding form applied to an object of type obj (dflt: the
// fields with-default-read's default supplies): each variable is the type
// of its field, a field the object cannot have is an error, and the body's
// last expression is the result.
func (c *checker) binding(b *resolve.Binding, obj *ty, dflt *row, native string) *ty {
	n := len(c.scope)
	for i, key := range b.Keys {
		vt := tAny
		if obj.kind == kParam {
			vt = tParam
		}
		if obj.kind == kObject && obj.row != nil {
			if ft, ok := obj.row.field(key); ok {
				vt = ft
			} else if dt, ok := fieldOf(dflt, key); ok {
				vt = dt
			} else if native != "" {
				c.note(b.Vars[i].Loc, native+": field "+key+" is not in "+obj.String(), false)
			}
		}
		if b.Vars[i].Type != nil {
			want := c.declared(b.Vars[i].Type)
			c.expect(vt, want, b.Vars[i].Loc, "field "+key, false)
			vt = want
		}
		c.push(b.Vars[i].Name, vt)
	}
	res := c.block(b.Body)
	c.scope = c.scope[:n]
	return res
}

func fieldOf(r *row, name string) (*ty, bool) {
	if r == nil {
		return nil, false
	}
	return r.field(name)
}
