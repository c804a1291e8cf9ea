package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/transport"
)

// FuzzConfigYAML: any config file content either fails with an error or yields a configuration
// that passes validation; nothing panics.
func FuzzConfigYAML(f *testing.F) {
	f.Add([]byte("network: development\nserviceApi:\n  port: 1848\n"))
	f.Add([]byte("serviceApi: [1, 2]\n"))
	f.Add([]byte("store:\n  headerCacheSize: -1\n"))
	f.Add([]byte("&a [*a]"))
	f.Add([]byte("chainweb:\n  p2p:\n    peers: [{id: null, address: {hostname: a, port: 1}}]\n  throttling: {x: 1}\n"))
	f.Add([]byte("logging:\n  logger: {log_level: WARN}\n  backend: {format: Json, color: \"True\"}\n"))
	f.Add([]byte("chainweb: 7\ndatabaseDirectory: null\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg := DefaultConfig()
		if err := decodeConfig("fuzz.yaml", b, &cfg, func(string) {}); err != nil {
			return
		}
		cfg.DataDir = "/d"
		if err := cfg.finish(); err != nil {
			return
		}
		if cfg.ServiceAPI.Port < 0 || cfg.ServiceAPI.Port > 65535 || cfg.Store.HeaderCacheSize <= 0 {
			t.Fatalf("invalid config accepted: %+v", cfg)
		}
	})
}

// FuzzHeaderFile: import files of any content are parsed or refused without panicking, and every
// header parsed re-encodes to a decodable header.
func FuzzHeaderFile(f *testing.F) {
	if b, err := os.ReadFile(chain5Vector); err == nil && len(b) > 4000 {
		f.Add(b[:4000]) // a truncated JSON vector
	}
	f.Add([]byte(`{"headers":["AAAA"]}`))
	f.Add([]byte(`[{"binary_b64url":"AA"}, "x", {}]`))
	f.Add([]byte("# comment\n\nAAAA\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		hs, err := parseHeaderFile("fuzz", b)
		if err != nil {
			return
		}
		for _, h := range hs {
			h.ComputeHash()
			h.Bytes()
		}
	})
}

// FuzzKnownPeerInfo: chainweb's --known-peer-info [PEERID@]HOST:PORT is refused or yields a
// peer info the peer list takes (what PUT cut/peer checks), which keeps the id and whose
// address is the one after the id.
func FuzzKnownPeerInfo(f *testing.F) {
	f.Add("bootstrap-node:1789")
	f.Add("x5X1ldQfpFpTYC6Lq4u5ks5YWELLqs0wMpGngVWvXUo@bootstrap-node:1789")
	f.Add("[::1]:1789")
	f.Add("@:0")
	f.Fuzz(func(t *testing.T, s string) {
		text, err := parseKnownPeer(s)
		if err != nil {
			return
		}
		p, err := transport.ParsePeerInfo(text)
		if err != nil || p.Text() != text {
			t.Fatalf("%q gave %q, which the peer list refuses: %v", s, text, err)
		}
		if id, rest, ok := strings.Cut(s, "@"); ok {
			q, err := transport.ParsePeerAddr(rest)
			if err != nil || q.String() != p.String() || p.ID == nil || *p.ID != id {
				t.Fatalf("%q gave %q, not the id and the address after it", s, text)
			}
		} else if p.ID != nil {
			t.Fatalf("%q gave an id: %q", s, text)
		}
	})
}
