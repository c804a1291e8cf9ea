package syntax

// The parser is a recursive-descent transcription of upstream's LALR
// grammar (Pact.Core.Syntax.Parser, spec §3.2–§3.3). Where that grammar is
// ambiguous, happy resolves shift/reduce conflicts by shifting, and we make
// the same choice so that the same programs are accepted:
//   - a string right after a definition's argument list is its docstring,
//     so (defun f () "a") has no body and is an error;
//   - @managed followed by an identifier takes the PARAM MGR form, so
//     (defcap c (x) @managed x) is an error;
//   - name:IDENT followed by '{' is a schema type, so
//     (let ((o:object {"a": 1})) o) is an error.
// Upstream also accepts tokens separated by whitespace where we might expect
// one lexeme (1 . 5 is the decimal 1.5, coin . transfer a qualified name)
// and one leading comma in an object literal ({, "a": 1}); so do we.

import (
	"strconv"
	"strings"
)

// MaxDepth bounds the nesting of expressions, types and model properties.
// Deeper input is rejected with a NestingTooDeep error, so that this parser
// and every recursive walk over its trees run in bounded stack.
const MaxDepth = 1000

// maxPlaces is the largest number of decimal places a literal may have.
const maxPlaces = 255

// ParseProgram parses a Pact program: a sequence of modules, interfaces,
// use forms and expressions, as in a transaction's code or a .pact file.
func ParseProgram(file, src string) (*File, error) { return parseFile(file, src, false) }

// ParseRepl parses a REPL script, which may also contain top-level defun and
// defconst forms.
func ParseRepl(file, src string) (*File, error) { return parseFile(file, src, true) }

// ParseFile parses a file loaded by the pact tool the way upstream does: a
// name ending in ".pact" is a program, anything else a REPL script.
func ParseFile(file, src string) (*File, error) {
	if strings.HasSuffix(file, ".pact") {
		return ParseProgram(file, src)
	}
	return ParseRepl(file, src)
}

