package transport

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

func TestNegotiate(t *testing.T) {
	for _, c := range []struct {
		accept string
		offers []encoding
		want   encoding
		ok     bool
	}{
		{"", offersHeaderByHash, encJSON, true},
		{"*/*", offersHeaderByHash, encJSON, true},
		{"application/json", offersHeaderByHash, encJSON, true},
		{ledger.ObjectMediaType, offersHeaderByHash, encJSONObject, true},
		{`application/json; blockheader-encoding="object"`, offersHeaderList, encJSONObject, true},
		{"APPLICATION/JSON;BLOCKHEADER-ENCODING=OBJECT", offersHeaderList, encJSONObject, true},
		{ledger.ObjectMediaType, offersJSON, 0, false},
		{"application/octet-stream", offersHeaderList, 0, false},
		{"application/octet-stream", offersHeaderByHash, encOctet, true},
		{"application/json;q=0.4, application/octet-stream;q=0.5", offersHeaderByHash, encOctet, true},
		{"application/json;q=0.5, application/octet-stream;q=0.5", offersHeaderByHash, encJSON, true},
		{"application/*;q=0.2, application/json;blockheader-encoding=object;q=0.3", offersHeaderByHash, encJSONObject, true},
		{"text/*, application/json;q=0.001", offersJSON, encJSON, true},
		{"application/json;q=0", offersJSON, 0, false},
		{"application/json;q=1.5", offersJSON, 0, false},
		{"application/json;q=abc, */*", offersJSON, encJSON, true},
		{"garbage", offersJSON, 0, false},
		{"*/json", offersJSON, 0, false},
		{"application/json;charset=utf-8", offersJSON, encJSON, true},
		{"application/json;foo=bar", offersJSON, 0, false},
	} {
		got, ok := negotiate([]byte(c.accept), c.offers)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%q: got %d %v, want %d %v", c.accept, got, ok, c.want, c.ok)
		}
	}
}

func TestParseUint(t *testing.T) {
	for _, c := range []struct {
		in           string
		v            uint64
		ok, overflow bool
	}{
		{"0", 0, true, false}, {"42", 42, true, false}, {"18446744073709551615", 1<<64 - 1, true, false},
		{"18446744073709551616", 0, false, true}, {"99999999999999999999999", 0, false, true},
		{"", 0, false, false}, {"-1", 0, false, false}, {"1a", 0, false, false}, {" 1", 0, false, false},
	} {
		v, ok, of := httpkit.ParseUint([]byte(c.in))
		if v != c.v || ok != c.ok || of != c.overflow {
			t.Errorf("%q: %d %v %v", c.in, v, ok, of)
		}
	}
}

func TestParseCursorMessages(t *testing.T) {
	h := ledger.Hash{3}.String()
	for in, want := range map[string]string{
		"foo":                "missing ':' in next item",
		"forward:" + h:       "unrecognized next item",
		"inclusive:x":        "invalid hash in next item",
		"Inclusive:" + h:     "unrecognized next item",
		"inclusive:" + h[1:]: "43 characters",
	} {
		if _, err := parseCursor([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", in, err)
		}
	}
	c, err := parseCursor([]byte("exclusive:" + h))
	if err != nil || c.inclusive || c.hash.String() != h {
		t.Errorf("exclusive: %+v %v", c, err)
	}
}
