package syntax

import "fmt"

// Pos is a point in a source text. Lines and columns are 1-based; columns
// count characters (runes), not bytes, because that is what an editor shows.
// Offset is the byte offset, kept so that callers can slice the source (for
// example to store a module's code text).
type Pos struct {
	Offset int
	Line   int32
	Col    int32
}

// IsValid reports whether p was set (lines start at 1).
func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Span is a range of source text: Start is the first character, End the
// position just after the last one (so an empty span has Start == End).
type Span struct {
	File  string
	Start Pos
	End   Pos
}

// String renders the span's start as "file:line:col", the form errors use.
func (s Span) String() string {
	if s.File == "" {
		return s.Start.String()
	}
	return s.File + ":" + s.Start.String()
}

// Slice returns the text of src that s covers, or "" if s does not lie
// within src. src must be the text the span was parsed from; the REPL uses
// this to keep a module's source code.
func (s Span) Slice(src string) string {
	if s.Start.Offset < 0 || s.Start.Offset > s.End.Offset || s.End.Offset > len(src) {
		return ""
	}
	return src[s.Start.Offset:s.End.Offset]
}

// To returns the span from the start of s to the end of t.
func (s Span) To(t Span) Span { return Span{File: s.File, Start: s.Start, End: t.End} }

// Kind is the kind of a token.
type Kind uint8

// Token kinds. The keyword kinds are produced only when a whole identifier
// token spells the keyword (longest match), so "lettuce" and "let-x" are
// identifiers while "let" and "let*" are keywords.
const (
	EOF Kind = iota

	IDENT  // enforce-one, +, coin (Text is the identifier)
	INT    // 42, -5 (Text is the digits as written, with an optional leading '-')
	STRING // "abc" (Text is the decoded value)
	SYMBOL // 'abc (Text is the name without the tick)

	LPAREN // (
	RPAREN // )
	LBRACK // [
	RBRACK // ]
	LBRACE // {
	RBRACE // }
	COMMA  // ,
	DOT    // .
	COLON  // :
	BIND   // :=
	DYNACC // ::

	// Keywords.
	LET
	LETSTAR
	LAMBDA
	DEFUN
	DEFCAP
	DEFCONST
	DEFSCHEMA
	DEFTABLE
	DEFPACT
	INTERFACE
	MODULE
	BLESS
	IMPLEMENTS
	USE
	TRUE
	FALSE
	STEP
	STEPRB
	DOC     // @doc
	MODEL   // @model
	EVENT   // @event
	MANAGED // @managed

	numKinds
)

var kindNames = [numKinds]string{
	EOF:        "EOF",
	IDENT:      "IDENT",
	INT:        "NUM",
	STRING:     "STR",
	SYMBOL:     "TICK",
	LPAREN:     "'('",
	RPAREN:     "')'",
	LBRACK:     "'['",
	RBRACK:     "']'",
	LBRACE:     "'{'",
	RBRACE:     "'}'",
	COMMA:      "','",
	DOT:        "'.'",
	COLON:      "':'",
	BIND:       "':='",
	DYNACC:     "'::'",
	LET:        "let",
	LETSTAR:    "let*",
	LAMBDA:     "lambda",
	DEFUN:      "defun",
	DEFCAP:     "defcap",
	DEFCONST:   "defconst",
	DEFSCHEMA:  "defschema",
	DEFTABLE:   "deftable",
	DEFPACT:    "defpact",
	INTERFACE:  "interface",
	MODULE:     "module",
	BLESS:      "bless",
	IMPLEMENTS: "implements",
	USE:        "use",
	TRUE:       "true",
	FALSE:      "false",
	STEP:       "step",
	STEPRB:     "step-with-rollback",
	DOC:        "@doc",
	MODEL:      "@model",
	EVENT:      "@event",
	MANAGED:    "@managed",
}

// String names the kind the way upstream's grammar does (IDENT, NUM, STR,
// TICK, quoted delimiters, bare keywords), so "Expected: [...]" lists read
// like Pact's own.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// IsKeyword reports whether k is one of the reserved words.
func (k Kind) IsKeyword() bool { return k >= LET && k < numKinds }

// keyword maps a whole identifier token to its keyword kind, or IDENT.
// A switch compiles to a length-and-compare search with no allocation,
// cheaper than a map lookup on every identifier.
func keyword(s string) Kind {
	switch s {
	case "let":
		return LET
	case "let*":
		return LETSTAR
	case "lambda":
		return LAMBDA
	case "defun":
		return DEFUN
	case "defcap":
		return DEFCAP
	case "defconst":
		return DEFCONST
	case "defschema":
		return DEFSCHEMA
	case "deftable":
		return DEFTABLE
	case "defpact":
		return DEFPACT
	case "interface":
		return INTERFACE
	case "module":
		return MODULE
	case "bless":
		return BLESS
	case "implements":
		return IMPLEMENTS
	case "use":
		return USE
	case "true":
		return TRUE
	case "false":
		return FALSE
	case "step":
		return STEP
	case "step-with-rollback":
		return STEPRB
	case "@doc":
		return DOC
	case "@model":
		return MODEL
	case "@event":
		return EVENT
	case "@managed":
		return MANAGED
	}
	return IDENT
}

// Token is one lexeme with its span.
type Token struct {
	Kind Kind
	// Text is the identifier, the digits of a number, the decoded value of a
	// string, or the name of a symbol. Empty for delimiters and keywords.
	Text string
	Loc  Span
}

// String renders the token as upstream does in "remaining tokens" lists:
// ident<x>, number<1>, "s", 'sym, or the delimiter or keyword itself.
func (t Token) String() string {
	switch t.Kind {
	case IDENT:
		return "ident<" + t.Text + ">"
	case INT:
		return "number<" + t.Text + ">"
	case STRING:
		return `"` + t.Text + `"`
	case SYMBOL:
		return "'" + t.Text
	case EOF:
		return "EOF"
	}
	s := t.Kind.String()
	if len(s) > 2 && s[0] == '\'' {
		return s[1 : len(s)-1]
	}
	return s
}
