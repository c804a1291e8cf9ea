package ledger

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func sampleHeader(t testing.TB) *Header {
	h, ok := UpstreamGenesisHeader(Mainnet01, 0)
	if !ok {
		t.Fatal("no genesis")
	}
	return h
}

func TestDecodeHeaderRejectsMalformed(t *testing.T) {
	good := sampleHeader(t).Bytes()
	swapped := bytes.Clone(good)
	// swap adjacent records 0 and 1 so chain ids descend
	copy(swapped[50:86], good[86:122])
	copy(swapped[86:122], good[50:86])
	dup := bytes.Clone(good)
	copy(dup[86:90], good[50:54]) // second adjacent gets the first's chain id
	huge := bytes.Clone(good)
	huge[48], huge[49] = 0xff, 0xff
	cases := map[string][]byte{
		"empty":              nil,
		"short":              good[:100],
		"one byte short":     good[:len(good)-1],
		"one byte long":      append(bytes.Clone(good), 0),
		"descending":         swapped,
		"duplicate adjacent": dup,
		"huge count":         huge,
	}
	for name, b := range cases {
		if _, err := DecodeHeader(b); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	if _, err := DecodeHeader(good); err != nil {
		t.Fatal(err)
	}
}

func TestParseHash(t *testing.T) {
	h := sampleHeader(t).Hash
	if got, err := ParseHash(h.String()); err != nil || got != h {
		t.Fatalf("round trip: %v", err)
	}
	for _, bad := range []string{"", "abc", h.String() + "A", h.String()[:42] + "=", h.String()[:42] + "+",
		h.String()[:42] + "B" /* non-canonical trailing bits */, strings.Repeat("A", 44)} {
		if _, err := ParseHash(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestU256(t *testing.T) {
	x, _ := new(big.Int).SetString("123456789012345678901234567890123456789012345678901234567890", 10)
	u, ok := U256FromBig(x)
	if !ok || u.Big().Cmp(x) != 0 {
		t.Fatal("big round trip")
	}
	if _, ok := U256FromBig(new(big.Int).Lsh(big.NewInt(1), 256)); ok {
		t.Fatal("2^256 accepted")
	}
	if _, ok := U256FromBig(big.NewInt(-1)); ok {
		t.Fatal("negative accepted")
	}
	if MaxU256.Cmp(u) != 1 || u.Cmp(MaxU256) != -1 || u.Cmp(u) != 0 {
		t.Fatal("Cmp")
	}
	le := u.LE()
	if U256FromLE(le[:]) != u {
		t.Fatal("LE round trip")
	}
	if new(big.Int).SetBytes(mustHexBytes(t, u.BEHex())).Cmp(x) != 0 {
		t.Fatal("BEHex")
	}
}

func TestDecodeHeaderObjectErrors(t *testing.T) {
	obj := sampleHeader(t).ObjectJSON()
	var m map[string]any
	json.Unmarshal(obj, &m)
	for _, key := range []string{"nonce", "creationTime", "parent", "adjacents", "target", "payloadHash",
		"chainId", "weight", "height", "epochStart", "featureFlags", "hash"} {
		c := clone(m)
		delete(c, key)
		if _, err := DecodeHeaderObject(mustJSON(c)); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("without %s: %v", key, err)
		}
	}
	// Either network name alone is enough; both must agree; unknown names fail.
	c := clone(m)
	delete(c, "chainwebVersion")
	if _, err := DecodeHeaderObject(mustJSON(c)); err != nil {
		t.Errorf("ledgerVersion alone: %v", err)
	}
	c = clone(m)
	delete(c, "ledgerVersion")
	if _, err := DecodeHeaderObject(mustJSON(c)); err != nil {
		t.Errorf("chainwebVersion alone: %v", err)
	}
	c = clone(m)
	delete(c, "ledgerVersion")
	delete(c, "chainwebVersion")
	if _, err := DecodeHeaderObject(mustJSON(c)); err == nil {
		t.Error("no network accepted")
	}
	c = clone(m)
	c["ledgerVersion"] = "testnet04"
	if _, err := DecodeHeaderObject(mustJSON(c)); err == nil {
		t.Error("disagreeing names accepted")
	}
	for key, bad := range map[string]any{"nonce": "-1", "chainId": 1e20, "height": -3, "target": "AAAA",
		"featureFlags": "x", "adjacents": map[string]any{"x": sampleHeader(t).Hash.String()}} {
		c = clone(m)
		c[key] = bad
		if _, err := DecodeHeaderObject(mustJSON(c)); err == nil {
			t.Errorf("%s=%v accepted", key, bad)
		}
	}
	// 64-bit feature flags survive exactly (real pre-2021 headers use all 64 bits).
	c = clone(m)
	c["featureFlags"] = json.Number("2928010018466187776")
	h, err := DecodeHeaderObject(mustJSON(c))
	if err != nil || h.FeatureFlags != 2928010018466187776 {
		t.Fatalf("large flags: %v %d", err, h.FeatureFlags)
	}
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestGraphPaths(t *testing.T) {
	g := TwentyChainGraph
	for _, a := range g.Chains() {
		for _, b := range g.Chains() {
			p := g.ShortestPath(a, b)
			if len(p)-1 != g.Distance(a, b) || p[0] != a || p[len(p)-1] != b {
				t.Fatalf("path %d->%d: %v (distance %d)", a, b, p, g.Distance(a, b))
			}
			for i := 1; i < len(p); i++ {
				found := false
				for _, n := range g.Neighbors(p[i-1]) {
					found = found || n == p[i]
				}
				if !found {
					t.Fatalf("path %v uses a non-edge", p)
				}
			}
		}
	}
	if g.Distance(0, 25) != -1 || g.ShortestPath(0, 25) != nil {
		t.Fatal("absent chain has a distance")
	}
}

func TestVersionLookup(t *testing.T) {
	for _, name := range []string{"mainnet01", "testnet04", "development", "test-singleton", "recap-development"} {
		v, ok := VersionByName(name)
		if !ok {
			t.Fatalf("%s unknown", name)
		}
		if w, ok := VersionByCode(v.Code); !ok || w != v {
			t.Fatalf("%s: code lookup", name)
		}
	}
	if Mainnet01.GraphAt(852053) != PetersenGraph || Mainnet01.GraphAt(852054) != TwentyChainGraph {
		t.Fatal("mainnet graph history")
	}
	// A non-genesis header is checked against its parent's graph; chain 10's genesis against its own.
	if Mainnet01.HeaderGraph(0, 852054) != PetersenGraph || Mainnet01.HeaderGraph(0, 852055) != TwentyChainGraph ||
		Mainnet01.HeaderGraph(10, 852054) != TwentyChainGraph {
		t.Fatal("HeaderGraph")
	}
	if g, ok := TestSingleton.GenesisHeight(0); !ok || g != 0 || TestSingleton.HasChain(1) {
		t.Fatal("test-singleton chains")
	}
	h, ok := UpstreamGenesisHeader(TestSingleton, 0)
	if ok || h != nil {
		t.Fatal("test-singleton has no upstream genesis payload")
	}
	th := GenesisHeader(TestSingleton, 0, Hash{})
	if th.Size() != 210 || len(th.Adjacents) != 0 {
		t.Fatalf("singleton genesis size %d", th.Size())
	}
	if d, err := DecodeHeader(th.Bytes()); err != nil || d.ComputeHash() != th.Hash {
		t.Fatal("singleton header round trip")
	}
}

// Fuzz targets: every decoder must reject or accept without panicking, and whatever it accepts
// must re-encode to an equivalent header.

func FuzzDecodeHeader(f *testing.F) {
	f.Add(sampleHeader(f).Bytes())
	f.Add(GenesisHeader(TestSingleton, 0, Hash{}).Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHeader(b)
		if err != nil {
			return
		}
		if !bytes.Equal(h.Bytes(), b) {
			t.Fatalf("accepted bytes do not re-encode identically")
		}
		h.ComputeHash()
	})
}

func FuzzDecodeHeaderB64(f *testing.F) {
	f.Add(sampleHeader(f).B64())
	f.Add("")
	f.Add("====")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := DecodeHeaderB64(s)
		if err != nil {
			return
		}
		if h.B64() != s {
			t.Fatalf("accepted text does not re-encode identically")
		}
	})
}

func FuzzDecodeHeaderObject(f *testing.F) {
	f.Add(sampleHeader(f).ObjectJSON())
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"nonce":"1","adjacents":{"1":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHeaderObject(b)
		if err != nil {
			return
		}
		back, err := DecodeHeaderObject(h.ObjectJSON())
		if err != nil || !bytes.Equal(back.Bytes(), h.Bytes()) {
			t.Fatalf("object re-encoding does not round trip: %v", err)
		}
	})
}

func FuzzDecodeCut(f *testing.F) {
	h := sampleHeader(f)
	f.Add(NewCut(Mainnet01, []*Header{h}).AppendJSON(nil))
	f.Add([]byte(`{"hashes":{"0":{}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _, err := DecodeCutJSON(b)
		if err != nil {
			return
		}
		c.ID()
		c.AppendJSON(nil)
	})
}
