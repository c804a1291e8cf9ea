package syntax

import (
	"strings"
)

// Format renders a node as Pact source. Expressions print on one line;
// modules and interfaces print one declaration per indented line. Comments
// and the original spacing are not kept, but parsing the output gives the
// same tree (spans aside), which the tests check over real Pact code.
// Symbols print as strings ('a as "a"), which denote the same value.
func Format(n Node) string {
	var p printer
	p.node(n)
	return p.b.String()
}

type printer struct {
	b strings.Builder
}

func (p *printer) str(s string) { p.b.WriteString(s) }

func (p *printer) node(n Node) {
	switch x := n.(type) {
	case nil:
		p.str("<nil>")
	case *Var:
		p.str(x.Name.String())
	case *IntLit:
		p.str(x.Text)
	case *DecimalLit:
		p.str(x.Int)
		p.str(".")
		p.str(x.Frac)
	case *StringLit:
		p.quote(x.Value)
	case *BoolLit:
		if x.Value {
			p.str("true")
		} else {
			p.str("false")
		}
	case *UnitLit:
		p.str("()")
	case *List:
		p.str("[")
		for i, e := range x.Elems {
			if i > 0 {
				p.str(" ")
			}
			p.node(e)
		}
		p.str("]")
	case *Object:
		p.str("{")
		for i, f := range x.Fields {
			if i > 0 {
				p.str(", ")
			}
			p.quote(f.Key.Name)
			p.str(": ")
			p.node(f.Value)
		}
		p.str("}")
	case *App:
		p.str("(")
		p.node(x.Fn)
		p.exprs(x.Args)
		p.str(")")
	case *Binding:
		p.str("{")
		for i, bd := range x.Binds {
			if i > 0 {
				p.str(", ")
			}
			p.quote(bd.Key.Name)
			p.str(" := ")
			p.arg(bd.Var)
		}
		p.str("}")
		p.exprs(x.Body)
	case *Let:
		if x.Star {
			p.str("(let* (")
		} else {
			p.str("(let (")
		}
		for i, bd := range x.Binders {
			if i > 0 {
				p.str(" ")
			}
			p.str("(")
			p.arg(bd.Var)
			p.str(" ")
			p.node(bd.Value)
			p.str(")")
		}
		p.str(")")
		p.exprs(x.Body)
		p.str(")")
	case *Lambda:
		p.str("(lambda")
		p.args(x.Args)
		p.exprs(x.Body)
		p.str(")")

	case *PrimType:
		p.str(string(x.Prim))
	case *ListType:
		p.str("[")
		p.node(x.Elem)
		p.str("]")
	case *ModRefType:
		p.str("module{")
		for i, m := range x.Interfaces {
			if i > 0 {
				p.str(", ")
			}
			p.str(m.String())
		}
		p.str("}")
	case *SchemaType:
		if x.Table {
			p.str("table{")
		} else {
			p.str("object{")
		}
		p.str(x.Schema.String())
		p.str("}")

	case *Defun:
		p.head("defun", x.Name, x.Ret)
		p.args(x.Args)
		p.docModel(x.Doc, x.Model)
		p.body(x.Body, x.Doc == nil && x.Model == nil)
		p.str(")")
	case *DefCap:
		p.head("defcap", x.Name, x.Ret)
		p.args(x.Args)
		p.docModel(x.Doc, x.Model)
		if m := x.Meta; m != nil {
			switch {
			case m.Event:
				p.str(" @event")
			case m.Manager != nil:
				p.str(" @managed ")
				p.str(m.Param)
				p.str(" ")
				p.str(m.Manager.String())
			default:
				p.str(" @managed")
			}
		}
		p.body(x.Body, x.Doc == nil && x.Model == nil && x.Meta == nil)
		p.str(")")
	case *DefConst:
		p.head("defconst", x.Name, x.Type)
		p.str(" ")
		p.node(x.Value)
		p.docModel(x.Doc, nil)
		p.str(")")
	case *DefSchema:
		p.str("(defschema ")
		p.str(x.Name)
		p.docModel(x.Doc, x.Model)
		for _, f := range x.Fields {
			p.str(" ")
			p.arg(f)
		}
		p.str(")")
	case *DefTable:
		p.str("(deftable ")
		p.str(x.Name)
		p.str(":{")
		p.str(x.Schema.String())
		p.str("}")
		p.docModel(x.Doc, nil)
		p.str(")")
	case *DefPact:
		p.head("defpact", x.Name, x.Ret)
		p.args(x.Args)
		p.docModel(x.Doc, x.Model)
		for _, s := range x.Steps {
			p.str(" ")
			p.node(s)
		}
		p.str(")")
	case *Step:
		if x.Rollback != nil {
			p.str("(step-with-rollback")
		} else {
			p.str("(step")
		}
		if x.Entity != nil {
			p.str(" ")
			p.node(x.Entity)
		}
		p.str(" ")
		p.node(x.Expr)
		if x.Rollback != nil {
			p.str(" ")
			p.node(x.Rollback)
		}
		if x.Model != nil {
			p.str(" ")
			p.model(x.Model)
		}
		p.str(")")
	case *Use:
		p.str("(use ")
		p.str(x.Module.String())
		if x.HasHash {
			p.str(" ")
			p.quote(x.Hash)
		}
		if x.HasImports {
			p.str(" [")
			p.str(strings.Join(x.Imports, " "))
			p.str("]")
		}
		p.str(")")
	case *Implements:
		p.str("(implements ")
		p.str(x.Interface.String())
		p.str(")")
	case *Bless:
		p.str("(bless ")
		p.quote(x.Hash)
		p.str(")")
	case *Module:
		p.str("(module ")
		p.str(x.Name)
		p.str(" ")
		if x.Gov.Cap {
			p.str(x.Gov.Name)
		} else {
			p.quote(x.Gov.Name)
		}
		p.decls(x.Doc, x.Model, x.Body)
	case *Interface:
		p.str("(interface ")
		p.str(x.Name)
		p.decls(x.Doc, x.Model, x.Body)

	case *PropAtom:
		p.str(x.Name.String())
	case *PropKeyword:
		p.str(x.Keyword.String())
	case *PropDelim:
		p.str(Token{Kind: x.Delim}.String())
	case *PropSeq:
		open, close := "(", ")"
		if x.Brackets {
			open, close = "[", "]"
		}
		p.str(open)
		p.props(x.Items)
		p.str(close)
	default:
		p.str("<unknown node>")
	}
}

