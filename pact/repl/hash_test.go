package repl

import (
	"io"
	"testing"

	"github.com/ledgernode/ledger-node/pact/value"
)

// The check values of shared/spec/pact.md §2.4 and §2.6, evaluated through
// the interpreter with the REPL's default environment.
func TestHashCheckValues(t *testing.T) {
	cases := []struct{ src, want string }{
		{`(hash "")`, "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"},
		{`(hash "hello")`, "Mk3PAn3UowqTLEQfNlol6GsXPe-kuOWJSCU0cbgbcs8"},
		{`(hash {'foo: 1})`, "h9BZgylRf_M4HxcBXr15IcSXXXSz74ZC2IAViGle_z4"},
		{`(hash (chain-data))`, "JRdgzVN17Xy4-8dWegAKj_BPNv6ffNpbtT6YOCiUcY8"},
		// The default tx hash is the hash of "".
		{`(tx-hash)`, "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"},
	}
	for _, c := range cases {
		r := New(io.Discard)
		vs, err := r.EvalSource("hash.repl", c.src, true)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := vs[len(vs)-1]; !value.Equal(got, value.String(c.want)) {
			t.Errorf("%s = %s, want %q", c.src, value.Pretty(got), c.want)
		}
	}
}
