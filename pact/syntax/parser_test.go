package syntax

import (
	"reflect"
	"strings"
	"testing"
)

func mustParseExpr(t *testing.T, src string) Expr {
	t.Helper()
	e, err := ParseExpr("t.pact", src)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", src, err)
	}
	return e
}

func mustParseRepl(t *testing.T, src string) *File {
	t.Helper()
	f, err := ParseRepl("t.repl", src)
	if err != nil {
		t.Fatalf("ParseRepl(%q): %v", src, err)
	}
	return f
}

// single parses src as a REPL script holding one top-level form.
func single[T Node](t *testing.T, src string) T {
	t.Helper()
	f := mustParseRepl(t, src)
	if len(f.Items) != 1 {
		t.Fatalf("%q: %d top-level forms, want 1", src, len(f.Items))
	}
	x, ok := f.Items[0].(T)
	if !ok {
		t.Fatalf("%q: got %T", src, f.Items[0])
	}
	return x
}

func TestParseExprs(t *testing.T) {
	tests := []struct{ src, want string }{
		// Atoms.
		{"x", "x"},
		{"coin.transfer", "coin.transfer"},
		{"free.coin.transfer", "free.coin.transfer"},
		{"coin . transfer", "coin.transfer"}, // upstream's grammar works on tokens
		{"m::f", "m::f"},
		{"42", "42"},
		{"-5", "-5"},
		{"-5x", "-5x"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"1.5", "1.5"},
		{"1.50", "1.50"},
		{"-0.5", "-0.5"},
		{"1 . 25", "1.25"},
		{`"s"`, `"s"`},
		{"'sym", `"sym"`},
		{`"a\"b\\c\nd\te'f"`, `"a\"b\\c\nd\te'f"`},
		{"true", "true"},
		{"false", "false"},
		{"()", "()"},
		{"( )", "()"},

		// Lists: spaces or commas, not mixed.
		{"[]", "[]"},
		{"[1]", "[1]"},
		{"[1 2 3]", "[1 2 3]"},
		{"[1, 2, 3]", "[1 2 3]"},
		{"[1,2,3]", "[1 2 3]"},
		{"[[1] [2, 3] []]", "[[1] [2 3] []]"},

		// Objects.
		{"{}", "{}"},
		{`{"a": 1}`, `{"a": 1}`},
		{`{'a: 1, "b": [true], 'c: {'d: ()}}`, `{"a": 1, "b": [true], "c": {"d": ()}}`},
		{`{, "a": 1, 'b: 2}`, `{"a": 1, "b": 2}`}, // one leading comma, as upstream

		// Applications; special forms are applications.
		{"(f)", "(f)"},
		{"(+ 1 2)", "(+ 1 2)"},
		{"((f 1) 2)", "((f 1) 2)"},
		{"(if (> a 1) a b)", "(if (> a 1) a b)"},
		{"(and a b)", "(and a b)"},
		{"(cond ((< a 1) 'x) ((< a 2) 'y) 'z)", `(cond ((< a 1) "x") ((< a 2) "y") "z")`},
		{"(with-capability (TRANSFER a b 1.0) (transfer a b 1.0))", "(with-capability (TRANSFER a b 1.0) (transfer a b 1.0))"},
		{"(m::transfer 'a 'b 1.0)", `(m::transfer "a" "b" 1.0)`},
		{"(map (+ 1) [1 2 3])", "(map (+ 1) [1 2 3])"},
		{`(f {"a": 1} {})`, `(f {"a": 1} {})`},

		// Binding forms take the rest of the arguments as their body.
		{`(bind o {"a" := a} a)`, `(bind o {"a" := a} a)`},
		{`(with-read t k {'a := a, "b" := b:integer} (+ a b) b)`, `(with-read t k {"a" := a, "b" := b:integer} (+ a b) b)`},
		{`(resume {"x" := x})`, `(resume {"x" := x})`},
		{`(f {"a" := a} {'b := b} c)`, `(f {"a" := a} {"b" := b} c)`},

		// let, let*, lambda.
		{"(let ((x 1)) x)", "(let ((x 1)) x)"},
		{"(let ((x:integer 1) (y 2.0)) (+ x 1) y)", "(let ((x:integer 1) (y 2.0)) (+ x 1) y)"},
		{"(let* ((a 1) (b (+ a 1))) b)", "(let* ((a 1) (b (+ a 1))) b)"},
		{"(lambda () 1)", "(lambda () 1)"},
		{"(lambda (x y:[string] m:module{a, ns.b}) x)", "(lambda (x y:[string] m:module{a, ns.b}) x)"},
		{"(lambda (o:object{s} t:table{ns.m.s} l:list) o)", "(lambda (o:object{s} t:table{ns.m.s} l:list) o)"},

		// Comments anywhere.
		{"(+ 1 ; one\n 2 ;two\n ; three\n )", "(+ 1 2)"},
	}
	for _, tt := range tests {
		e, err := ParseExpr("t.pact", tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("ParseExpr(%q) prints %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestParseExprStructure(t *testing.T) {
	d := mustParseExpr(t, "-1.50").(*DecimalLit)
	if d.Int != "-1" || d.Frac != "50" || d.Places() != 2 {
		t.Errorf("decimal = %+v", d)
	}
	if u, ok := d.Unscaled(); !ok || u.String() != "-150" {
		t.Errorf("Unscaled = %v %v", u, ok)
	}
	i := mustParseExpr(t, "-123456789012345678901234567890").(*IntLit)
	if v, ok := i.Value(); !ok || v.String() != "-123456789012345678901234567890" {
		t.Errorf("Value = %v %v", v, ok)
	}
	// 255 places is the most a decimal may have.
	d = mustParseExpr(t, "0."+strings.Repeat("1", 255)).(*DecimalLit)
	if d.Places() != 255 {
		t.Errorf("places = %d", d.Places())
	}

	names := []struct {
		src  string
		want Name
	}{
		{"x", Name{Kind: BareName, Name: "x"}},
		{"coin.details", Name{Kind: QualifiedName, Module: "coin", Name: "details"}},
		{"free.coin.details", Name{Kind: QualifiedName, Namespace: "free", Module: "coin", Name: "details"}},
		{"m::details", Name{Kind: DynamicName, Module: "m", Name: "details"}},
	}
	for _, n := range names {
		if got := mustParseExpr(t, n.src).(*Var).Name; got != n.want {
			t.Errorf("%s: name %+v, want %+v", n.src, got, n.want)
		}
	}

	app := mustParseExpr(t, `(with-default-read t k {"b": 0} {"b" := b} (f b) b)`).(*App)
	if len(app.Args) != 4 {
		t.Fatalf("args = %d", len(app.Args))
	}
	if _, ok := app.Args[2].(*Object); !ok {
		t.Errorf("defaults object parsed as %T", app.Args[2])
	}
	b, ok := app.Args[3].(*Binding)
	if !ok || len(b.Binds) != 1 || b.Binds[0].Key.Name != "b" || b.Binds[0].Var.Name != "b" || len(b.Body) != 2 {
		t.Errorf("binding = %#v", app.Args[3])
	}

	l := mustParseExpr(t, "(let* ((x:[integer] [1]) (y x)) y)").(*Let)
	if !l.Star || len(l.Binders) != 2 || l.Binders[0].Var.Type.(*ListType).Elem.(*PrimType).Prim != PrimInteger {
		t.Errorf("let = %#v", l)
	}
	if l.Binders[1].Var.Type != nil {
		t.Errorf("untyped binder has type %v", l.Binders[1].Var.Type)
	}
}

func TestParseTypes(t *testing.T) {
	prims := []Prim{PrimInteger, PrimDecimal, PrimString, PrimBool, PrimTime, PrimGuard, PrimKeyset, PrimUnit, PrimList, PrimObject}
	for _, p := range prims {
		e := mustParseExpr(t, "(lambda (x:"+string(p)+") x)").(*Lambda)
		if got := e.Args[0].Type.(*PrimType).Prim; got != p {
			t.Errorf("prim %s parsed as %s", p, got)
		}
	}
	tests := []struct {
		src  string
		want Type
	}{
		{"[[bool]]", &ListType{Elem: &ListType{Elem: &PrimType{Prim: PrimBool}}}},
		{"module{fungible-v2}", &ModRefType{Interfaces: []ModuleName{{Name: "fungible-v2"}}}},
		{"module{fungible-v2, free.iface}", &ModRefType{Interfaces: []ModuleName{{Name: "fungible-v2"}, {Namespace: "free", Name: "iface"}}}},
		{"object{s}", &SchemaType{Schema: Name{Kind: BareName, Name: "s"}}},
		{"object{coin.s}", &SchemaType{Schema: Name{Kind: QualifiedName, Module: "coin", Name: "s"}}},
		{"table{free.coin.s}", &SchemaType{Table: true, Schema: Name{Kind: QualifiedName, Namespace: "free", Module: "coin", Name: "s"}}},
	}
	for _, tt := range tests {
		e := mustParseExpr(t, "(lambda (x:"+tt.src+") x)").(*Lambda)
		got := e.Args[0].Type
		zeroSpans(got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("type %s = %#v, want %#v", tt.src, got, tt.want)
		}
		if got.String() != tt.src {
			t.Errorf("type %s prints %s", tt.src, got)
		}
	}
}

func TestParseDefinitions(t *testing.T) {
	t.Run("defun", func(t *testing.T) {
		d := single[*Defun](t, `(defun add:integer (a:integer b) @doc "adds" @model [(property (> a 0))] (+ a b) 1)`)
		if d.Name != "add" || d.Ret.(*PrimType).Prim != PrimInteger || len(d.Args) != 2 || d.Args[1].Type != nil {
			t.Errorf("defun = %#v", d)
		}
		if d.Doc == nil || d.Doc.Text != "adds" || !d.Doc.Ann || d.Model == nil || len(d.Model.Props) != 1 || len(d.Body) != 2 {
			t.Errorf("defun doc/model/body = %#v", d)
		}
		d = single[*Defun](t, `(defun f () "docstring" 1)`)
		if d.Doc == nil || d.Doc.Ann || d.Doc.Text != "docstring" || len(d.Body) != 1 {
			t.Errorf("docstring defun = %#v", d)
		}
		d = single[*Defun](t, `(defun f () @model [] @doc "d" 1)`)
		if d.Doc == nil || d.Model == nil || len(d.Model.Props) != 0 {
			t.Errorf("model-then-doc defun = %#v", d)
		}
	})
	t.Run("defconst", func(t *testing.T) {
		d := single[*DefConst](t, `(defconst X:decimal 1.0 "one")`)
		if d.Name != "X" || d.Type.(*PrimType).Prim != PrimDecimal || d.Value.String() != "1.0" || d.Doc.Text != "one" {
			t.Errorf("defconst = %#v", d)
		}
		d = single[*DefConst](t, `(defconst S "value" @doc "doc")`)
		if d.Value.String() != `"value"` || !d.Doc.Ann {
			t.Errorf("defconst = %#v", d)
		}
	})

	m := single[*Module](t, `
(module m GOV
  @doc "module doc"
  (defcap GOV () true)
  (defcap AUTO (a) @managed true)
  (defcap USER:bool (a:string amt:decimal) "doc" @managed amt m.mgr (enforce true "ok"))
  (defcap DYN (a) @managed a ref::mgr true)
  (defcap EV () @event true)
  (defschema s "schema doc" a:integer b c:[string])
  (defschema empty)
  (deftable t:{s} "table doc")
  (deftable t2:{ns.m.s})
  (defpact p:string (a)
    (step a)
    (step 'entity (f a))
    (step-with-rollback (f a) (g a))
    (step-with-rollback "entity" (f a) (g a) @model [(property true)])
    (step (h a) @model []))
  (use coin)
  (use free.coin "hash")
  (use coin [transfer details])
  (use coin "hash" [])
  (implements fungible-v2)
  (implements free.iface)
  (bless "h1")
  (bless 'h2))`)
	t.Run("module", func(t *testing.T) {
		if m.Name != "m" || m.Gov != (Governance{Loc: m.Gov.Loc, Name: "GOV", Cap: true}) || m.Doc.Text != "module doc" || len(m.Body) != 18 {
			t.Errorf("module = %#v", m)
		}
		for _, src := range []string{`(module m 'ks (defconst c 1))`, `(module m "ks" (defconst c 1))`} {
			if g := single[*Module](t, src).Gov; g.Cap || g.Name != "ks" {
				t.Errorf("%s: gov = %#v", src, g)
			}
		}
	})
	t.Run("defcap", func(t *testing.T) {
		caps := map[string]*DefCap{}
		for _, d := range m.Body {
			if c, ok := d.(*DefCap); ok {
				caps[c.Name] = c
			}
		}
		if c := caps["GOV"]; c.Meta != nil || len(c.Body) != 1 {
			t.Errorf("GOV = %#v", c)
		}
		if c := caps["AUTO"]; c.Meta == nil || c.Meta.Event || c.Meta.Manager != nil || c.Meta.Param != "" {
			t.Errorf("AUTO = %#v", c.Meta)
		}
		if c := caps["USER"]; c.Doc.Text != "doc" || c.Meta.Param != "amt" || *c.Meta.Manager != (Name{Kind: QualifiedName, Module: "m", Name: "mgr"}) {
			t.Errorf("USER = %#v", c.Meta)
		}
		if c := caps["DYN"]; *c.Meta.Manager != (Name{Kind: DynamicName, Module: "ref", Name: "mgr"}) {
			t.Errorf("DYN = %#v", c.Meta)
		}
		if c := caps["EV"]; !c.Meta.Event {
			t.Errorf("EV = %#v", c.Meta)
		}
	})
	t.Run("defschema", func(t *testing.T) {
		s := m.Body[5].(*DefSchema)
		if s.Name != "s" || s.Doc.Text != "schema doc" || len(s.Fields) != 3 || s.Fields[1].Type != nil || s.Fields[2].Type.String() != "[string]" {
			t.Errorf("schema = %#v", s)
		}
		if e := m.Body[6].(*DefSchema); e.Name != "empty" || len(e.Fields) != 0 {
			t.Errorf("empty schema = %#v", e)
		}
	})
	t.Run("deftable", func(t *testing.T) {
		if d := m.Body[7].(*DefTable); d.Name != "t" || d.Schema != (Name{Name: "s"}) || d.Doc.Text != "table doc" {
			t.Errorf("table = %#v", d)
		}
		if d := m.Body[8].(*DefTable); d.Schema != (Name{Kind: QualifiedName, Namespace: "ns", Module: "m", Name: "s"}) {
			t.Errorf("table = %#v", d)
		}
	})
	t.Run("defpact", func(t *testing.T) {
		p := m.Body[9].(*DefPact)
		if p.Ret.String() != "string" || len(p.Steps) != 5 {
			t.Fatalf("pact = %#v", p)
		}
		want := []struct {
			entity, expr, rollback string
			model                  bool
		}{
			{"", "a", "", false},
			{`"entity"`, "(f a)", "", false},
			{"", "(f a)", "(g a)", false},
			{`"entity"`, "(f a)", "(g a)", true},
			{"", "(h a)", "", true},
		}
		str := func(e Expr) string {
			if e == nil {
				return ""
			}
			return e.String()
		}
		for i, w := range want {
			s := p.Steps[i]
			if str(s.Entity) != w.entity || str(s.Expr) != w.expr || str(s.Rollback) != w.rollback || (s.Model != nil) != w.model {
				t.Errorf("step %d = %s", i, s)
			}
		}
	})
	t.Run("extensions", func(t *testing.T) {
		uses := []Use{
			{Module: ModuleName{Name: "coin"}},
			{Module: ModuleName{Namespace: "free", Name: "coin"}, HasHash: true, Hash: "hash"},
			{Module: ModuleName{Name: "coin"}, HasImports: true, Imports: []string{"transfer", "details"}},
			{Module: ModuleName{Name: "coin"}, HasHash: true, Hash: "hash", HasImports: true, Imports: []string{}},
		}
		for i, w := range uses {
			u := m.Body[10+i].(*Use)
			w.Loc = u.Loc
			if !reflect.DeepEqual(*u, w) {
				t.Errorf("use %d = %#v, want %#v", i, *u, w)
			}
		}
		if x := m.Body[14].(*Implements); x.Interface != (ModuleName{Name: "fungible-v2"}) {
			t.Errorf("implements = %#v", x)
		}
		if x := m.Body[15].(*Implements); x.Interface != (ModuleName{Namespace: "free", Name: "iface"}) {
			t.Errorf("implements = %#v", x)
		}
		if x := m.Body[16].(*Bless); x.Hash != "h1" {
			t.Errorf("bless = %#v", x)
		}
		if x := m.Body[17].(*Bless); x.Hash != "h2" {
			t.Errorf("bless = %#v", x)
		}
	})
	t.Run("interface", func(t *testing.T) {
		i := single[*Interface](t, `
(interface iface
  "iface doc"
  (defun f:integer (a:integer))
  (defun g () @doc "g doc" @model [(property true)])
  (defcap C:bool (a:decimal) @managed a C-mgr)
  (defcap E () @event)
  (defcap P ())
  (defpact p (a) "pact doc")
  (defconst K 1)
  (defschema s a:integer)
  (use coin))`)
		if i.Name != "iface" || i.Doc.Text != "iface doc" || len(i.Body) != 9 {
			t.Fatalf("interface = %#v", i)
		}
		if f := i.Body[0].(*Defun); f.Body != nil || f.Ret.String() != "integer" {
			t.Errorf("defun sig = %#v", f)
		}
		if c := i.Body[2].(*DefCap); c.Meta.Param != "a" || c.Body != nil {
			t.Errorf("defcap sig = %#v", c)
		}
		if p := i.Body[5].(*DefPact); p.Steps != nil || p.Doc.Text != "pact doc" {
			t.Errorf("defpact sig = %#v", p)
		}
	})
	t.Run("toplevel", func(t *testing.T) {
		f := mustParseRepl(t, `(use coin) (namespace 'free) (defun f () 1) (defconst c 2) (+ 1 2) x`)
		kinds := []string{"*syntax.Use", "*syntax.App", "*syntax.Defun", "*syntax.DefConst", "*syntax.App", "*syntax.Var"}
		for i, it := range f.Items {
			if got := reflect.TypeOf(it).String(); got != kinds[i] {
				t.Errorf("item %d = %s, want %s", i, got, kinds[i])
			}
		}
		if _, err := ParseProgram("t.pact", "(defun f () 1)"); err == nil || !strings.Contains(err.Error(), "only in REPL scripts") {
			t.Errorf("top-level defun in a program: %v", err)
		}
		if _, err := ParseProgram("t.pact", "(defconst c 1)"); err == nil {
			t.Error("top-level defconst accepted in a program")
		}
		if f, err := ParseProgram("t.pact", "(use coin) (module m g (defconst c 1)) (coin.transfer 'a 'b 1.0)"); err != nil || len(f.Items) != 3 {
			t.Errorf("program: %v", err)
		}
		// ParseFile picks the grammar by extension, as the pact tool does.
		for name, ok := range map[string]bool{"a.pact": false, "a.repl": true, "dir.pact/a": true, "a.pact.repl": true} {
			if _, err := ParseFile(name, "(defun f () 1)"); (err == nil) != ok {
				t.Errorf("ParseFile(%q): %v", name, err)
			}
		}
	})
}

func TestParseModelProperties(t *testing.T) {
	d := single[*Defun](t, `(defun f (a) @model [(property (forall (x:integer) (> x 0))) [1 2.5 "s" 'sym true] {a : b, c} (let lambda) q.r ns.q.r m::f ()] 1)`)
	want := `@model [(property (forall (x : integer) (> x 0))) [1 2.5 "s" "sym" true] { a : b , c } (let lambda) q.r ns.q.r m::f ()]`
	if got := Format(d); !strings.Contains(got, want) {
		t.Errorf("model prints %s\nwant it to contain %s", got, want)
	}
	props := d.Model.Props
	if len(props) != 14 {
		t.Fatalf("props = %d", len(props))
	}
	if s := props[1].(*PropSeq); !s.Brackets || len(s.Items) != 5 {
		t.Errorf("bracket seq = %#v", s)
	}
	if k := props[2].(*PropDelim); k.Delim != LBRACE {
		t.Errorf("delim = %#v", k)
	}
	if a := props[12].(*PropAtom); a.Name != (Name{Kind: DynamicName, Module: "m", Name: "f"}) {
		t.Errorf("atom = %#v", a)
	}
	// Only let and lambda are keywords inside models, and ':=' is no delimiter.
	for _, src := range []string{
		`(defun f () @model [(let* x)] 1)`,
		`(defun f () @model [{a := b}] 1)`,
		`(defun f () @model [(defun)] 1)`,
		`(defun f () @model [(] 1)`,
		`(defun f () @model (property) 1)`,
	} {
		if _, err := ParseRepl("t.repl", src); err == nil {
			t.Errorf("%s: accepted", src)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		kind ErrorKind
		pos  string
		msg  string
	}{
		// Lexical errors surface through the parser.
		{`(f "a\qb")`, StringLiteralError, "1:6", "Invalid escape sequence"},
		{"(f \"a\nb\")", StringLiteralError, "1:6", "newline in string literal"},
		{"(+ 1 2) (f `x)", LexicalError, "1:12", "unexpected character"},
		{"(f \xff)", LexicalError, "1:4", "invalid UTF-8"},
		// As upstream, which lexes everything first, a lexical error wins
		// over a parse error earlier in the input.
		{"(f ]) (g \"a\\q\")", StringLiteralError, "1:12", "Invalid escape sequence"},
		{"(+ 1 2)) `", LexicalError, "1:10", "unexpected character"},
		{"(" + strings.Repeat("(", MaxDepth) + " \"", StringLiteralError, "1:1003", "did not close string literal"},

		// Numbers.
		{"1.", ParsingError, "1:3", "Expected: [digits after the decimal point], found EOF"},
		{"(f 1. x)", ParsingError, "1:7", "Expected: [digits after the decimal point], found ident<x>"},
		{".5", ParsingError, "1:1", "Expected: ['(', IDENT, NUM, STR, TICK, '[', '{', true, false], found '.'"},
		{"1.-5", ParsingError, "1:3", "digits after the decimal point"},
		{"1.x", ParsingError, "1:3", "digits after the decimal point"},
		{"1." + strings.Repeat("0", 256), PrecisionOverflow, "1:1", "Precision overflow (>=255 decimal places):  256 decimals"},
		{"(f -0." + strings.Repeat("9", 300) + ")", PrecisionOverflow, "1:4", "300 decimals"},

		// Lists and objects.
		{"[1, 2 3]", ParsingError, "1:7", "Expected: [']', ','], found number<3>"},
		{"[1 2, 3]", ParsingError, "1:5", "not both"},
		{"[1, 2,]", ParsingError, "1:7", "Expected:"},
		{"[,]", ParsingError, "1:2", "Expected:"},
		{"[1 2", ParsingError, "1:5", "Expected: [']'], found EOF"},
		{`{"a" 1}`, ParsingError, "1:6", "Expected: [':'], found number<1>"},
		{`{"a": 1 "b": 2}`, ParsingError, "1:9", `Expected: ['}', ','], found "b"`},
		{`{"a": 1,}`, ParsingError, "1:9", "Expected: [STR, TICK], found '}'"},
		{`{a: 1}`, ParsingError, "1:2", "Expected: [STR, TICK], found ident<a>"},
		{`{, }`, ParsingError, "1:2", "Expected: [STR, TICK]"},
		{`{"a" := x}`, ParsingError, "1:6", "Expected: [':']"},
		{`(f {"a" := x, "b": 1})`, ParsingError, "1:18", "Expected: [':=']"},

		// Applications and special forms.
		{"(+ 1 2", ParsingError, "1:7", "Expected: [')'], found EOF"},
		{"(+ 1 2))", TooManyCloseParens, "1:8", "Too many closing parens, remaining tokens: []"},
		{"(+ 1 2)) x y", TooManyCloseParens, "1:8", "remaining tokens: [ident<x>, ident<y>]"},
		{"(+ 1 2) 3", UnexpectedInput, "1:9", "Unexpected input after expr, remaining tokens: [number<3>]"},
		{"(let () 1)", ParsingError, "1:7", "Expected: ['(']"},
		{"(let ((x 1)))", ParsingError, "1:13", "Expected: ['('"},
		{"(let ((x)) x)", ParsingError, "1:9", "Expected: ['('"},
		{"(let ((1 x)) x)", ParsingError, "1:8", "Expected: [IDENT], found number<1>"},
		{"(lambda x x)", ParsingError, "1:9", "Expected: ['(']"},
		{"(lambda (x))", ParsingError, "1:12", "Expected:"},
		{"(lambda (1) 1)", ParsingError, "1:10", "Expected: [')', IDENT]"},
		{"(lambda (x:foo) x)", InvalidBaseType, "1:12", "No such type: foo"},
		{"(lambda (x:any) x)", InvalidBaseType, "1:12", "No such type: any"},
		{"(lambda (x:list{s}) x)", InvalidBaseType, "1:12", "No such type: list"},
		{"(lambda (x:object{m::s}) x)", ParsingError, "1:20", "Expected: ['}'], found '::'"},
		{"(lambda (x:module{}) x)", ParsingError, "1:19", "Expected: [IDENT]"},
		{"(lambda (x:[integer) x)", ParsingError, "1:20", "Expected: [']']"},
		{"(lambda (x:) x)", ParsingError, "1:12", "Expected: ['[', module, IDENT]"},
		{"(let ((o:object {'a: 1})) o)", ParsingError, "1:18", "Expected: [IDENT], found 'a"},
		{"(f a.b.c.d)", ParsingError, "1:9", "Expected:"},
		{"(f a.)", ParsingError, "1:6", "Expected: [IDENT]"},
		{"(f a::)", ParsingError, "1:7", "Expected: [IDENT]"},
		{"(f let)", ParsingError, "1:4", "found let"},
		{"(defun)", ParsingError, "1:2", "found defun"},
		{"(module)", ParsingError, "1:2", "found module"},
		{"", ParsingError, "1:1", "found EOF"},
	}
	for _, tt := range tests {
		_, err := ParseExpr("t.pact", tt.src)
		checkErr(t, tt.src, err, tt.kind, tt.pos, tt.msg)
	}
}

func TestParseDefinitionErrors(t *testing.T) {
	tests := []struct {
		src  string
		kind ErrorKind
		pos  string
		msg  string
	}{
		// A string after the argument list is the docstring, so this
		// defun has no body (upstream's shift/reduce choice).
		{`(defun f () "a")`, ParsingError, "1:16", "Expected: ['('"},
		{`(defun f ())`, ParsingError, "1:12", "Expected:"},
		{`(defun f:foo () 1)`, InvalidBaseType, "1:10", "No such type: foo"},
		{`(defun "f" () 1)`, ParsingError, "1:8", "Expected: [IDENT]"},
		{`(defun f (a 1) 1)`, ParsingError, "1:13", "Expected: [')', IDENT]"},
		{`(defun f () "a" @model [] 1)`, ParsingError, "1:17", "found @model"},
		{`(defun f () @doc 'a 1)`, ParsingError, "1:18", "Expected: [STR]"},
		{`(defconst)`, ParsingError, "1:10", "Expected: [IDENT]"},
		{`(defconst c)`, ParsingError, "1:12", "Expected: ['(', IDENT"},
		{`(defconst c 1 "d" 2)`, ParsingError, "1:19", "Expected: [')']"},
		{`(module m g)`, ParsingError, "1:12", "Expected: ['(']"},
		{`(module m g (use coin))`, ParsingError, "1:13", "Expected: at least one of [defun, defcap, defschema, deftable, defpact, defconst]"},
		{`(module m g (implements i) (bless "h") (defun f () 1))`, 0, "", ""},
		{`(module m 1 (defun f () 1))`, ParsingError, "1:11", "Expected: [STR, TICK, IDENT]"},
		{`(module m g.h (defun f () 1))`, ParsingError, "1:12", "Expected:"},
		{`(module m g (f))`, ParsingError, "1:14", "Expected: [defun, defcap, defconst, defschema, deftable, defpact, use, implements, bless], found ident<f>"},
		{`(module m g (defun f () 1) x)`, ParsingError, "1:28", "Expected: [')', '(']"},
		{`(module m g (module n g (defun f () 1)))`, ParsingError, "1:14", "found module"},
		{`(module m g (defcap c () @managed x) )`, ParsingError, "1:36", "Expected: [IDENT]"},
		{`(module m g (defcap c () @managed x y))`, ParsingError, "1:38", "Expected: ['(', IDENT"},
		{`(module m g (defcap c () @event))`, ParsingError, "1:32", "Expected:"},
		{`(module m g (defcap c () @managed @doc "d" true))`, ParsingError, "1:35", "found @doc"},
		{`(module m g (deftable t))`, ParsingError, "1:24", "Expected: [':']"},
		{`(module m g (deftable t:s))`, ParsingError, "1:25", "Expected: ['{']"},
		{`(module m g (deftable t:{s} @model []))`, ParsingError, "1:29", "Expected: [')']"},
		{`(module m g (defschema s a:))`, ParsingError, "1:28", "Expected: ['[', module, IDENT]"},
		{`(module m g (defschema s "d" "e"))`, ParsingError, "1:30", "Expected: [')', IDENT]"},
		{`(module m g (defpact p ()))`, ParsingError, "1:26", "Expected: ['(']"},
		{`(module m g (defpact p () (f)))`, ParsingError, "1:28", "Expected: [step, step-with-rollback], found ident<f>"},
		{`(module m g (defpact p () (step)))`, ParsingError, "1:32", "Expected: ['('"},
		{`(module m g (defpact p () (step 1 2 3)))`, ParsingError, "1:37", "Expected: [')', @model]"},
		{`(module m g (defpact p () (step-with-rollback 1)))`, ParsingError, "1:48", "Expected: ['('"},
		{`(module m g (defpact p () (step-with-rollback 1 2 3 4)))`, ParsingError, "1:53", "Expected: [')', @model]"},
		{`(module m g (defpact p () (step 1 @model [] 2)))`, ParsingError, "1:45", "Expected: [')']"},
		{`(module m g (use))`, ParsingError, "1:17", "Expected: [IDENT]"},
		{`(module m g (use coin 'h) (defun f () 1))`, ParsingError, "1:23", "Expected: [')']"},
		{`(module m g (use coin [a, b]) (defun f () 1))`, ParsingError, "1:25", "Expected: [']', IDENT]"},
		{`(module m g (bless h) (defun f () 1))`, ParsingError, "1:20", "Expected: [STR, TICK]"},
		{`(module m g (implements "i") (defun f () 1))`, ParsingError, "1:25", "Expected: [IDENT]"},
		{`(interface i)`, ParsingError, "1:13", "Expected: ['(']"},
		{`(interface i (defun f () 1))`, ParsingError, "1:26", "Expected: [')']"},
		{`(interface i (defcap c () true))`, ParsingError, "1:27", "Expected: [')']"},
		{`(interface i (defpact p () (step 1)))`, ParsingError, "1:28", "Expected: [')']"},
		{`(interface i (deftable t:{s}))`, ParsingError, "1:15", "Expected: [defun, defcap, defpact, defconst, defschema, use], found deftable"},
		{`(interface i (implements j))`, ParsingError, "1:15", "found implements"},
		{`(interface i "d" "e" (defun f ()))`, ParsingError, "1:18", "Expected: ['('], found \"e\""},
		{`(use)`, ParsingError, "1:5", "Expected: [IDENT]"},
		{`(defun)`, ParsingError, "1:7", "Expected: [IDENT]"},
		{`(module)`, ParsingError, "1:8", "Expected: [IDENT]"},
		{`(use a.b.c)`, ParsingError, "1:9", "Expected: [')']"},
		{`(use m [x] "hash")`, ParsingError, "1:12", "Expected: [')']"},
	}
	for _, tt := range tests {
		_, err := ParseRepl("t.repl", tt.src)
		if tt.kind == 0 {
			if err != nil {
				t.Errorf("ParseRepl(%q): %v", tt.src, err)
			}
			continue
		}
		checkErr(t, tt.src, err, tt.kind, tt.pos, tt.msg)
	}
}

func checkErr(t *testing.T, src string, err error, kind ErrorKind, pos, msg string) {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Errorf("%q: error = %v (%T), want *Error", src, err, err)
		return
	}
	if e.Kind != kind || e.Loc.Start.String() != pos || !strings.Contains(e.Msg, msg) {
		t.Errorf("%q: error %v at %s: %q\n\twant %v at %s containing %q", src, e.Kind, e.Loc.Start, e.Msg, kind, pos, msg)
	}
}

func TestNestingDepth(t *testing.T) {
	nest := func(open, atom, close string, n int) string {
		return strings.Repeat(open, n) + atom + strings.Repeat(close, n)
	}
	// Well inside the bound: fine.
	for _, src := range []string{
		nest("(", "f", ")", MaxDepth-10),
		nest("[", "1", "]", MaxDepth-10),
		nest(`{"a": `, "1", "}", MaxDepth-10),
		"(lambda (x:" + nest("[", "integer", "]", MaxDepth-10) + ") x)",
	} {
		if _, err := ParseExpr("t.pact", src); err != nil {
			t.Errorf("depth %d: %v", MaxDepth-10, err)
		}
	}
	// Beyond it: a clear error, not a stack overflow, however deep.
	for _, src := range []string{
		nest("(", "f", ")", MaxDepth+1),
		nest("[", "1", "]", 1_000_000),
		nest("(", "", "", 1_000_000),
		nest(`{"a": `, "1", "}", MaxDepth+1),
		"(lambda (x:" + nest("[", "integer", "]", MaxDepth+1) + ") x)",
		"(f " + strings.Repeat(`{'a := a} `, MaxDepth+1) + ")",
		"(defun f () @model [" + nest("(", "", ")", MaxDepth+1) + "] 1)",
	} {
		_, err := ParseRepl("t.pact", src)
		if e, ok := err.(*Error); !ok || e.Kind != NestingTooDeep || !strings.Contains(e.Msg, "Nesting too deep") {
			t.Errorf("deep input (%d bytes): error %v", len(src), err)
		}
	}
}

func TestSpans(t *testing.T) {
	src := "(defun f:integer (a:integer)\n  @doc \"d\"\n  (+ a 1.50))\n(coin.transfer 'a \"b\" {'k: [1, 2]})"
	f := mustParseRepl(t, src)
	d := f.Items[0].(*Defun)
	app := d.Body[0].(*App)
	call := f.Items[1].(*App)
	obj := call.Args[2].(*Object)
	tests := []struct {
		name string
		span Span
		want string // start-end
		text string // the source the span covers
	}{
		{"defun", d.Loc, "1:1-3:14", ""},
		{"defun name", d.NameLoc, "1:8-1:9", "f"},
		{"return type", d.Ret.Span(), "1:10-1:17", "integer"},
		{"arg", d.Args[0].Loc, "1:19-1:28", "a:integer"},
		{"arg type", d.Args[0].Type.Span(), "1:21-1:28", "integer"},
		{"doc", d.Doc.Loc, "2:3-2:11", `@doc "d"`},
		{"body", app.Loc, "3:3-3:13", "(+ a 1.50)"},
		{"operator", app.Fn.Span(), "3:4-3:5", "+"},
		{"decimal", app.Args[1].Span(), "3:8-3:12", "1.50"},
		{"call", call.Loc, "4:1-4:36", ""},
		{"qualified name", call.Fn.Span(), "4:2-4:15", "coin.transfer"},
		{"symbol", call.Args[0].Span(), "4:16-4:18", "'a"},
		{"object", obj.Loc, "4:23-4:35", "{'k: [1, 2]}"},
		{"field key", obj.Fields[0].Key.Loc, "4:24-4:26", "'k"},
		{"list", obj.Fields[0].Value.Span(), "4:28-4:34", "[1, 2]"},
	}
	for _, tt := range tests {
		got := tt.span.Start.String() + "-" + tt.span.End.String()
		if got != tt.want || tt.span.File != "t.repl" {
			t.Errorf("%s: span %s in %q, want %s", tt.name, got, tt.span.File, tt.want)
		}
		if tt.text != "" {
			if s := src[tt.span.Start.Offset:tt.span.End.Offset]; s != tt.text {
				t.Errorf("%s: covers %q, want %q", tt.name, s, tt.text)
			}
		}
	}
	if got := d.Loc.Slice(src); got != "(defun f:integer (a:integer)\n  @doc \"d\"\n  (+ a 1.50))" {
		t.Errorf("Slice = %q", got)
	}
	if got := d.Loc.Slice("short"); got != "" {
		t.Errorf("Slice out of range = %q", got)
	}
	if got := d.Loc.String(); got != "t.repl:1:1" {
		t.Errorf("Span.String() = %q", got)
	}

	// Every node's span lies within its parent's, over a whole module.
	m := single[*Module](t, readTestdata(t, "token.pact")[0:strings.Index(readTestdata(t, "token.pact"), "\n(create-table")])
	var check func(parent Span, v reflect.Value, path string)
	check = func(parent Span, v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				check(parent, v.Elem(), path)
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				check(parent, v.Index(i), path)
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(Span{}) {
				s := v.Interface().(Span)
				if !s.Start.IsValid() || s.Start.Offset > s.End.Offset || s.Start.Offset < parent.Start.Offset || s.End.Offset > parent.End.Offset {
					t.Errorf("%s: span %v-%v outside parent %v-%v", path, s.Start, s.End, parent.Start, parent.End)
				}
				return
			}
			self := parent
			if f := v.FieldByName("Loc"); f.IsValid() {
				self = f.Interface().(Span)
				check(parent, f, path+"."+v.Type().Name())
			}
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).Name != "Loc" {
					check(self, v.Field(i), path+"."+v.Type().Name())
				}
			}
		}
	}
	check(m.Loc, reflect.ValueOf(m), "")
}
