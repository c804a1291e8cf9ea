package syntax

import (
	"strings"
	"testing"
)

// tok is a compact token description for table tests: kind and text.
type tok struct {
	k    Kind
	text string
}

func lexKinds(t *testing.T, src string) []tok {
	t.Helper()
	toks, err := Lex("t.pact", src)
	if err != nil {
		t.Fatalf("Lex(%q): %v", src, err)
	}
	if last := toks[len(toks)-1]; last.Kind != EOF {
		t.Fatalf("Lex(%q): last token %v, want EOF", src, last)
	}
	out := make([]tok, 0, len(toks)-1)
	for _, x := range toks[:len(toks)-1] {
		out = append(out, tok{x.Kind, x.Text})
	}
	return out
}

func TestLexTokenKinds(t *testing.T) {
	tests := []struct {
		src  string
		want []tok
	}{
		// Delimiters.
		{"(", []tok{{LPAREN, ""}}},
		{")", []tok{{RPAREN, ""}}},
		{"[]", []tok{{LBRACK, ""}, {RBRACK, ""}}},
		{"{}", []tok{{LBRACE, ""}, {RBRACE, ""}}},
		{",", []tok{{COMMA, ""}}},
		{".", []tok{{DOT, ""}}},
		{":", []tok{{COLON, ""}}},
		{":=", []tok{{BIND, ""}}},
		{"::", []tok{{DYNACC, ""}}},
		{":::", []tok{{DYNACC, ""}, {COLON, ""}}},
		{": =", []tok{{COLON, ""}, {IDENT, "="}}},

		// Identifiers: the whole character set.
		{"abc", []tok{{IDENT, "abc"}}},
		{"enforce-one", []tok{{IDENT, "enforce-one"}}},
		{"and?", []tok{{IDENT, "and?"}}},
		{"+ - * / < <= > >= = != ^ | & ~",
			[]tok{{IDENT, "+"}, {IDENT, "-"}, {IDENT, "*"}, {IDENT, "/"}, {IDENT, "<"}, {IDENT, "<="},
				{IDENT, ">"}, {IDENT, ">="}, {IDENT, "="}, {IDENT, "!="}, {IDENT, "^"}, {IDENT, "|"},
				{IDENT, "&"}, {IDENT, "~"}}},
		{"%#+-_&$@<>=^?*!|/~", []tok{{IDENT, "%#+-_&$@<>=^?*!|/~"}}},
		{"x1 A9z TRANSFER_XCHAIN-mgr", []tok{{IDENT, "x1"}, {IDENT, "A9z"}, {IDENT, "TRANSFER_XCHAIN-mgr"}}},
		{"coin.transfer", []tok{{IDENT, "coin"}, {DOT, ""}, {IDENT, "transfer"}}},
		{"m::f", []tok{{IDENT, "m"}, {DYNACC, ""}, {IDENT, "f"}}},
		{"a:integer", []tok{{IDENT, "a"}, {COLON, ""}, {IDENT, "integer"}}},
		{"a:=b", []tok{{IDENT, "a"}, {BIND, ""}, {IDENT, "b"}}},

		// Keywords only on a whole-token match.
		{"let let* lambda", []tok{{LET, ""}, {LETSTAR, ""}, {LAMBDA, ""}}},
		{"defun defcap defconst defschema deftable defpact",
			[]tok{{DEFUN, ""}, {DEFCAP, ""}, {DEFCONST, ""}, {DEFSCHEMA, ""}, {DEFTABLE, ""}, {DEFPACT, ""}}},
		{"interface module bless implements use",
			[]tok{{INTERFACE, ""}, {MODULE, ""}, {BLESS, ""}, {IMPLEMENTS, ""}, {USE, ""}}},
		{"true false step step-with-rollback",
			[]tok{{TRUE, ""}, {FALSE, ""}, {STEP, ""}, {STEPRB, ""}}},
		{"@doc @model @event @managed", []tok{{DOC, ""}, {MODEL, ""}, {EVENT, ""}, {MANAGED, ""}}},
		{"lettuce let-x let** letx", []tok{{IDENT, "lettuce"}, {IDENT, "let-x"}, {IDENT, "let**"}, {IDENT, "letx"}}},
		{"@docs @ truex step-with modules use?",
			[]tok{{IDENT, "@docs"}, {IDENT, "@"}, {IDENT, "truex"}, {IDENT, "step-with"}, {IDENT, "modules"}, {IDENT, "use?"}}},
		{"True Module", []tok{{IDENT, "True"}, {IDENT, "Module"}}},

		// Integers, by longest match.
		{"0", []tok{{INT, "0"}}},
		{"42", []tok{{INT, "42"}}},
		{"007", []tok{{INT, "007"}}},
		{"-5", []tok{{INT, "-5"}}},
		{"-0", []tok{{INT, "-0"}}},
		{"123456789012345678901234567890123456789", []tok{{INT, "123456789012345678901234567890123456789"}}},
		{"-5x", []tok{{IDENT, "-5x"}}},
		{"-5-", []tok{{IDENT, "-5-"}}},
		{"--5", []tok{{IDENT, "--5"}}},
		{"-", []tok{{IDENT, "-"}}},
		{"5x", []tok{{INT, "5"}, {IDENT, "x"}}},
		{"5-3", []tok{{INT, "5"}, {INT, "-3"}}},
		{"x-5", []tok{{IDENT, "x-5"}}},

		// Decimals are INT '.' INT; the parser joins them.
		{"1.5", []tok{{INT, "1"}, {DOT, ""}, {INT, "5"}}},
		{"-0.50", []tok{{INT, "-0"}, {DOT, ""}, {INT, "50"}}},
		{"1.", []tok{{INT, "1"}, {DOT, ""}}},
		{".5", []tok{{DOT, ""}, {INT, "5"}}},

		// Strings.
		{`""`, []tok{{STRING, ""}}},
		{`"abc"`, []tok{{STRING, "abc"}}},
		{`"a b;c"`, []tok{{STRING, "a b;c"}}},
		{`"\n\t\\\"\'"`, []tok{{STRING, "\n\t\\\"'"}}},
		{`"it's"`, []tok{{STRING, "it's"}}},
		{`"héllo, 世界 😀"`, []tok{{STRING, "héllo, 世界 😀"}}},
		{"\"one\\\n     \\two\"", []tok{{STRING, "onetwo"}}},
		{"\"one\\ \t\r\n\n  \\two\"", []tok{{STRING, "onetwo"}}},
		{"\"a\\\u00a0\\b\"", []tok{{STRING, "ab"}}},
		{"\"a\\\u3000\\b\"", []tok{{STRING, "ab"}}},
		{`"a\\" "b"`, []tok{{STRING, `a\`}, {STRING, "b"}}},
		{"\"tab\there\"", []tok{{STRING, "tab\there"}}},

		// Symbols.
		{"'abc", []tok{{SYMBOL, "abc"}}},
		{"'a-b_c1", []tok{{SYMBOL, "a-b_c1"}}},
		{"'A", []tok{{SYMBOL, "A"}}},
		{"'a.b", []tok{{SYMBOL, "a"}, {DOT, ""}, {IDENT, "b"}}},
		{"'ab?", []tok{{SYMBOL, "ab"}, {IDENT, "?"}}},

		// Whitespace and comments.
		{"  \t\r\n\f\v x", []tok{{IDENT, "x"}}},
		{"; a comment\nx ; another", []tok{{IDENT, "x"}}},
		{";\n;;\n", nil},
		{"", nil},
		{"a;b\nc", []tok{{IDENT, "a"}, {IDENT, "c"}}},
		{`"a;b" ; "c"`, []tok{{STRING, "a;b"}}},

		// Unit and a small form.
		{"()", []tok{{LPAREN, ""}, {RPAREN, ""}}},
		{`(defun f:bool (x:[integer]) @doc "d" {'a := x})`, []tok{
			{LPAREN, ""}, {DEFUN, ""}, {IDENT, "f"}, {COLON, ""}, {IDENT, "bool"}, {LPAREN, ""}, {IDENT, "x"},
			{COLON, ""}, {LBRACK, ""}, {IDENT, "integer"}, {RBRACK, ""}, {RPAREN, ""}, {DOC, ""}, {STRING, "d"},
			{LBRACE, ""}, {SYMBOL, "a"}, {BIND, ""}, {IDENT, "x"}, {RBRACE, ""}, {RPAREN, ""}}},
	}
	for _, tt := range tests {
		got := lexKinds(t, tt.src)
		if len(got) != len(tt.want) {
			t.Errorf("Lex(%q) = %v, want %v", tt.src, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("Lex(%q)[%d] = %v, want %v", tt.src, i, got[i], tt.want[i])
			}
		}
	}
}

func TestLexErrors(t *testing.T) {
	tests := []struct {
		src  string
		kind ErrorKind
		pos  string // line:col of the error
		msg  string // substring of the message
	}{
		{`"abc`, StringLiteralError, "1:1", "did not close string literal"},
		{`"abc\`, StringLiteralError, "1:1", "did not close string literal"},
		{`"a\q"`, StringLiteralError, "1:3", "Invalid escape sequence"},
		{`"a\u0041"`, StringLiteralError, "1:3", "Invalid escape sequence"},
		{`"a\x41"`, StringLiteralError, "1:3", "Invalid escape sequence"},
		{`"a\0"`, StringLiteralError, "1:3", "Invalid escape sequence"},
		{`"a\r"`, StringLiteralError, "1:3", "carriage return is not supported in strings literals"},
		{"\"a\nb\"", StringLiteralError, "1:3", "newline in string literal"},
		{"\"a\rb\"", StringLiteralError, "1:3", "carriage return in string literal"},
		{"\"a\\\n  x\"", StringLiteralError, "2:3", "Invalid multiline string"},
		{"\"a\\  ", StringLiteralError, "1:1", "did not close string literal"},
		{"x\n  \"\\d\"", StringLiteralError, "2:4", "Invalid escape sequence"},
		{"'", LexicalError, "1:1", `Encountered unexpected character "'", Last seen "\x00"`},
		{"'1a", LexicalError, "1:1", `unexpected character "'"`},
		{"'-a", LexicalError, "1:1", `unexpected character "'"`},
		{"(a `b)", LexicalError, "1:4", "Encountered unexpected character \"`\", Last seen \" \""},
		{`\`, LexicalError, "1:1", `unexpected character "\"`},
		{"é", LexicalError, "1:1", `unexpected character "é"`},
		{"(caf\u00e9)", LexicalError, "1:5", `unexpected character "é", Last seen "f"`},
		{"x\u00a0y", LexicalError, "1:2", "unexpected character"},
		{"\u0161", LexicalError, "1:1", "unexpected character"}, // upstream would read 'a' (low byte)
		{"a\x00", LexicalError, "1:2", `unexpected character "\x00"`},
		{"(+ 1 \xff)", LexicalError, "1:6", "invalid UTF-8"},
		{"\"ok\" \"\xc3\"", LexicalError, "1:7", "invalid UTF-8"},
	}
	for _, tt := range tests {
		_, err := Lex("t.pact", tt.src)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("Lex(%q) error = %v, want *Error", tt.src, err)
			continue
		}
		if e.Kind != tt.kind || e.Loc.Start.String() != tt.pos || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("Lex(%q) error = %v %v %q; want %v at %s containing %q", tt.src, e.Kind, e.Loc.Start, e.Msg, tt.kind, tt.pos, tt.msg)
		}
		if want := "t.pact:" + tt.pos + ": "; !strings.HasPrefix(e.Error(), want) {
			t.Errorf("Lex(%q).Error() = %q, want prefix %q", tt.src, e.Error(), want)
		}
	}
}

// TestLexUpstreamMessages pins the full text of the messages whose wording
// comes from upstream's pretty printer.
func TestLexUpstreamMessages(t *testing.T) {
	tests := []struct{ src, want string }{
		{"\"a\nb\"", "t.pact:1:3: Lexical Error: String literal parsing error:  newline in string literal"},
		{"(x `)", "t.pact:1:4: Lexical Error: Encountered unexpected character \"`\", Last seen \" \""},
	}
	for _, tt := range tests {
		if _, err := Lex("t.pact", tt.src); err == nil || err.Error() != tt.want {
			t.Errorf("Lex(%q) error = %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestLexSpans(t *testing.T) {
	src := "(+ 1\n  -22) ; c\n\"héllo\" x 'sym :=\n\"a\\\n \\b\" ::"
	toks, err := Lex("f.repl", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		k          Kind
		start, end string
		off        int
	}{
		{LPAREN, "1:1", "1:2", 0},
		{IDENT, "1:2", "1:3", 1},
		{INT, "1:4", "1:5", 3},
		{INT, "2:3", "2:6", 7},
		{RPAREN, "2:6", "2:7", 10},
		{STRING, "3:1", "3:8", 16}, // columns count characters: é is one
		{IDENT, "3:9", "3:10", 25}, // offsets count bytes: é is two
		{SYMBOL, "3:11", "3:15", 27},
		{BIND, "3:16", "3:18", 32},
		{STRING, "4:1", "5:5", 35}, // a string with a gap spans lines
		{DYNACC, "5:6", "5:8", 44},
		{EOF, "5:8", "5:8", 46},
	}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens %v, want %d", len(toks), toks, len(want))
	}
	for i, w := range want {
		g := toks[i]
		if g.Kind != w.k || g.Loc.Start.String() != w.start || g.Loc.End.String() != w.end || g.Loc.Start.Offset != w.off || g.Loc.File != "f.repl" {
			t.Errorf("token %d = %v %s-%s @%d in %q, want %v %s-%s @%d", i, g.Kind, g.Loc.Start, g.Loc.End, g.Loc.Start.Offset, g.Loc.File, w.k, w.start, w.end, w.off)
		}
		if g.Kind != EOF && g.Kind != STRING && src[g.Loc.Start.Offset:g.Loc.End.Offset] == "" {
			t.Errorf("token %d: empty source slice", i)
		}
	}
	if got := src[toks[5].Loc.Start.Offset:toks[5].Loc.End.Offset]; got != `"héllo"` {
		t.Errorf("string token slices to %q", got)
	}
}

func TestTokenString(t *testing.T) {
	tests := []struct {
		t    Token
		want string
	}{
		{Token{Kind: IDENT, Text: "x"}, "ident<x>"},
		{Token{Kind: INT, Text: "-1"}, "number<-1>"},
		{Token{Kind: STRING, Text: "s"}, `"s"`},
		{Token{Kind: SYMBOL, Text: "s"}, "'s"},
		{Token{Kind: RPAREN}, ")"},
		{Token{Kind: BIND}, ":="},
		{Token{Kind: STEPRB}, "step-with-rollback"},
		{Token{Kind: EOF}, "EOF"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("%v.String() = %q, want %q", tt.t.Kind, got, tt.want)
		}
	}
	if got := Kind(200).String(); got != "Kind(200)" {
		t.Errorf("unknown kind = %q", got)
	}
	for k := LET; k < numKinds; k++ {
		if !k.IsKeyword() || keyword(k.String()) != k {
			t.Errorf("keyword %v does not round-trip", k)
		}
	}
	if IDENT.IsKeyword() || RPAREN.IsKeyword() {
		t.Error("non-keywords report IsKeyword")
	}
}
