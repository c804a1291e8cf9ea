package main

import (
	"os"
	"testing"
)

// FuzzConfigYAML: any config file content either fails with an error or yields a configuration
// that passes validation; nothing panics.
func FuzzConfigYAML(f *testing.F) {
	f.Add([]byte("network: development\nserviceApi:\n  port: 1848\n"))
	f.Add([]byte("serviceApi: [1, 2]\n"))
	f.Add([]byte("store:\n  headerCacheSize: -1\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg := DefaultConfig()
		if err := decodeConfig("fuzz.yaml", b, &cfg); err != nil {
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
