package syntax

import (
	"unicode"
	"unicode/utf8"
)

// Lex splits src into tokens, the last of which is EOF. It stops at the first
// error. The parser does not use it: it pulls tokens one at a time (see
// parser.run for how it still reports errors in upstream's order).
//
// The rules follow the Pact 5 lexer (spec §3.1):
//   - whitespace is space, tab, newline, CR, form feed and vertical tab;
//     ';' starts a comment that runs to the end of the line;
//   - identifiers are [a-zA-Z%#+\-_&$@<>=^?*!|/~] followed by the same set
//     plus digits; a whole identifier that spells a keyword is that keyword;
//   - integers are -?[0-9]+, by longest match against identifiers, so "-5" is
//     a number and "-5x" an identifier; decimals are INT '.' INT, assembled
//     by the parser as upstream's grammar does;
//   - strings are single-line with the escapes \n \t \\ \" \' and the gap
//     \<whitespace>\; symbols are ' followed by [a-zA-Z][a-zA-Z0-9\-_]*.
//
// One deliberate difference: upstream's lexer classifies each character by
// the low byte of its code point (its alex input truncates), so for example
// U+0161 'š' lexes as the letter 'a' and U+0128 as '('. We reject every
// non-ASCII character outside strings and comments instead.
func Lex(file, src string) ([]Token, error) {
	lx := lexer{file: file, src: src, line: 1, col: 1}
	if err := lx.checkUTF8(); err != nil {
		return nil, err
	}
	toks := make([]Token, 0, len(src)/4+1) // about one token per 4 bytes of Pact
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.Kind == EOF {
			return toks, nil
		}
	}
}

type lexer struct {
	file string
	src  string
	off  int
	line int32
	col  int32
}

// Character classes for ASCII bytes; non-ASCII bytes belong to none.
const (
	identStart = 1 << iota
	identPart
	symbolPart
)

var charClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = identStart | identPart | symbolPart
		t[c-'a'+'A'] = identStart | identPart | symbolPart
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = identPart | symbolPart
	}
	for _, c := range "%#+-_&$@<>=^?*!|/~" {
		t[c] = identStart | identPart
	}
	t['-'] |= symbolPart
	t['_'] |= symbolPart
	return t
}()

func (lx *lexer) pos() Pos { return Pos{Offset: lx.off, Line: lx.line, Col: lx.col} }

func (lx *lexer) span(start Pos) Span { return Span{File: lx.file, Start: start, End: lx.pos()} }

// advance moves past one character, counting lines and columns.
func (lx *lexer) advance() {
	b := lx.src[lx.off]
	switch {
	case b == '\n':
		lx.off++
		lx.line++
		lx.col = 1
	case b < utf8.RuneSelf:
		lx.off++
		lx.col++
	default:
		_, n := utf8.DecodeRuneInString(lx.src[lx.off:])
		lx.off += n
		lx.col++
	}
}

// advanceASCII moves past n bytes known to be ASCII and not newlines.
func (lx *lexer) advanceASCII(n int) {
	lx.off += n
	lx.col += int32(n)
}

// checkUTF8 rejects invalid UTF-8 up front, so the rest of the lexer can
// decode without checking. Pact source reaches us as JSON or text files, so
// upstream would have failed to decode such input before lexing.
func (lx *lexer) checkUTF8() *Error {
	if utf8.ValidString(lx.src) {
		return nil
	}
	for lx.off < len(lx.src) {
		r, n := utf8.DecodeRuneInString(lx.src[lx.off:])
		if r == utf8.RuneError && n == 1 {
			start := lx.pos()
			lx.off++
			lx.col++
			return &Error{Kind: LexicalError, Loc: lx.span(start), Msg: "Lexical Error: invalid UTF-8"}
		}
		lx.advance()
	}
	return nil
}

func (lx *lexer) next() (Token, *Error) {
	src := lx.src
	for lx.off < len(src) {
		b := src[lx.off]
		switch b {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			lx.advance()
			continue
		case ';':
			for lx.off < len(src) && src[lx.off] != '\n' {
				lx.advance()
			}
			continue
		}
		start := lx.pos()
		tok := func(k Kind, n int) (Token, *Error) {
			lx.advanceASCII(n)
			return Token{Kind: k, Loc: lx.span(start)}, nil
		}
		switch b {
		case '(':
			return tok(LPAREN, 1)
		case ')':
			return tok(RPAREN, 1)
		case '[':
			return tok(LBRACK, 1)
		case ']':
			return tok(RBRACK, 1)
		case '{':
			return tok(LBRACE, 1)
		case '}':
			return tok(RBRACE, 1)
		case ',':
			return tok(COMMA, 1)
		case '.':
			return tok(DOT, 1)
		case ':':
			if lx.off+1 < len(src) {
				switch src[lx.off+1] {
				case '=':
					return tok(BIND, 2)
				case ':':
					return tok(DYNACC, 2)
				}
			}
			return tok(COLON, 1)
		case '"':
			return lx.str(start)
		case '\'':
			if lx.off+1 < len(src) && isLetter(src[lx.off+1]) {
				end := lx.off + 2
				for end < len(src) && charClass[src[end]]&symbolPart != 0 {
					end++
				}
				text := src[lx.off+1 : end]
				lx.advanceASCII(end - lx.off)
				return Token{Kind: SYMBOL, Text: text, Loc: lx.span(start)}, nil
			}
		}
		if b >= '0' && b <= '9' {
			end := lx.off + 1
			for end < len(src) && isDigit(src[end]) {
				end++
			}
			text := src[lx.off:end]
			lx.advanceASCII(end - lx.off)
			return Token{Kind: INT, Text: text, Loc: lx.span(start)}, nil
		}
		if charClass[b]&identStart != 0 {
			end := lx.off + 1
			for end < len(src) && charClass[src[end]]&identPart != 0 {
				end++
			}
			text := src[lx.off:end]
			lx.advanceASCII(end - lx.off)
			// Longest match with ties going to the earlier rule: "-5" is
			// both an integer and an identifier of length 2, and the integer
			// rule comes first.
			if text[0] == '-' && len(text) > 1 && allDigits(text[1:]) {
				return Token{Kind: INT, Text: text, Loc: lx.span(start)}, nil
			}
			if k := keyword(text); k != IDENT {
				return Token{Kind: k, Loc: lx.span(start)}, nil
			}
			return Token{Kind: IDENT, Text: text, Loc: lx.span(start)}, nil
		}
		return Token{}, lx.badChar()
	}
	p := lx.pos()
	return Token{Kind: EOF, Loc: Span{File: lx.file, Start: p, End: p}}, nil
}