// ParseExpr parses exactly one expression.
func ParseExpr(file, src string) (Expr, error) {
	p := newParser(file, src, false)
	var e Expr
	err := p.run(func() {
		e = p.expr()
		if t := p.peek(); t.Kind != EOF {
			p.fail(p.leftover(t))
		}
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

func parseFile(file, src string, repl bool) (*File, error) {
	p := newParser(file, src, repl)
	f := &File{Name: file}
	err := p.run(func() {
		for p.peek().Kind != EOF {
			f.Items = append(f.Items, p.topLevel())
		}
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// parser pulls tokens from the lexer as it goes rather than lexing the whole
// input first: a token slice would cost more than the tree it produces.
type parser struct {
	lx    lexer
	tok   Token    // the current token
	ahead [2]Token // tokens after tok already lexed, for lookahead
	n     int      // how many of ahead are in use
	depth int
	repl  bool
}

func newParser(file, src string, repl bool) *parser {
	return &parser{lx: lexer{file: file, src: src, line: 1, col: 1}, repl: repl}
}

// bailout carries an error from deep in the descent to run, as go/parser
// does; it keeps every production free of error plumbing.
type bailout struct{ err *Error }

func (p *parser) fail(err *Error) { panic(bailout{err}) }

// run calls f and turns a bailout into an error. Any other panic is a bug
// and is not swallowed, so that fuzzing finds it.
//
// Upstream lexes all of its input before parsing, so a lexical error
// anywhere is reported in preference to a parse error before it. We lex
// lazily, so after a parse error we lex the rest of the input to find out.
func (p *parser) run(f func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		b, ok := r.(bailout)
		if !ok {
			panic(r)
		}
		err = b.err
		if k := b.err.Kind; k == LexicalError || k == StringLiteralError {
			return
		}
		for {
			t, lexErr := p.lx.next()
			if lexErr != nil {
				err = lexErr
				return
			}
			if t.Kind == EOF {
				return
			}
		}
	}()
	if err := p.lx.checkUTF8(); err != nil {
		p.fail(err)
	}
	p.tok = p.lex()
	f()
	return nil
}

func (p *parser) lex() Token {
	t, err := p.lx.next()
	if err != nil {
		p.fail(err)
	}
	return t
}

func (p *parser) peek() Token { return p.tok }

// peekAt looks k tokens ahead (k <= len(ahead)); past the end it returns EOF.
// The grammar needs two tokens of lookahead beyond the current one, to tell
// a binding form {"k" := v} from an object {"k": v}.
func (p *parser) peekAt(k int) Token {
	if k == 0 {
		return p.tok
	}
	for p.n < k {
		p.ahead[p.n] = p.lex()
		p.n++
	}
	return p.ahead[k-1]
}

func (p *parser) next() Token {
	t := p.tok
	switch {
	case t.Kind == EOF:
	case p.n > 0:
		p.tok = p.ahead[0]
		copy(p.ahead[:p.n-1], p.ahead[1:p.n])
		p.n--
	default:
		p.tok = p.lex()
	}
	return t
}

// expect consumes a token of kind k or fails with "Expected: [k]".
func (p *parser) expect(k Kind) Token {
	if p.tok.Kind != k {
		p.failExpected(expectedKinds(k))
	}
	return p.next()
}

// expectOneOf consumes a token of kind k; on failure it names all of the
// kinds that would have been acceptable here.
func (p *parser) expectOneOf(k Kind, alternatives ...Kind) Token {
	if p.tok.Kind != k {
		p.failExpected(expectedKinds(append([]Kind{k}, alternatives...)...))
	}
	return p.next()
}

func (p *parser) failExpected(what string) {
	p.fail(expectedError(p.tok.Loc, what, p.tok))
}

// leftover reports input after a complete form where none may follow. As
// upstream does, a stray ')' is reported with the tokens after it, other
// leftovers with themselves included; at most ten are shown.
func (p *parser) leftover(t Token) *Error {
	rest := append([]Token(nil), p.ahead[:p.n]...)
	for len(rest) < 11 && (len(rest) == 0 || rest[len(rest)-1].Kind != EOF) {
		rest = append(rest, p.lex())
	}
	if t.Kind == RPAREN {
		return &Error{Kind: TooManyCloseParens, Loc: t.Loc,
			Msg: "Too many closing parens, remaining tokens: " + renderRemaining(rest)}
	}
	return &Error{Kind: UnexpectedInput, Loc: t.Loc,
		Msg: "Unexpected input after expr, remaining tokens: " + renderRemaining(append([]Token{t}, rest...))}
}

func (p *parser) enter() {
	p.depth++
	if p.depth > MaxDepth {
		t := p.peek()
		p.fail(&Error{Kind: NestingTooDeep, Loc: t.Loc,
			Msg: "Nesting too deep: more than " + strconv.Itoa(MaxDepth) + " levels"})
	}
}

func (p *parser) leave() { p.depth-- }

// exprStart lists what may begin an expression, for error messages.
var exprStart = expectedKinds(LPAREN, IDENT, INT, STRING, SYMBOL, LBRACK, LBRACE, TRUE, FALSE)

// ---------------------------------------------------------------------------
// Names and types

// parsedName parses name, mod.name, ns.mod.name or modref::name.
func (p *parser) parsedName() (Name, Span) {
	t := p.expect(IDENT)
	switch p.peek().Kind {
	case DOT:
		p.next()
		m := p.expect(IDENT)
		if p.peek().Kind == DOT {
			p.next()
			n := p.expect(IDENT)
			return Name{Kind: QualifiedName, Namespace: t.Text, Module: m.Text, Name: n.Text}, t.Loc.To(n.Loc)
		}
		return Name{Kind: QualifiedName, Module: t.Text, Name: m.Text}, t.Loc.To(m.Loc)
	case DYNACC:
		p.next()
		m := p.expect(IDENT)
		return Name{Kind: DynamicName, Module: t.Text, Name: m.Text}, t.Loc.To(m.Loc)
	}
	return Name{Kind: BareName, Name: t.Text}, t.Loc
}

// modQual parses mod or ns.mod.
func (p *parser) modQual() ModuleName {
	t := p.expect(IDENT)
	if p.peek().Kind == DOT {
		p.next()
		return ModuleName{Namespace: t.Text, Name: p.expect(IDENT).Text}
	}
	return ModuleName{Name: t.Text}
}

func (p *parser) typ() Type {
	p.enter()
	defer p.leave()
	t := p.peek()
	switch t.Kind {
	case LBRACK:
		p.next()
		elem := p.typ()
		return &ListType{Elem: elem, Loc: t.Loc.To(p.expect(RBRACK).Loc)}
	case MODULE:
		p.next()
		p.expect(LBRACE)
		x := &ModRefType{Interfaces: []ModuleName{p.modQual()}}
		for p.peek().Kind == COMMA {
			p.next()
			x.Interfaces = append(x.Interfaces, p.modQual())
		}
		x.Loc = t.Loc.To(p.expectOneOf(RBRACE, COMMA).Loc)
		return x
	case IDENT:
		p.next()
		if p.peek().Kind == LBRACE {
			p.next()
			name := p.schemaName()
			close := p.expect(RBRACE)
			if t.Text != "object" && t.Text != "table" {
				p.fail(&Error{Kind: InvalidBaseType, Loc: t.Loc, Msg: "No such type: " + t.Text})
			}
			return &SchemaType{Loc: t.Loc.To(close.Loc), Table: t.Text == "table", Schema: name}
		}
		prim, ok := primType(t.Text)
		if !ok {
			p.fail(&Error{Kind: InvalidBaseType, Loc: t.Loc, Msg: "No such type: " + t.Text})
		}
		return &PrimType{Loc: t.Loc, Prim: prim}
	}
	p.failExpected(expectedKinds(LBRACK, MODULE, IDENT))
	return nil
}

// schemaName parses the schema of object{...} or table{...}: a bare or
// qualified name, never a dynamic one.
func (p *parser) schemaName() Name {
	a := p.expect(IDENT)
	if p.peek().Kind != DOT {
		return Name{Kind: BareName, Name: a.Text}
	}
	p.next()
	b := p.expect(IDENT)
	if p.peek().Kind != DOT {
		return Name{Kind: QualifiedName, Module: a.Text, Name: b.Text}
	}
	p.next()
	return Name{Kind: QualifiedName, Namespace: a.Text, Module: b.Text, Name: p.expect(IDENT).Text}
}

// ---------------------------------------------------------------------------
// Expressions

func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	t := p.peek()
	switch t.Kind {
	case LPAREN:
		switch p.peekAt(1).Kind {
		case RPAREN:
			p.next()
			return &UnitLit{Loc: t.Loc.To(p.next().Loc)}
		case LAMBDA:
			return p.lambda()
		case LET, LETSTAR:
			return p.let()
		}
		p.next()
		fn := p.expr()
		args := p.appArgs()
		return &App{Fn: fn, Args: args, Loc: t.Loc.To(p.next().Loc)}
	case IDENT:
		name, loc := p.parsedName()
		return &Var{Name: name, Loc: loc}
	case INT:
		return p.number()
	case STRING, SYMBOL:
		p.next()
		return &StringLit{Loc: t.Loc, Value: t.Text}
	case TRUE, FALSE:
		p.next()
		return &BoolLit{Loc: t.Loc, Value: t.Kind == TRUE}
	case LBRACK:
		return p.list()
	case LBRACE:
		return p.object()
	}
	p.failExpected(exprStart)
	return nil
}

// appArgs parses an application's arguments up to (not including) its ')'.
// A binding form takes the remaining arguments as its body.
func (p *parser) appArgs() []Expr {
	var args []Expr
	for {
		switch p.peek().Kind {
		case RPAREN:
			return args
		case EOF:
			p.failExpected(expectedKinds(RPAREN))
		case LBRACE:
			if k := p.peekAt(1).Kind; (k == STRING || k == SYMBOL) && p.peekAt(2).Kind == BIND {
				return append(args, p.binding())
			}
		}
		args = append(args, p.expr())
	}
}

func (p *parser) binding() *Binding {
	p.enter()
	defer p.leave()
	open := p.next()
	b := &Binding{Binds: []Bind{p.bindPair()}}
	for p.peek().Kind == COMMA {
		p.next()
		b.Binds = append(b.Binds, p.bindPair())
	}
	end := p.expectOneOf(RBRACE, COMMA).Loc
	b.Body = p.appArgs()
	if n := len(b.Body); n > 0 {
		end = b.Body[n-1].Span()
	}
	b.Loc = open.Loc.To(end)
	return b
}

func (p *parser) bindPair() Bind {
	k := p.fieldKey()
	p.expect(BIND)
	return Bind{Key: k, Var: p.marg()}
}

func (p *parser) fieldKey() Field {
	t := p.peek()
	if t.Kind != STRING && t.Kind != SYMBOL {
		p.failExpected(expectedKinds(STRING, SYMBOL))
	}
	p.next()
	return Field{Loc: t.Loc, Name: t.Text}
}

// number parses an integer or a decimal NUM '.' NUM.
func (p *parser) number() Expr {
	t := p.next()
	if p.peek().Kind != DOT {
		return &IntLit{Loc: t.Loc, Text: t.Text}
	}
	p.next()
	f := p.peek()
	if f.Kind != INT || f.Text[0] == '-' {
		p.failExpected("[digits after the decimal point]")
	}
	p.next()
	loc := t.Loc.To(f.Loc)
	if len(f.Text) > maxPlaces {
		p.fail(&Error{Kind: PrecisionOverflow, Loc: loc,
			Msg: "Precision overflow (>=255 decimal places):  " + strconv.Itoa(len(f.Text)) + " decimals"})
	}
	return &DecimalLit{Loc: loc, Int: t.Text, Frac: f.Text}
}

// list parses [a b c] or [a, b, c]; the separator is fixed by the first one.
func (p *parser) list() *List {
	open := p.next()
	l := &List{}
	if p.peek().Kind != RBRACK {
		l.Elems = append(l.Elems, p.expr())
		if p.peek().Kind == COMMA {
			for p.peek().Kind == COMMA {
				p.next()
				l.Elems = append(l.Elems, p.expr())
			}
		} else {
			for p.peek().Kind != RBRACK {
				if k := p.peek().Kind; k == COMMA {
					t := p.peek()
					p.fail(&Error{Kind: ParsingError, Loc: t.Loc,
						Msg: "Expected: [']', expression], found ',' (list elements are separated by spaces or by commas, not both)"})
				} else if k == EOF {
					p.failExpected(expectedKinds(RBRACK))
				}
				l.Elems = append(l.Elems, p.expr())
			}
		}
	}
	l.Loc = open.Loc.To(p.expectOneOf(RBRACK, COMMA).Loc)
	return l
}

func (p *parser) object() *Object {
	open := p.next()
	o := &Object{}
	if p.peek().Kind == COMMA {
		if k := p.peekAt(1).Kind; k == STRING || k == SYMBOL {
			p.next() // upstream's grammar admits one leading comma
		}
	}
	if p.peek().Kind != RBRACE {
		o.Fields = append(o.Fields, p.objectField())
		for p.peek().Kind == COMMA {
			p.next()
			o.Fields = append(o.Fields, p.objectField())
		}
	}
	o.Loc = open.Loc.To(p.expectOneOf(RBRACE, COMMA).Loc)
	return o
}

func (p *parser) objectField() ObjectField {
	k := p.fieldKey()
	p.expect(COLON)
	return ObjectField{Key: k, Value: p.expr()}
}

// block parses one or more expressions up to a ')'.
func (p *parser) block() []Expr {
	xs := []Expr{p.expr()}
	for p.peek().Kind != RPAREN {
		xs = append(xs, p.expr())
	}
	return xs
}

func (p *parser) lambda() *Lambda {
	open := p.next()
	p.next() // lambda
	l := &Lambda{Args: p.argList()}
	l.Body = p.block()
	l.Loc = open.Loc.To(p.next().Loc)
	return l
}

func (p *parser) let() *Let {
	open := p.next()
	l := &Let{Star: p.next().Kind == LETSTAR}
	p.expect(LPAREN)
	for {
		bo := p.expect(LPAREN)
		v := p.marg()
		val := p.expr()
		l.Binders = append(l.Binders, Binder{Var: v, Value: val, Loc: bo.Loc.To(p.expect(RPAREN).Loc)})
		if p.peek().Kind != LPAREN {
			break
		}
	}
	p.expectOneOf(RPAREN, LPAREN)
	l.Body = p.block()
	l.Loc = open.Loc.To(p.next().Loc)
	return l
}
