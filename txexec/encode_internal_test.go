package txexec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/result"
)

// A result encoded through the scratch buffer is result.Append's, owns
// its bytes (the next encoding does not overwrite it), and measures as
// long; a result larger than the kept scratch is encoded as well.
func TestEncodeResultOwnsItsBytes(t *testing.T) {
	outcome := func(s string) *result.Outcome { return &result.Outcome{Gas: 7, Value: eval.String(s)} }
	rk := api.HashBytes([]byte("rk"))
	first := encodeResult(rk, outcome("first"))
	want := result.Append(nil, rk, outcome("first"))
	for _, s := range []string{"second", strings.Repeat("x", 2*maxScratch)} {
		o := outcome(s)
		got := encodeResult(rk, o)
		if !bytes.Equal(got, result.Append(nil, rk, o)) || resultLen(rk, o) != len(got) {
			t.Fatalf("%.20s: encoded %d bytes, measured %d, want %d", s, len(got), resultLen(rk, o), len(result.Append(nil, rk, o)))
		}
	}
	if !bytes.Equal(first, want) {
		t.Fatalf("the first result changed under later encodings:\n%s\nwant\n%s", first, want)
	}
}
