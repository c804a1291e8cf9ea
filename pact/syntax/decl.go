package syntax

// Productions for top-level forms, module and interface bodies, every
// definition form, and @model property lists.

// ---------------------------------------------------------------------------
// Top level

func (p *parser) topLevel() TopLevel {
	t := p.peek()
	if t.Kind == RPAREN {
		p.fail(p.leftover(t))
	}
	if t.Kind == LPAREN {
		switch k := p.peekAt(1).Kind; k {
		case MODULE:
			return p.module()
		case INTERFACE:
			return p.iface()
		case USE:
			return p.use()
		case DEFUN, DEFCONST:
			if p.repl {
				if k == DEFUN {
					return p.defun(false)
				}
				return p.defconst()
			}
			kw := p.peekAt(1)
			p.fail(&Error{Kind: ParsingError, Loc: kw.Loc,
				Msg: "Expected: " + exprStart + ", found " + describe(kw) +
					" (a top-level " + kw.String() + " is allowed only in REPL scripts)"})
		}
	}
	return p.expr()
}

func (p *parser) module() *Module {
	open := p.next()
	p.next() // module
	name := p.expect(IDENT)
	m := &Module{Name: name.Text, NameLoc: name.Loc}
	switch g := p.peek(); g.Kind {
	case STRING, SYMBOL:
		m.Gov = Governance{Loc: g.Loc, Name: g.Text}
	case IDENT:
		m.Gov = Governance{Loc: g.Loc, Name: g.Text, Cap: true}
	default:
		p.failExpected(expectedKinds(STRING, SYMBOL, IDENT))
	}
	p.next()
	m.Doc, m.Model = p.docOrModel()
	var firstDef Decl
	for p.peek().Kind == LPAREN {
		d := p.moduleDecl()
		if firstDef == nil {
			switch d.(type) {
			case *Use, *Implements, *Bless:
			default:
				firstDef = d
			}
		}
		m.Body = append(m.Body, d)
	}
	if len(m.Body) == 0 {
		p.failExpected(expectedKinds(LPAREN))
	}
	if firstDef == nil {
		p.fail(&Error{Kind: ParsingError, Loc: m.Body[0].Span(),
			Msg: "Expected: at least one of [defun, defcap, defschema, deftable, defpact, defconst]"})
	}
	m.Loc = open.Loc.To(p.expectOneOf(RPAREN, LPAREN).Loc)
	return m
}

var moduleDeclStart = expectedKinds(DEFUN, DEFCAP, DEFCONST, DEFSCHEMA, DEFTABLE, DEFPACT, USE, IMPLEMENTS, BLESS)

func (p *parser) moduleDecl() Decl {
	switch kw := p.peekAt(1); kw.Kind {
	case DEFUN:
		return p.defun(false)
	case DEFCAP:
		return p.defcap(false)
	case DEFCONST:
		return p.defconst()
	case DEFSCHEMA:
		return p.defschema()
	case DEFTABLE:
		return p.deftable()
	case DEFPACT:
		return p.defpact(false)
	case USE:
		return p.use()
	case IMPLEMENTS:
		open := p.next()
		p.next()
		x := &Implements{Interface: p.modQual()}
		x.Loc = open.Loc.To(p.expect(RPAREN).Loc)
		return x
	case BLESS:
		open := p.next()
		p.next()
		h := p.peek()
		if h.Kind != STRING && h.Kind != SYMBOL {
			p.failExpected(expectedKinds(STRING, SYMBOL))
		}
		p.next()
		return &Bless{Hash: h.Text, Loc: open.Loc.To(p.expect(RPAREN).Loc)}
	default:
		p.fail(expectedError(kw.Loc, moduleDeclStart, kw))
		return nil
	}
}

func (p *parser) iface() *Interface {
	open := p.next()
	p.next() // interface
	name := p.expect(IDENT)
	x := &Interface{Name: name.Text, NameLoc: name.Loc}
	x.Doc, x.Model = p.docOrModel()
	for p.peek().Kind == LPAREN {
		var d Decl
		switch kw := p.peekAt(1); kw.Kind {
		case DEFUN:
			d = p.defun(true)
		case DEFCAP:
			d = p.defcap(true)
		case DEFPACT:
			d = p.defpact(true)
		case DEFCONST:
			d = p.defconst()
		case DEFSCHEMA:
			d = p.defschema()
		case USE:
			d = p.use()
		default:
			p.fail(expectedError(kw.Loc, expectedKinds(DEFUN, DEFCAP, DEFPACT, DEFCONST, DEFSCHEMA, USE), kw))
		}
		x.Body = append(x.Body, d)
	}
	if len(x.Body) == 0 {
		p.failExpected(expectedKinds(LPAREN))
	}
	x.Loc = open.Loc.To(p.expectOneOf(RPAREN, LPAREN).Loc)
	return x
}

