package value

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Principals (spec §3.6): the natives create-principal, is-principal,
// typeof-principal and validate-principal, after P5's Pact.Core.Principal
// and createPrincipalForGuard (Pact.Core.IR.Eval.Runtime.Utils). Gas is the
// caller's business.
//
// What each guard kind becomes:
//
//	keyset, one ed25519 key, keys-all  k:<key>
//	any other keyset                   w:<hash of the sorted keys, concatenated>:<pred>
//	keyset reference                   r:<keyset name>
//	user guard                         u:<ns.mod.fun>:<hash of the args' JSON, concatenated>
//	module guard                       m:<ns.mod>:<name>
//	pact guard                         p:<pact id>:<name>
//	capability guard                   c:<hash of ns.mod.CAP ++ args' JSON ++ pact id>
//
// Hashes are BLAKE2b-256 in unpadded base64url over the plain concatenation
// of the parts, without separators. The capability name and the pact id
// enter the c: hash as bare UTF-8 text; only the arguments are JSON, each in
// P5's stable encoding (EncodeJSON).

// CreatePrincipal is the create-principal native: the principal string of
// any guard.
func CreatePrincipal(g Value) (Value, error) {
	gd, ok := g.(Guard)
	if !ok {
		return nil, ArgsError("create-principal", g)
	}
	p, err := principalOf(gd)
	if err != nil {
		return nil, err
	}
	return String(p), nil
}

// IsPrincipal is the is-principal native: whether s parses as a principal.
func IsPrincipal(s Value) (Value, error) {
	str, ok := s.(String)
	if !ok {
		return nil, ArgsError("is-principal", s)
	}
	return Bool(principalType(string(str)) != ""), nil
}

// TypeOfPrincipal is the typeof-principal native: the prefix ("k:", "w:",
// ...) of a string that parses as a principal, "" otherwise.
func TypeOfPrincipal(s Value) (Value, error) {
	str, ok := s.(String)
	if !ok {
		return nil, ArgsError("typeof-principal", s)
	}
	return String(principalType(string(str))), nil
}

// ValidatePrincipal is the validate-principal native: whether s is exactly
// the principal of guard g.
func ValidatePrincipal(g, s Value) (Value, error) {
	gd, ok1 := g.(Guard)
	str, ok2 := s.(String)
	if !ok1 || !ok2 {
		return nil, ArgsError("validate-principal", g, s)
	}
	p, err := principalOf(gd)
	if err != nil {
		return nil, err
	}
	return Bool(p == string(str)), nil
}

// principalOf is P5's createPrincipalForGuard followed by mkPrincipalIdent.
func principalOf(g Guard) (string, error) {
	switch g := g.(type) {
	case *KeySet:
		keys := g.Keys
		if !slices.IsSorted(keys) {
			// P5 keeps keys in a Set; NewKeySet already sorts them.
			keys = slices.Sorted(slices.Values(keys))
			keys = slices.Compact(keys)
		}
		pred := g.Pred
		if pred == "" {
			pred = KeysAll
		}
		if len(keys) == 1 && pred == KeysAll && IsEd25519HexKey(keys[0]) {
			return "k:" + keys[0], nil
		}
		return "w:" + HashBytes([]byte(strings.Join(keys, ""))) + ":" + pred, nil
	case *KeySetRef:
		return "r:" + g.Text(), nil
	case *ModuleGuard:
		return "m:" + g.Module.String() + ":" + g.Name, nil
	case *PactGuard:
		return "p:" + g.PactID + ":" + g.Name, nil
	case *UserGuard:
		var buf []byte
		for _, a := range g.Args {
			var err error
			if buf, err = AppendJSON(buf, a); err != nil {
				return "", err
			}
		}
		return "u:" + g.Fun.String() + ":" + HashBytes(buf), nil
	case *CapabilityGuard:
		buf := []byte(g.Name.String())
		for _, a := range g.Args {
			var err error
			if buf, err = AppendJSON(buf, a); err != nil {
				return "", err
			}
		}
		if g.HasPactID {
			buf = append(buf, g.PactID...)
		}
		return "c:" + HashBytes(buf), nil
	}
	return "", ArgsError("create-principal", g)
}