// body prints a defun's or defcap's body. Right after the argument list a
// string literal would read as the docstring, so when nothing else stands
// there (docAmbiguous) a leading string is printed as a symbol: the parser
// only gives such a body when it was written as one.
func (p *printer) body(xs []Expr, docAmbiguous bool) {
	if s, ok := firstString(xs); ok && docAmbiguous && isSymbol(s.Value) {
		p.str(" '")
		p.str(s.Value)
		xs = xs[1:]
	}
	p.exprs(xs)
}

func firstString(xs []Expr) (*StringLit, bool) {
	if len(xs) == 0 {
		return nil, false
	}
	s, ok := xs[0].(*StringLit)
	return s, ok
}

// isSymbol reports whether s can be written as a symbol literal 's.
func isSymbol(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if charClass[s[i]]&symbolPart == 0 {
			return false
		}
	}
	return true
}

// exprs prints each expression preceded by a space.
func (p *printer) exprs(xs []Expr) {
	for _, e := range xs {
		p.str(" ")
		p.node(e)
	}
}

func (p *printer) props(xs []PropExpr) {
	for i, e := range xs {
		if i > 0 {
			p.str(" ")
		}
		p.node(e)
	}
}

// head prints "(kw name[:type]".
func (p *printer) head(kw, name string, t Type) {
	p.str("(")
	p.str(kw)
	p.str(" ")
	p.str(name)
	if t != nil {
		p.str(":")
		p.node(t)
	}
}

// args prints " (a b:integer)"; the leading space separates it from the
// head it follows.
func (p *printer) args(as []Arg) {
	p.str(" (")
	for i, a := range as {
		if i > 0 {
			p.str(" ")
		}
		p.arg(a)
	}
	p.str(")")
}

func (p *printer) arg(a Arg) {
	p.str(a.Name)
	if a.Type != nil {
		p.str(":")
		p.node(a.Type)
	}
}

func (p *printer) docModel(d *Doc, m *Model) {
	if d != nil {
		p.str(" ")
		if d.Ann {
			p.str("@doc ")
		}
		p.quote(d.Text)
	}
	if m != nil {
		p.str(" ")
		p.model(m)
	}
}

func (p *printer) model(m *Model) {
	p.str("@model [")
	p.props(m.Props)
	p.str("]")
}

// decls prints a module or interface's annotations and declarations, one per
// line, and the closing parenthesis.
func (p *printer) decls(d *Doc, m *Model, decls []Decl) {
	if d != nil {
		p.str("\n ")
		p.docModel(d, nil)
	}
	if m != nil {
		p.str("\n  ")
		p.model(m)
	}
	for _, x := range decls {
		p.str("\n  ")
		p.node(x)
	}
	p.str(")")
}

// quote writes a string literal. Only the escapes Pact accepts are used; a
// carriage return has no escape in Pact and no parsed string contains one.
func (p *printer) quote(s string) {
	p.b.WriteByte('"')
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\t':
			esc = `\t`
		default:
			continue
		}
		p.b.WriteString(s[last:i])
		p.b.WriteString(esc)
		last = i + 1
	}
	p.b.WriteString(s[last:])
	p.b.WriteByte('"')
}

func (x *Var) String() string         { return Format(x) }
func (x *IntLit) String() string      { return Format(x) }
func (x *DecimalLit) String() string  { return Format(x) }
func (x *StringLit) String() string   { return Format(x) }
func (x *BoolLit) String() string     { return Format(x) }
func (x *UnitLit) String() string     { return Format(x) }
func (x *List) String() string        { return Format(x) }
func (x *Object) String() string      { return Format(x) }
func (x *App) String() string         { return Format(x) }
func (x *Binding) String() string     { return Format(x) }
func (x *Let) String() string         { return Format(x) }
func (x *Lambda) String() string      { return Format(x) }
func (x *PrimType) String() string    { return Format(x) }
func (x *ListType) String() string    { return Format(x) }
func (x *ModRefType) String() string  { return Format(x) }
func (x *SchemaType) String() string  { return Format(x) }
func (x *Defun) String() string       { return Format(x) }
func (x *DefCap) String() string      { return Format(x) }
func (x *DefConst) String() string    { return Format(x) }
func (x *DefSchema) String() string   { return Format(x) }
func (x *DefTable) String() string    { return Format(x) }
func (x *DefPact) String() string     { return Format(x) }
func (x *Use) String() string         { return Format(x) }
func (x *Implements) String() string  { return Format(x) }
func (x *Bless) String() string       { return Format(x) }
func (x *Module) String() string      { return Format(x) }
func (x *Interface) String() string   { return Format(x) }
func (x *Step) String() string        { return Format(x) }
func (x *PropAtom) String() string    { return Format(x) }
func (x *PropKeyword) String() string { return Format(x) }
func (x *PropDelim) String() string   { return Format(x) }
func (x *PropSeq) String() string     { return Format(x) }