func (p *parser) use() *Use {
	open := p.next()
	p.next() // use
	u := &Use{Module: p.modQual()}
	if t := p.peek(); t.Kind == STRING {
		p.next()
		u.HasHash, u.Hash = true, t.Text
	}
	if p.peek().Kind == LBRACK {
		p.next()
		u.HasImports = true
		u.Imports = []string{}
		for p.peek().Kind == IDENT {
			u.Imports = append(u.Imports, p.next().Text)
		}
		p.expectOneOf(RBRACK, IDENT)
	}
	u.Loc = open.Loc.To(p.expect(RPAREN).Loc)
	return u
}

// ---------------------------------------------------------------------------
// Definitions

func (p *parser) defun(sig bool) *Defun {
	open := p.next()
	p.next() // defun
	name := p.expect(IDENT)
	d := &Defun{Name: name.Text, NameLoc: name.Loc}
	d.Ret = p.optType()
	d.Args = p.argList()
	d.Doc, d.Model = p.docOrModel()
	if !sig {
		d.Body = p.block()
	}
	d.Loc = open.Loc.To(p.expect(RPAREN).Loc)
	return d
}

func (p *parser) defcap(sig bool) *DefCap {
	open := p.next()
	p.next() // defcap
	name := p.expect(IDENT)
	d := &DefCap{Name: name.Text, NameLoc: name.Loc}
	d.Ret = p.optType()
	d.Args = p.argList()
	d.Doc, d.Model = p.docOrModel()
	switch t := p.peek(); t.Kind {
	case EVENT:
		p.next()
		d.Meta = &CapMeta{Loc: t.Loc, Event: true}
	case MANAGED:
		p.next()
		d.Meta = &CapMeta{Loc: t.Loc}
		if p.peek().Kind == IDENT {
			d.Meta.Param = p.next().Text
			mgr, loc := p.parsedName()
			d.Meta.Manager = &mgr
			d.Meta.Loc = t.Loc.To(loc)
		}
	}
	if !sig {
		d.Body = p.block()
	}
	d.Loc = open.Loc.To(p.expect(RPAREN).Loc)
	return d
}

func (p *parser) defconst() *DefConst {
	open := p.next()
	p.next() // defconst
	name := p.expect(IDENT)
	d := &DefConst{Name: name.Text, NameLoc: name.Loc}
	d.Type = p.optType()
	d.Value = p.expr()
	d.Doc = p.optDoc()
	d.Loc = open.Loc.To(p.expect(RPAREN).Loc)
	return d
}

func (p *parser) defschema() *DefSchema {
	open := p.next()
	p.next() // defschema
	name := p.expect(IDENT)
	d := &DefSchema{Name: name.Text, NameLoc: name.Loc}
	d.Doc, d.Model = p.docOrModel()
	for p.peek().Kind == IDENT {
		d.Fields = append(d.Fields, p.marg())
	}
	d.Loc = open.Loc.To(p.expectOneOf(RPAREN, IDENT).Loc)
	return d
}

func (p *parser) deftable() *DefTable {
	open := p.next()
	p.next() // deftable
	name := p.expect(IDENT)
	d := &DefTable{Name: name.Text, NameLoc: name.Loc}
	p.expect(COLON)
	p.expect(LBRACE)
	d.Schema, _ = p.parsedName()
	p.expect(RBRACE)
	d.Doc = p.optDoc()
	d.Loc = open.Loc.To(p.expect(RPAREN).Loc)
	return d
}

func (p *parser) defpact(sig bool) *DefPact {
	open := p.next()
	p.next() // defpact
	name := p.expect(IDENT)
	d := &DefPact{Name: name.Text, NameLoc: name.Loc}
	d.Ret = p.optType()
	d.Args = p.argList()
	d.Doc, d.Model = p.docOrModel()
	if !sig {
		d.Steps = append(d.Steps, p.step())
		for p.peek().Kind == LPAREN {
			d.Steps = append(d.Steps, p.step())
		}
	}
	d.Loc = open.Loc.To(p.expect(RPAREN).Loc)
	return d
}

