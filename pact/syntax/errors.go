package syntax

import (
	"strconv"
	"strings"
	"unicode"
)

// ErrorKind classifies syntax errors. The kinds mirror upstream's LexerError
// and ParseError constructors so that callers (the REPL, the server's error
// bodies) can render them the way Pact users expect.
type ErrorKind uint8

const (
	// LexicalError: a character that starts no token.
	LexicalError ErrorKind = iota + 1
	// StringLiteralError: a bad escape, a raw newline, an unclosed string.
	StringLiteralError
	// ParsingError: the grammar wanted something else here ("Expected: ...").
	ParsingError
	// TooManyCloseParens: a ')' with nothing open.
	TooManyCloseParens
	// UnexpectedInput: tokens left over after a single expression.
	UnexpectedInput
	// PrecisionOverflow: a decimal literal with more than 255 places.
	PrecisionOverflow
	// InvalidBaseType: a type annotation naming no type.
	InvalidBaseType
	// NestingTooDeep: input nested beyond MaxDepth (ours, not upstream's:
	// it keeps every recursive consumer of the tree within a bounded stack).
	NestingTooDeep
)

var errorKindNames = [...]string{
	LexicalError:       "LexicalError",
	StringLiteralError: "StringLiteralError",
	ParsingError:       "ParsingError",
	TooManyCloseParens: "TooManyCloseParens",
	UnexpectedInput:    "UnexpectedInput",
	PrecisionOverflow:  "PrecisionOverflow",
	InvalidBaseType:    "InvalidBaseType",
	NestingTooDeep:     "NestingTooDeep",
}

func (k ErrorKind) String() string {
	if int(k) < len(errorKindNames) && errorKindNames[k] != "" {
		return errorKindNames[k]
	}
	return "ErrorKind(" + strconv.Itoa(int(k)) + ")"
}

// Error is a lexing or parsing error at a source span.
type Error struct {
	Kind ErrorKind
	Loc  Span
	// Msg is the message without position, worded like upstream's pretty
	// printer where upstream has one (e.g. "Expected: [')']").
	Msg string
}

// Error renders "file:line:col: message".
func (e *Error) Error() string { return e.Loc.String() + ": " + e.Msg }

func lexicalError(loc Span, got, last rune) *Error {
	return &Error{Kind: LexicalError, Loc: loc,
		Msg: "Lexical Error: Encountered unexpected character " + quoteChar(got) + ", Last seen " + quoteChar(last)}
}

// stringError words string-literal failures as upstream does (including the
// doubled space its pretty printer produces after the colon).
func stringError(loc Span, what string) *Error {
	return &Error{Kind: StringLiteralError, Loc: loc,
		Msg: "Lexical Error: String literal parsing error:  " + what}
}

func expectedError(loc Span, expected string, found Token) *Error {
	return &Error{Kind: ParsingError, Loc: loc, Msg: "Expected: " + expected + ", found " + describe(found)}
}

// describe names a token in an error message: the token itself for names,
// numbers and strings (ident<x>, number<1>, "s"), otherwise its kind as the
// expected lists spell it (')', defun, EOF).
func describe(t Token) string {
	switch t.Kind {
	case IDENT, INT, STRING, SYMBOL:
		return t.String()
	}
	return t.Kind.String()
}

// expectedKinds renders a list of token kinds as "[k1, k2]".
func expectedKinds(kinds ...Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// renderRemaining renders leftover tokens the way upstream does: at most ten,
// then "...".
func renderRemaining(toks []Token) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range toks {
		if t.Kind == EOF {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 10 {
			b.WriteString("...")
			break
		}
		b.WriteString(t.String())
	}
	b.WriteByte(']')
	return b.String()
}

// quoteChar renders a character in double quotes; control characters (and
// the NUL upstream reports as "last seen" at the start of input) are escaped
// so that messages stay printable.
func quoteChar(r rune) string {
	if unicode.IsPrint(r) {
		return `"` + string(r) + `"`
	}
	q := strconv.QuoteRune(r)
	return `"` + q[1:len(q)-1] + `"`
}