// badChar reports the character at the current offset.
func (lx *lexer) badChar() *Error {
	got, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
	var last rune // upstream reports NUL when nothing was seen yet
	if lx.off > 0 {
		last, _ = utf8.DecodeLastRuneInString(lx.src[:lx.off])
	}
	start := lx.pos()
	lx.advance()
	return lexicalError(lx.span(start), got, last)
}

// str lexes a string literal whose opening quote is at the current offset.
// Strings without escapes are returned as a slice of the source, without
// copying.
func (lx *lexer) str(start Pos) (Token, *Error) {
	src := lx.src
	lx.advanceASCII(1)
	begin := lx.off
	for lx.off < len(src) {
		c := src[lx.off]
		if c >= ' ' && c < utf8.RuneSelf && c != '"' && c != '\\' {
			// Printable ASCII, the common case: no decoding, no newline.
			lx.off++
			lx.col++
			continue
		}
		switch c {
		case '"':
			text := src[begin:lx.off]
			lx.advanceASCII(1)
			return Token{Kind: STRING, Text: text, Loc: lx.span(start)}, nil
		case '\\':
			return lx.strEscaped(start, begin)
		case '\n':
			return Token{}, lx.strError("newline in string literal")
		case '\r':
			return Token{}, lx.strError("carriage return in string literal")
		}
		lx.advance()
	}
	return Token{}, lx.unclosed(start)
}

// strEscaped continues a string literal from its first backslash, decoding
// into a buffer that starts with the text already scanned.
func (lx *lexer) strEscaped(start Pos, begin int) (Token, *Error) {
	src := lx.src
	buf := make([]byte, 0, 2*(lx.off-begin)+16)
	buf = append(buf, src[begin:lx.off]...)
	for lx.off < len(src) {
		switch c := src[lx.off]; c {
		case '"':
			lx.advanceASCII(1)
			return Token{Kind: STRING, Text: string(buf), Loc: lx.span(start)}, nil
		case '\n':
			return Token{}, lx.strError("newline in string literal")
		case '\r':
			return Token{}, lx.strError("carriage return in string literal")
		case '\\':
			escStart := lx.pos()
			lx.advanceASCII(1)
			if lx.off >= len(src) {
				return Token{}, lx.unclosed(start)
			}
			r, _ := utf8.DecodeRuneInString(src[lx.off:])
			if isHaskellSpace(r) {
				// The gap \<whitespace>\ joins lines and contributes nothing.
				for lx.off < len(src) {
					r, _ = utf8.DecodeRuneInString(src[lx.off:])
					if !isHaskellSpace(r) {
						break
					}
					lx.advance()
				}
				if lx.off >= len(src) {
					return Token{}, lx.unclosed(start)
				}
				if src[lx.off] != '\\' {
					return Token{}, lx.strError("Invalid multiline string")
				}
				lx.advanceASCII(1)
				continue
			}
			switch r {
			case 'n':
				buf = append(buf, '\n')
			case 't':
				buf = append(buf, '\t')
			case '\\', '"', '\'':
				buf = append(buf, byte(r))
			case 'r':
				lx.advance()
				return Token{}, stringError(lx.span(escStart), "carriage return is not supported in strings literals")
			default:
				lx.advance()
				return Token{}, stringError(lx.span(escStart), "Invalid escape sequence")
			}
			lx.advanceASCII(1)
		default:
			if c < utf8.RuneSelf {
				buf = append(buf, c)
				lx.advanceASCII(1)
				continue
			}
			from := lx.off
			lx.advance()
			buf = append(buf, src[from:lx.off]...)
		}
	}
	return Token{}, lx.unclosed(start)
}

// strError reports a string error at the character at the current offset.
func (lx *lexer) strError(what string) *Error {
	start := lx.pos()
	if lx.off < len(lx.src) {
		lx.advance()
	}
	return stringError(lx.span(start), what)
}

func (lx *lexer) unclosed(start Pos) *Error {
	return stringError(lx.span(start), "did not close string literal")
}

// isHaskellSpace is Haskell's Data.Char.isSpace, which upstream uses for
// string gaps: the ASCII spaces, U+00A0, and the Unicode space separators
// (category Zs). Unlike Go's unicode.IsSpace it excludes U+0085, U+2028 and
// U+2029.
func isHaskellSpace(r rune) bool {
	switch {
	case r == ' ', r >= '\t' && r <= '\r', r == 0xa0:
		return true
	case r < 0x100:
		return false
	}
	return unicode.Is(unicode.Zs, r)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