// step parses (step [entity] expr [@model]) or
// (step-with-rollback [entity] expr rollback [@model]).
func (p *parser) step() *Step {
	open := p.expect(LPAREN)
	kw := p.peek()
	if kw.Kind != STEP && kw.Kind != STEPRB {
		p.failExpected(expectedKinds(STEP, STEPRB))
	}
	p.next()
	min := 1
	if kw.Kind == STEPRB {
		min = 2
	}
	var xs []Expr
	for len(xs) < min+1 {
		if k := p.peek().Kind; k == RPAREN || k == MODEL {
			break
		}
		xs = append(xs, p.expr())
	}
	if len(xs) < min {
		p.failExpected(exprStart)
	}
	s := &Step{}
	if len(xs) > min {
		s.Entity, xs = xs[0], xs[1:]
	}
	s.Expr = xs[0]
	if kw.Kind == STEPRB {
		s.Rollback = xs[1]
	}
	var close Token
	if p.peek().Kind == MODEL {
		s.Model = p.modelAnn()
		close = p.expect(RPAREN)
	} else {
		close = p.expectOneOf(RPAREN, MODEL)
	}
	s.Loc = open.Loc.To(close.Loc)
	return s
}

// argList parses "(a b:type ...)".
func (p *parser) argList() []Arg {
	p.expect(LPAREN)
	var args []Arg
	for p.peek().Kind == IDENT {
		args = append(args, p.marg())
	}
	p.expectOneOf(RPAREN, IDENT)
	return args
}

// marg parses "name" or "name:type".
func (p *parser) marg() Arg {
	t := p.expect(IDENT)
	a := Arg{Loc: t.Loc, Name: t.Text}
	if p.peek().Kind == COLON {
		p.next()
		a.Type = p.typ()
		a.Loc = t.Loc.To(a.Type.Span())
	}
	return a
}

func (p *parser) optType() Type {
	if p.peek().Kind != COLON {
		return nil
	}
	p.next()
	return p.typ()
}

// docOrModel parses the optional annotations of a definition: @doc "s",
// @model [...], both in either order, or a bare docstring.
func (p *parser) docOrModel() (d *Doc, m *Model) {
	switch p.peek().Kind {
	case DOC:
		d = p.docAnn()
		if p.peek().Kind == MODEL {
			m = p.modelAnn()
		}
	case MODEL:
		m = p.modelAnn()
		if p.peek().Kind == DOC {
			d = p.docAnn()
		}
	case STRING:
		t := p.next()
		d = &Doc{Loc: t.Loc, Text: t.Text}
	}
	return d, m
}

// optDoc parses the optional @doc "s" or docstring of defconst and deftable.
func (p *parser) optDoc() *Doc {
	switch t := p.peek(); t.Kind {
	case DOC:
		return p.docAnn()
	case STRING:
		p.next()
		return &Doc{Loc: t.Loc, Text: t.Text}
	}
	return nil
}

func (p *parser) docAnn() *Doc {
	at := p.next()
	s := p.expect(STRING)
	return &Doc{Loc: at.Loc.To(s.Loc), Text: s.Text, Ann: true}
}

func (p *parser) modelAnn() *Model {
	at := p.next()
	p.expect(LBRACK)
	props := p.props(RBRACK)
	return &Model{Loc: at.Loc.To(p.next().Loc), Props: props}
}

// ---------------------------------------------------------------------------
// Model properties

// props parses property expressions up to the closing kind, which it leaves.
func (p *parser) props(closer Kind) []PropExpr {
	var xs []PropExpr
	for p.peek().Kind != closer {
		xs = append(xs, p.prop())
	}
	return xs
}

func (p *parser) prop() PropExpr {
	p.enter()
	defer p.leave()
	t := p.peek()
	switch t.Kind {
	case LPAREN, LBRACK:
		closer := RPAREN
		if t.Kind == LBRACK {
			closer = RBRACK
		}
		p.next()
		items := p.props(closer)
		return &PropSeq{Brackets: t.Kind == LBRACK, Items: items, Loc: t.Loc.To(p.next().Loc)}
	case IDENT:
		name, loc := p.parsedName()
		return &PropAtom{Name: name, Loc: loc}
	case INT:
		return p.number().(PropExpr)
	case STRING, SYMBOL:
		p.next()
		return &StringLit{Loc: t.Loc, Value: t.Text}
	case TRUE, FALSE:
		p.next()
		return &BoolLit{Loc: t.Loc, Value: t.Kind == TRUE}
	case LET, LAMBDA:
		p.next()
		return &PropKeyword{Loc: t.Loc, Keyword: t.Kind}
	case LBRACE, RBRACE, COLON, COMMA:
		p.next()
		return &PropDelim{Loc: t.Loc, Delim: t.Kind}
	}
	p.failExpected(expectedKinds(LPAREN, LBRACK, IDENT, INT, STRING, SYMBOL, TRUE, FALSE, LET, LAMBDA, LBRACE, RBRACE, COLON, COMMA))
	return nil
}
