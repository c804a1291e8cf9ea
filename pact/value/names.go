package value

import (
	"encoding/base64"
	"strings"
	"unicode"
)

// Name parsing as P5's Names.hs does it for decoding values (JSON guards,
// capability tokens, tables). An identifier starts with a letter or one of
// the specials and continues with letters, ASCII digits and specials.

const IdentSpecials = "%#+-_&$@<>=^?*!|/~"

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r), strings.ContainsRune(IdentSpecials, r):
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}

func identParts(s string) ([]string, bool) {
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if !isIdent(p) {
			return nil, false
		}
	}
	return parts, true
}

// ParseModuleName parses `mod` or `ns.mod`.
func ParseModuleName(s string) (ModuleName, bool) {
	parts, ok := identParts(s)
	switch {
	case !ok:
		return ModuleName{}, false
	case len(parts) == 1:
		return ModuleName{Name: parts[0]}, true
	case len(parts) == 2:
		return ModuleName{Namespace: parts[0], Name: parts[1]}, true
	}
	return ModuleName{}, false
}

// ParseQualifiedName parses `mod.name` or `ns.mod.name`.
func ParseQualifiedName(s string) (QualifiedName, bool) {
	parts, ok := identParts(s)
	switch {
	case !ok:
		return QualifiedName{}, false
	case len(parts) == 2:
		return QualifiedName{Module: ModuleName{Name: parts[0]}, Name: parts[1]}, true
	case len(parts) == 3:
		return QualifiedName{Module: ModuleName{Namespace: parts[0], Name: parts[1]}, Name: parts[2]}, true
	}
	return QualifiedName{}, false
}

// validPredName reports whether s parses as a keyset predicate name that
// is not built in: a bare or qualified function name.
func validPredName(s string) bool {
	parts, ok := identParts(s)
	return ok && len(parts) <= 3
}

// ParseFullyQualifiedName parses `mod.name.{hash}` or
// `ns.mod.name.{hash}`. The hash must be valid unpadded base64url; it is
// kept in its canonical re-encoded form.
func ParseFullyQualifiedName(s string) (FullyQualifiedName, bool) {
	i := strings.LastIndex(s, ".{")
	if i < 0 || !strings.HasSuffix(s, "}") {
		return FullyQualifiedName{}, false
	}
	h, ok := parseHashText(s[i+2 : len(s)-1])
	if !ok {
		return FullyQualifiedName{}, false
	}
	q, ok := ParseQualifiedName(s[:i])
	if !ok {
		return FullyQualifiedName{}, false
	}
	return FullyQualifiedName{Module: q.Module, Name: q.Name, Hash: h}, true
}

// parseHashText accepts the hash alphabet P5's name parser admits (letters,
// digits, '-', '_') when it decodes as base64url, and returns it
// re-encoded so equal hashes have equal text.
func parseHashText(h string) (string, bool) {
	if h == "" {
		return "", false
	}
	for _, r := range h {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_') {
			return "", false
		}
	}
	b, err := DecodeBase64URL(h)
	if err != nil {
		return "", false
	}
	return base64.RawURLEncoding.EncodeToString(b), true
}

// parseModuleHash is P5's parseModuleHash: base64url of exactly 32 bytes.
func parseModuleHash(h string) (string, bool) {
	b, err := DecodeBase64URL(h)
	if err != nil || len(b) != 32 {
		return "", false
	}
	return base64.RawURLEncoding.EncodeToString(b), true
}

// parseJSONTableName parses the `mod:table` form tables use in JSON.
func parseJSONTableName(s string) (ModuleName, string, bool) {
	i := strings.LastIndex(s, ":")
	if i < 0 || !isIdent(s[i+1:]) {
		return ModuleName{}, "", false
	}
	m, ok := ParseModuleName(s[:i])
	return m, s[i+1:], ok
}

// DecodeBase64URL decodes base64url with or without padding, rejecting
// non-canonical trailing bits as base64-bytestring does.
func DecodeBase64URL(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	return base64.RawURLEncoding.Strict().DecodeString(s)
}

// EncodeBase64URL encodes unpadded base64url.
func EncodeBase64URL(b []byte) string {
	return base64.RawURLEncoding.EncodeToString(b)
}
