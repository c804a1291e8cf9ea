package api

import (
	"bytes"
	"encoding/hex"
	"slices"
	"testing"
	"time"
)

// Fuzz targets for every decoder: none may panic, and what decodes must
// encode to something that decodes to the same bytes again.

func FuzzDecodeCommand(f *testing.F) {
	f.Add([]byte(signScriptsBatch[len(`{"cmds":[`) : len(signScriptsBatch)-2]))
	f.Add([]byte(`{"hash":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g","sigs":[{"sig":"{\"clientDataJSON\":\"\",\"authenticatorData\":\"\",\"signature\":\"\"}"}],"cmd":"{}"}`))
	f.Add([]byte(`{"hash":"x","sigs":[],"cmd":"\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCommand(data)
		if err != nil {
			return
		}
		js := c.JSON()
		c2, err := DecodeCommand(js)
		if err != nil || !bytes.Equal(c2.JSON(), js) {
			t.Fatalf("re-decoding %s: %v", js, err)
		}
		VerifyCommand(c)
		DecodeSubmitBatch(append(append([]byte(`{"cmds":[`), data...), ']', '}'))
	})
}

func FuzzDecodePayload(f *testing.F) {
	f.Add([]byte(signScriptsCmd))
	f.Add([]byte(p4UnsignedCmd))
	f.Add([]byte(`{"payload":{"cont":{"pactId":"p","step":1e1,"rollback":true,"data":{"int":"12"},"proof":"x"}},"signers":[{"pubKey":"k","addr":"a","scheme":"WebAuthn","clist":[{"args":[{"time":"2020-01-01T00:00:00Z"}],"name":"n.m.C"}]}],"verifiers":[{"name":"v","proof":{"keys":["a"],"pred":"keys-all"},"clist":[]}],"meta":{"creationTime":"1","ttl":{"int":2},"gasLimit":1.5e3,"chainId":"0","gasPrice":"0.1","sender":"s"},"nonce":"n","networkId":"x"}`))
	f.Add([]byte(`{"payload":{"exec":{"code":"(+ 1"}},"signers":[],"meta":{"address":{"from":"a","to":["b"]}},"nonce":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePayload(data)
		if err != nil {
			return
		}
		js, err := p.JSON()
		if err != nil {
			t.Fatalf("encoding a decoded payload: %v", err)
		}
		p2, err := DecodePayload(js)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", js, err)
		}
		js2, err := p2.JSON()
		if err != nil || !bytes.Equal(js, js2) {
			t.Fatalf("not stable:\n%s\n%s", js, js2)
		}
	})
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte("code: (+ 1 2)\ndata: {a: 1, b: [x, ~, 0x1f]}\nkeyPairs:\n  - secret: " + sec0 + "\n    caps: [{name: coin.GAS, args: [1.5]}]\npublicMeta: {chainId: '0', ttl: '7'}\nnonce: n\n"))
	f.Add([]byte("type: cont\npactTxHash: TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY\nstep: 1\nrollback: False\nsigners:\n  - public: " + pub0 + "\n"))
	f.Add([]byte("a: &a {x: 1}\nb: {<<: *a}\ncode: *a\n"))
	f.Add([]byte("data: {a: &a {x: 1}, b: {<<: *a}}\ncode: x\npublicMeta: {ttl: 1, chainID: '0'}\n"))
	f.Add([]byte("verifiers: [{name: v, proof: null, clist: []}]\ncode: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRequest(data)
		if err != nil {
			return
		}
		if n, err := parseYAML(data); err == nil {
			for _, k := range n.keys {
				if !slices.Contains(requestKeys, k) {
					t.Fatalf("accepted the unknown key %q", k)
				}
			}
		}
		// Files are not read: only requests with inline code and data.
		if r.CodeFile != nil || r.DataFile != nil {
			return
		}
		for _, unsigned := range []bool{false, true} {
			c, err := r.Build(unsigned, BuildOptions{Dir: "/nonexistent", Now: time.Unix(0, 0)})
			if err != nil {
				continue
			}
			if _, err := DecodePayload([]byte(c.Cmd)); err != nil {
				t.Fatalf("built a payload we cannot read: %v\n%s", err, c.Cmd)
			}
			if !unsigned {
				if _, err := VerifyCommand(c); err != nil && r.Type != "cont" && !isCodeError(err) {
					t.Fatalf("built a command that does not verify: %v\n%s", err, c.Cmd)
				}
			}
		}
	})
}

// isCodeError: -a does not parse the code, so a request's command may
// fail verification on it alone.
func isCodeError(err error) bool {
	ce, ok := err.(*CommandError)
	return ok && len(ce.Reason) > 0 && ce.Reason[0] >= '0' && ce.Reason[0] <= '9'
}

func FuzzParseSigData(f *testing.F) {
	f.Add([]byte(p4UnsignedYAML))
	f.Add([]byte(p4ColdYAML))
	f.Add([]byte(addSigsYAML))
	f.Add([]byte(bareSigYAML))
	f.Fuzz(func(t *testing.T, data []byte) {
		sd, err := ParseSigData(data)
		if err != nil {
			return
		}
		y := sd.YAML()
		sd2, err := ParseSigData(y)
		if err != nil || !bytes.Equal(sd2.YAML(), y) {
			t.Fatalf("re-reading %s: %v", y, err)
		}
		// pact -u prints JSON, which add-sig reads as YAML.
		j := sd.JSON()
		if sd3, err := ParseSigData(j); err != nil || !bytes.Equal(sd3.YAML(), y) {
			t.Fatalf("re-reading the JSON %s: %v", j, err)
		}
		FinishSigData(sd)
		CombineSigData([]*SigData{sd, sd2})
	})
}

func FuzzParseKeyFile(f *testing.F) {
	f.Add([]byte("public: " + pub0 + "\nsecret: " + sec0 + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseKeyFile(data)
	})
}

func FuzzParseCOSEKey(f *testing.F) {
	k, _ := hex.DecodeString(realWebAuthnKey)
	f.Add(k)
	f.Add(COSEKeyEd25519(make([]byte, 32)).Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		key, err := ParseCOSEKey(data)
		if err == nil && !bytes.Equal(key.Bytes(), data) {
			t.Fatal("a COSE key that is not its own encoding")
		}
	})
}