// IsEd25519HexKey is P5's ed25519HexFormat: 64 lower-case hex digits.
func IsEd25519HexKey(k string) bool {
	if len(k) != 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// principalType parses s as P5's principalParser does and returns the
// principal's prefix, or "" if s is not a principal.
//
// The parser is attoparsec with identifiers from the `parsers` package,
// and its quirks are kept:
//
//   - identifiers (and the '.' between them) swallow the whitespace after
//     them, so "u:mod.fn :HASH" parses;
//   - an alternative that succeeded is never revisited when what follows
//     fails: "r:ns.ks.x" is rejected although a bare keyset name may be any
//     non-empty text, because "ns.ks" parses as a qualified name and ".x" is
//     left over;
//   - the 43 hash characters are tested with Data.ByteString.Char8.elem,
//     which truncates a character to its low 8 bits, so U+0141 'Ł' passes
//     as 'A';
//   - k: keys accept upper-case hex digits (isHexDigit), although
//     create-principal only makes k: principals from lower-case keys.
func principalType(s string) string {
	if len(s) < 2 || s[1] != ':' {
		return ""
	}
	p := s[:2]
	rest := s[2:]
	var ok bool
	switch s[0] {
	case 'k':
		rest, ok = prCount(rest, 64, prIsHexDigit)
	case 'w':
		rest, ok = prHash(rest)
		rest, ok = prThen(rest, ok, prColon)
		rest, ok = prThen(rest, ok, prNameMatcher)
	case 'r':
		rest, ok = prKeySetName(rest)
	case 'u':
		rest, ok = prNameMatcher(rest)
		rest, ok = prThen(rest, ok, prColon)
		rest, ok = prThen(rest, ok, prHash)
	case 'm':
		rest, ok = prModuleName(rest)
		rest, ok = prThen(rest, ok, prColon)
		rest, ok = prThen(rest, ok, prNameMatcher)
	case 'p':
		rest, ok = prHash(rest)
		rest, ok = prThen(rest, ok, prColon)
		rest, ok = prThen(rest, ok, prNameMatcher)
	case 'c':
		rest, ok = prHash(rest)
	}
	if !ok || rest != "" {
		return ""
	}
	return p
}

// The pr* parsers take the remaining input and return what is left after
// them and whether they matched. A failed parser consumes nothing, which is
// attoparsec's behaviour (it always backtracks to the alternative).

type prParser func(string) (string, bool)

// prThen runs p on rest if the previous parser matched.
func prThen(rest string, ok bool, p prParser) (string, bool) {
	if !ok {
		return rest, false
	}
	return p(rest)
}

func prColon(s string) (string, bool) {
	if strings.HasPrefix(s, ":") {
		return s[1:], true
	}
	return s, false
}

// prCount matches exactly n characters satisfying f.
func prCount(s string, n int, f func(rune) bool) (string, bool) {
	rest := s
	for range n {
		r, size := utf8.DecodeRuneInString(rest)
		if size == 0 || !f(r) {
			return s, false
		}
		rest = rest[size:]
	}
	return rest, true
}

// prIsHexDigit is Data.Char.isHexDigit: ASCII hex digits of either case.
func prIsHexDigit(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

const prBase64URLAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// prHash matches the 43 characters of an unpadded base64url hash.
func prHash(s string) (string, bool) {
	return prCount(s, 43, func(r rune) bool {
		// Char8.elem compares the character truncated to a byte.
		return strings.IndexByte(prBase64URLAlphabet, byte(r)) >= 0
	})
}

// prIdentStart and prIdentLetter are the identifier style of P5's
// RuntimeParsers: a letter (Data.Char.isAlpha, any Unicode letter) or a
// special to start, then letters, ASCII digits and specials.
func prIdentStart(r rune) bool {
	return unicode.IsLetter(r) || strings.ContainsRune("%#+-_&$@<>=^?*!|/~", r)
}

func prIdentLetter(r rune) bool {
	return prIdentStart(r) || r >= '0' && r <= '9'
}

// prIsSpace is Data.Char.isSpace: the Latin-1 blanks (space, \t to \r,
// no-break space), and above U+0377 the space separators (Zs).
func prIsSpace(r rune) bool {
	if r <= 0x377 {
		return r == ' ' || r >= '\t' && r <= '\r' || r == 0xa0
	}
	return unicode.Is(unicode.Zs, r)
}

// prSpaces skips the whitespace a token parser swallows after its token.
func prSpaces(s string) string {
	for {
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 || !prIsSpace(r) {
			return s
		}
		s = s[size:]
	}
}

// prIdent is `ident style`: an identifier other than the reserved "true"
// and "false", then optional whitespace.
func prIdent(s string) (string, bool) {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || !prIdentStart(r) {
		return s, false
	}
	n := size
	for {
		r, size := utf8.DecodeRuneInString(s[n:])
		if size == 0 || !prIdentLetter(r) {
			break
		}
		n += size
	}
	if name := s[:n]; name == "true" || name == "false" {
		return s, false
	}
	return prSpaces(s[n:]), true
}

// prDotIdent is `dot *> ident style`; dot swallows whitespace too.
func prDotIdent(s string) (string, bool) {
	if !strings.HasPrefix(s, ".") {
		return s, false
	}
	rest, ok := prIdent(prSpaces(s[1:]))
	if !ok {
		return s, false
	}
	return rest, true
}

// prNameMatcher is P5's nameMatcher: `a.b` or `a.b.c`, else a bare `a`.
func prNameMatcher(s string) (string, bool) {
	rest, ok := prIdent(s)
	if !ok {
		return s, false
	}
	// The qualified alternative needs a second part; without one the bare
	// alternative matches the same first identifier.
	if r2, ok := prDotIdent(rest); ok {
		rest = r2
		if r3, ok := prDotIdent(rest); ok {
			rest = r3
		}
	}
	return rest, true
}

// prModuleName is P5's moduleNameParser: `mod` or `ns.mod`.
func prModuleName(s string) (string, bool) {
	rest, ok := prIdent(s)
	if !ok {
		return s, false
	}
	if r2, ok := prDotIdent(rest); ok {
		rest = r2
	}
	return rest, true
}

// prKeySetName is P5's keysetNameParser: `ns.name`, or failing that any
// non-empty text (legacy names).
func prKeySetName(s string) (string, bool) {
	if rest, ok := prIdent(s); ok {
		if rest, ok := prDotIdent(rest); ok {
			return rest, true
		}
	}
	if s == "" {
		return s, false
	}
	return "", true
}
