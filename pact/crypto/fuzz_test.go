package crypto

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// The decoders below take bytes straight from transactions.

func FuzzDecodeBase64URL(f *testing.F) {
	for _, s := range []string{"", "YWJj", "YQ", "YQ==", "YQ=", "YR", "YW=j", "Y=JjYWJj", "\u00e9", "-_8"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := DecodeBase64URL(in)
		if err != nil {
			return
		}
		// Success means canonical: re-encoding gives the input back, up
		// to the optional padding.
		if enc := EncodeBase64URL(out); enc != strings.TrimRight(string(in), "=") {
			t.Fatalf("%q decodes to %x, which encodes to %q", in, out, enc)
		}
		// And the standard library's strict decoder agrees.
		std, err := base64.URLEncoding.Strict().DecodeString(padTo4(strings.TrimRight(string(in), "=")))
		if err != nil || !bytes.Equal(std, out) {
			t.Fatalf("%q: ours %x, encoding/base64 %x (%v)", in, out, std, err)
		}
	})
}

func padTo4(s string) string {
	for len(s)%4 != 0 {
		s += "="
	}
	return s
}

func FuzzDecodeTokenMessage(f *testing.F) {
	raw, _ := DecodeBase64URL([]byte(hyperlaneTokenMsg))
	f.Add(raw)
	f.Add([]byte{})
	f.Add(make([]byte, 34))
	f.Fuzz(func(t *testing.T, in []byte) {
		tm, err := DecodeTokenMessage(in)
		if err != nil {
			if len(in) >= 34 {
				t.Fatalf("%x: %v", in, err)
			}
			return
		}
		if enc := EncodeTokenMessage(&tm); !bytes.Equal(enc, in) {
			t.Fatalf("%x re-encodes to %x", in, enc)
		}
	})
}
