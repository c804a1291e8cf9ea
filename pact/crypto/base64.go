package crypto

import (
	"encoding/base64"
	"errors"
	"strconv"
)

// DecodeBase64URL is P5's decodeBase64UrlUnpadded, which is
// base64-bytestring 1.2.1.0's Data.ByteString.Base64.URL.decode: padding
// is optional (a length of 2 or 3 mod 4 is completed with '='), the
// trailing bits must be zero, and the error texts are the library's, since
// hash-keccak256 shows them ("Base64URL decode failed: <text>").
func DecodeBase64URL(s []byte) ([]byte, error) {
	if len(s) == 0 {
		return []byte{}, nil
	}
	switch len(s) % 4 {
	case 1:
		return nil, errors.New("Base64-encoded bytestring has invalid size")
	case 2:
		s = append(s[:len(s):len(s)], '=', '=')
	case 3:
		// The library refuses to complete "xx=" to "xx==": that input
		// has a stray padding character.
		if s[len(s)-1] == '=' {
			return nil, errors.New("Base64-encoded bytestring has invalid padding")
		}
		s = append(s[:len(s):len(s)], '=')
	}
	return decodeQuads(s)
}

const (
	b64Invalid = 0xff
	b64Pad     = 0x63 // the library's table marks '=' with 99
)

var b64URLTable = func() (t [256]byte) {
	for i := range t {
		t[i] = b64Invalid
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	t['='] = b64Pad
	return t
}()

func b64Err(what string, off int) error {
	return errors.New(what + " at offset: " + strconv.Itoa(off))
}

// decodeQuads is the library's decodeLoop over a length that is a multiple
// of 4, checking each quad in the library's order so that the first error
// reported (and its offset) is the same.
func decodeQuads(s []byte) ([]byte, error) {
	out := make([]byte, 0, len(s)/4*3)
	for off := 0; off < len(s); off += 4 {
		// The common quad, four data characters, in one test: the table
		// maps them below 64 and padding (99) and invalid bytes (255) above.
		q := s[off : off+4]
		v0, v1, v2, v3 := b64URLTable[q[0]], b64URLTable[q[1]], b64URLTable[q[2]], b64URLTable[q[3]]
		if (v0|v1|v2|v3)&0xc0 == 0 {
			w := uint32(v0)<<18 | uint32(v1)<<12 | uint32(v2)<<6 | uint32(v3)
			out = append(out, byte(w>>16), byte(w>>8), byte(w))
			continue
		}
		var v [4]byte
		for k := range v {
			v[k] = b64URLTable[s[off+k]]
		}
		last := off+4 == len(s)
		// Inner quads admit no padding; the last one only in its final
		// two positions, and "x=y" (pad then data) is reported at the data.
		switch {
		case v[0] == b64Pad:
			return nil, b64Err("invalid padding", off)
		case v[1] == b64Pad:
			return nil, b64Err("invalid padding", off+1)
		case !last && v[2] == b64Pad:
			return nil, b64Err("invalid padding", off+2)
		case !last && v[3] == b64Pad:
			return nil, b64Err("invalid padding", off+3)
		case last && v[2] == b64Pad && v[3] != b64Pad:
			return nil, b64Err("invalid character", off+3)
		}
		for k := range v {
			if v[k] == b64Invalid {
				return nil, b64Err("invalid character", off+k)
			}
		}
		w := uint32(v[0]&63)<<18 | uint32(v[1]&63)<<12 | uint32(v[2]&63)<<6 | uint32(v[3]&63)
		switch {
		case v[2] == b64Pad: // "xx==": one byte, the low 4 bits of x2 must be 0
			if v[1]&0x0f != 0 {
				return nil, b64Err("non-canonical encoding detected", off+1)
			}
			return append(out, byte(w>>16)), nil
		case v[3] == b64Pad: // "xxx=": two bytes, the low 2 bits of x3 must be 0
			if v[2]&0x03 != 0 {
				return nil, b64Err("non-canonical encoding detected", off+2)
			}
			return append(out, byte(w>>16), byte(w>>8)), nil
		}
		out = append(out, byte(w>>16), byte(w>>8), byte(w))
	}
	return out, nil
}

// EncodeBase64URL is P5's encodeBase64UrlUnpadded.
func EncodeBase64URL(b []byte) string {
	return base64.RawURLEncoding.EncodeToString(b)
}
