package api

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/pact/value"
)

var testNow = time.Date(2022, 3, 29, 20, 17, 21, 296857000, time.UTC)

func build(t *testing.T, yml string, unsigned bool) (*Command, *Payload) {
	t.Helper()
	r, err := ParseRequest([]byte(yml))
	if err != nil {
		t.Fatalf("ParseRequest: %v\n%s", err, yml)
	}
	c, err := r.Build(unsigned, BuildOptions{Now: testNow})
	if err != nil {
		t.Fatalf("Build: %v\n%s", err, yml)
	}
	if c.Hash != HashBytes([]byte(c.Cmd)) {
		t.Fatalf("hash %s is not the hash of cmd", c.Hash)
	}
	p, err := DecodePayload([]byte(c.Cmd))
	if err != nil {
		t.Fatalf("DecodePayload(%s): %v", c.Cmd, err)
	}
	return c, p
}

// P4's tests/add-sig/test.yaml, which made unsigned.yaml at the time its
// nonce shows: we make the same cmd, but for the cap's key order (P5 writes
// "name" before "args").
func TestRequestGoldenP4Unsigned(t *testing.T) {
	const yml = `code: |-
  (+ 1 1)
publicMeta:
  chainId: "0"
  sender: jose
  gasLimit: 5000
  gasPrice: 0.00000001
  ttl: 28800
networkId: "testnet04"
signers:
  - public: 87a4f2f179662829da6816b901ec1402b4baa30ce9d96048345aff9b346de6b7
  - public: 1ba4d22bdcf499a8e27667b56e45222260a93806066ca5f82e79ef2f38cf8c0b
    caps:
      - name: coin.GAS
        args: []
type: exec
`
	c, _ := build(t, yml, true)
	want := strings.Replace(p4UnsignedCmd, `{"args":[],"name":"coin.GAS"}`, `{"name":"coin.GAS","args":[]}`, 1)
	if c.Cmd != want {
		t.Fatalf("cmd:\n got %s\nwant %s", c.Cmd, want)
	}
	if len(c.Sigs) != 0 {
		t.Errorf("unsigned command has sigs")
	}
	sd, err := CommandToSigData(c)
	if err != nil {
		t.Fatal(err)
	}
	wantYAML := "hash: " + RequestKey(want) + "\nsigs:\n  " + pub2 + ": null\n  " + pub1 + ": null\ncmd: '" + want + "'\n"
	if got := string(sd.YAML()); got != wantYAML {
		t.Errorf("SigData:\n got %s\nwant %s", got, wantYAML)
	}
}

// P5's pact-tests/sign-scripts/unsigned-cont.yaml: -u quotes a
// continuation's nonce once more.
func TestRequestUnsignedCont(t *testing.T) {
	const yml = `type: "cont"
pactTxHash: "TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY"
step: 1
rollback: False
signers:
  - public: ac69d9856821f11b8e6ca5cdd84a98ec3086493fd6407e74ea9038407ec9eba9
nonce: just-sign-cont
`
	c, _ := build(t, yml, true)
	want := `{"networkId":null,"payload":{"cont":{"proof":null,"data":null,"pactId":"TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY","rollback":false,"step":1}},"signers":[{"pubKey":"ac69d9856821f11b8e6ca5cdd84a98ec3086493fd6407e74ea9038407ec9eba9"}],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":"\"just-sign-cont\""}`
	if c.Cmd != want {
		t.Errorf("cmd:\n got %s\nwant %s", c.Cmd, want)
	}
	// Signed, the nonce stays as written; a padded pactTxHash is
	// re-encoded.
	signedYAML := strings.Replace(yml, "signers:\n  - public: ac69d9856821f11b8e6ca5cdd84a98ec3086493fd6407e74ea9038407ec9eba9",
		"keyPairs:\n  - secret: "+sec0+"\nproof: eyJzcHYiOjF9\ndata: {a: 1}", 1)
	signedYAML = strings.Replace(signedYAML, `JvwY"`, `JvwY="`, 1)
	c, p := build(t, signedYAML, false)
	want = `{"networkId":null,"payload":{"cont":{"proof":"eyJzcHYiOjF9","data":{"a":1},"pactId":"TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY","rollback":false,"step":1}},"signers":[{"pubKey":"` + pub0 + `"}],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":"just-sign-cont"}`
	if c.Cmd != want || p.Cont == nil {
		t.Errorf("signed cmd:\n got %s\nwant %s", c.Cmd, want)
	}
	if _, err := VerifyCommand(c); err != nil {
		t.Error(err)
	}
}

func TestRequestSignedRoundTrip(t *testing.T) {
	yml := `code: "(coin.transfer \"a\" \"b\" 1.0)"
data:
  ks: {keys: [` + pub0 + `], pred: keys-all}
keyPairs:
  - public: ` + pub0 + `
    secret: ` + sec0 + `
    scheme: ED25519
    address: ` + strings.ToUpper(pub0) + `
    caps:
      - name: coin.TRANSFER
        args: ["a", "b", 1.0]
      - {args: [], name: coin.GAS}
  - secret: ` + sec1 + `
publicMeta: {chainId: "1", sender: a, gasLimit: "2500", gasPrice: "0.0000001", ttl: {int: 600}, creationTime: 1700000000}
networkId: development
nonce: n1
`
	c, _ := build(t, yml, false)
	want := `{"networkId":"development","payload":{"exec":{"data":{"ks":{"pred":"keys-all","keys":["` + pub0 + `"]}},"code":"(coin.transfer \"a\" \"b\" 1.0)"}},"signers":[{"pubKey":"` + pub0 + `","clist":[{"name":"coin.TRANSFER","args":["a","b",1]},{"name":"coin.GAS","args":[]}]},{"pubKey":"` + pub1 + `"}],"meta":{"creationTime":1700000000,"ttl":600,"gasLimit":2500,"chainId":"1","gasPrice":1.0e-7,"sender":"a"},"nonce":"n1"}`
	if c.Cmd != want {
		t.Errorf("cmd:\n got %s\nwant %s", c.Cmd, want)
	}
	// Through the JSON of pact -a and back.
	b, err := DecodeSubmitBatch((&SubmitBatch{Cmds: []*Command{c}}).AppendJSON(nil))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := VerifyCommand(b.Cmds[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Payload.Signers) != 2 || pc.Payload.Signers[0].Scheme != SchemeNone || pc.Payload.Signers[0].Addr != nil {
		t.Errorf("signers: %+v", pc.Payload.Signers)
	}
}

func TestRequestDefaults(t *testing.T) {
	for _, tc := range []struct{ name, yml, meta, nonce string }{
		{"no publicMeta", "code: x\n", `{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""}`, "2022-03-29 20:17:21.296857 UTC"},
		{"null publicMeta", "code: x\npublicMeta:\nnonce: ''\n", `{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""}`, ""},
		{"empty publicMeta", "code: x\npublicMeta: {}\n", `{"creationTime":1648585041,"ttl":1800,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""}`, "2022-03-29 20:17:21.296857 UTC"},
		{"template with nulls", "code: x\ncodeFile:\ndata:\ndataFile:\nnetworkId:\nkeyPairs:\nnonce:\ntype:\npublicMeta:\n  chainId:\n  sender:\n  gasLimit:\n  gasPrice:\n  ttl:\n  creationTime:\n",
			`{"creationTime":1648585041,"ttl":1800,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""}`, "2022-03-29 20:17:21.296857 UTC"},
		{"some fields", "code: x\npublicMeta: {chainId: '0', ttl: 0, gasPrice: 1}\nnonce: '7'\n", `{"creationTime":1648585041,"ttl":0,"gasLimit":0,"chainId":"0","gasPrice":1,"sender":""}`, "7"},
	} {
		c, p := build(t, tc.yml, false)
		want := `{"networkId":null,"payload":{"exec":{"data":null,"code":"x"}},"signers":[],"meta":` + tc.meta + `,"nonce":"` + tc.nonce + `"}`
		if c.Cmd != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, c.Cmd, want)
		}
		if p.NetworkID != nil || len(c.Sigs) != 0 {
			t.Errorf("%s: %+v", tc.name, p)
		}
	}
}

// YAML scalars resolve as Data.Yaml resolves them.
func TestRequestYAMLData(t *testing.T) {
	// The anchor lives inside data: a request refuses keys of its own
	// that P5 does not read, a holder of anchors included.
	yml := `code: x
data:
  base: &b {inherited: 1, over: 1}
  <<: *b
  over: 2
  num: 1
  dec: 1.50
  exp: 1e3
  plus: +7
  zeros: 007
  hex: 0x1F
  oct: 0o17
  yes1: yes
  yes2: Y
  on: ON
  no1: n
  off: Off
  false1: FALSE
  notbool: tRUE
  nul: ~
  empty:
  quoted: "1"
  single: 'true'
  tagged: !!str 12
  literal: |-
    12
  folded: >-
    12
  text: 1.
  int: {int: 3}
  list: [1, "a", null]
  dup: 1
  dup: 2
`
	_, p := build(t, yml, false)
	got, _ := value.AppendJSON(nil, p.Exec.Data)
	want, _ := value.AppendJSON(nil, mustValue(t, `{"base":{"inherited":1,"over":1},"inherited":1,"over":2,"num":1,"dec":1.5,"exp":1000,"plus":7,"zeros":7,"hex":31,"oct":15,
		"yes1":true,"yes2":true,"on":true,"no1":false,"off":false,"false1":false,"notbool":"tRUE","nul":null,"empty":null,
		"quoted":"1","single":"true","tagged":"12","literal":12,"folded":"12","text":"1.","int":{"int":3},"list":[1,"a",null],"dup":2}`))
	if string(got) != string(want) {
		t.Errorf("data:\n got %s\nwant %s", got, want)
	}
}

func TestRequestFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "code.pact"), []byte("(+ 1 2)\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "data.json"), []byte(`{"b": 1, "a": {"int": 2}}`), 0o644)
	os.WriteFile(filepath.Join(sub, "bad.json"), []byte(`{"b": }`), 0o644)
	os.WriteFile(filepath.Join(sub, "latin1.pact"), []byte("\xe9"), 0o644)
	abs := filepath.Join(sub, "code.pact")
	for _, tc := range []struct{ yml, code, data, err string }{
		{"codeFile: code.pact\ndataFile: data.json\nnonce: x\n", "(+ 1 2)\n", `{"a":{"int":2},"b":1}`, ""},
		{"codeFile: " + abs + "\nnonce: x\n", "(+ 1 2)\n", "null", ""},
		{"codeFile: missing.pact\n", "", "", "codeFile: open "},
		{"codeFile: latin1.pact\n", "", "", "codeFile: latin1.pact is not UTF-8"},
		{"code: x\ndataFile: bad.json\n", "", "", "dataFile: bad.json: "},
	} {
		path := filepath.Join(sub, "req.yaml")
		os.WriteFile(path, []byte(tc.yml), 0o644)
		c, err := BuildRequestFile(path, false, testNow)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.yml, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.yml, err)
			continue
		}
		p, _ := DecodePayload([]byte(c.Cmd))
		data, _ := value.AppendJSON(nil, p.Exec.Data)
		wantData, _ := value.AppendJSON(nil, mustValue(t, tc.data))
		if p.Exec.Code != tc.code || string(data) != string(wantData) {
			t.Errorf("%q: code %q data %s", tc.yml, p.Exec.Code, data)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	kp := "keyPairs:\n  - secret: " + sec0 + "\n"
	for _, tc := range []struct {
		yml      string
		unsigned bool
		want     string
	}{
		{"code: [x\n", false, "invalid YAML: "},
		{"- code: x\n", false, "expected a mapping of request fields, got an array"},
		{"", false, "expected a mapping of request fields, got null"},
		{"code: x\n---\ncode: y\n", false, "invalid YAML: more than one document"},
		{"code: 12\n", false, "line 1: code: expected a string, got the number 12"},
		{"type: execute\ncode: x\n", false, `type: expected "exec" or "cont", got "execute"`},
		{"nonce: x\n", false, "code: missing (an exec request needs code or codeFile)"},
		{"code: x\ncodeFile: y.pact\n", false, "code, codeFile: give one of them, not both"},
		{"code: x\ndata: 1\ndataFile: y.json\n", false, "data, dataFile: give at most one of them"},
		{"type: cont\nstep: 1\nrollback: true\n", false, "pactTxHash: missing (required for type cont)"},
		{"type: cont\npactTxHash: TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY\nrollback: true\n", false, "step: missing (required for type cont)"},
		{"type: cont\npactTxHash: TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY\nstep: 0\n", false, "rollback: missing (required for type cont)"},
		{"type: cont\npactTxHash: abc\n", false, `line 2: pactTxHash: invalid hash "abc": 2 bytes, want 32`},
		{"type: cont\nstep: one\n", false, `line 2: step: expected a number, got the string "one"`},
		{"rollback: 'yes'\n", false, `line 1: rollback: expected a boolean, got the string "yes"`},
		{"code: x\nsigners:\n  - public: " + pub0 + "\n", false, "signers: only allowed with -u (an unsigned request); use keyPairs to sign"},
		{"code: x\n" + kp, true, "keyPairs: not allowed in an unsigned request (-u); use signers"},
		{"code: x\n", true, "signers: missing (required for an unsigned request, -u)"},
		{"code: x\nsigners:\n  - {}\n", true, "line 3: signers[0].public: missing"},
		{"code: x\nkeyPairs:\n  - public: " + pub0 + "\n", false, "line 3: keyPairs[0].secret: missing"},
		{"code: x\nkeyPairs:\n  - secret: zz\n", false, "line 3: keyPairs[0].secret: not hex: invalid character 'z'"},
		{"code: x\nkeyPairs:\n  - secret: abcd\n", false, `keyPairs[0]: Invalid ED25519 Private Key: "abcd" (2 bytes, want 32)`},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    public: " + pub1 + "\n", false,
			"keyPairs[0]: public key " + pub1 + " does not match the secret, whose public key is " + pub0},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    address: " + pub1 + "\n", false,
			"keyPairs[0]: address " + pub1 + " does not match the public key " + pub0},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    scheme: ETH\n", false, `line 4: keyPairs[0].scheme: invalid scheme "ETH": want "ED25519" or "WebAuthn"`},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    scheme: WebAuthn\n", false, "keyPairs[0]: a WebAuthn key pair needs public (its COSE key in hex) and no address"},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    caps: ['(coin.GAS)']\n", false, `line 4: keyPairs[0].caps[0]: expected an object, got the string "(coin.GAS)"`},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    caps: [{name: GAS, args: []}]\n", false, `keyPairs[0].caps[0].name: "GAS" is not a qualified name`},
		{"code: x\npublicMeta: {chainId: 0}\n", false, `line 2: publicMeta.chainId: expected a string, got the number 0 (write chainId: "0")`},
		{"code: x\npublicMeta: {gasLimit: lots}\n", false, `line 2: publicMeta.gasLimit: expected an integer, got the string "lots"`},
		{"code: x\npublicMeta: {gasPrice: [1]}\n", false, `line 2: publicMeta.gasPrice: expected a decimal, got an array`},
		{"code: x\npublicMeta: 5\n", false, `line 2: publicMeta: expected an object, got the number 5`},
		{"code: x\nverifiers: [{name: v, proof: 1}]\n", false, `line 2: verifiers[0].clist: missing`},
		{"code: x\ndata: *nope\n", false, "invalid YAML: "},
		{"a: &a [*a]\ncode: x\n", false, "unknown alias *a"},
		// Unknown keys are refused at every level P5's decoders define,
		// with the valid keys of that level.
		{"code: x\nbogus: 1\n", false, "line 2: bogus: unknown key; the valid keys are type, code, codeFile, data, dataFile, keyPairs, signers, verifiers, nonce, networkId, publicMeta, pactTxHash, step, rollback, proof"},
		{"code: x\nbogus: null\n", false, "bogus: unknown key"},
		{"code: x\nkeypairs: []\n", false, "keypairs: unknown key"},
		{"code: x\npublicMeta: {chainID: '0'}\n", false, "line 2: publicMeta.chainID: unknown key; the valid keys of publicMeta are chainId, sender, gasLimit, gasPrice, ttl, creationTime"},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    pub: " + pub0 + "\n", false, "line 4: keyPairs[0].pub: unknown key; the valid keys of keyPairs[0] are public, secret, address, scheme, caps"},
		{"code: x\nsigners:\n  - public: " + pub0 + "\n    secret: " + sec0 + "\n", true, "line 4: signers[0].secret: unknown key; the valid keys of signers[0] are public, address, scheme, caps"},
		{"code: x\nkeyPairs:\n  - secret: " + sec0 + "\n    caps: [{name: coin.GAS, args: [], argz: [1]}]\n", false, "line 4: keyPairs[0].caps[0].argz: unknown key; the valid keys of keyPairs[0].caps[0] are name, args"},
		{"code: x\nsigners:\n  - public: " + pub0 + "\n    caps: [{name: coin.GAS, args: [], x: 1}]\n", true, "signers[0].caps[0].x: unknown key"},
		{"code: x\nverifiers: [{name: v, proof: 1, clist: [], extra: 2}]\n", false, "line 2: verifiers[0].extra: unknown key; the valid keys of verifiers[0] are name, proof, clist"},
		{"code: x\nverifiers: [{name: v, proof: 1, clist: [{name: a.B, args: [], y: 0}]}]\n", false, "verifiers[0].clist[0].y: unknown key"},
	} {
		r, err := ParseRequest([]byte(tc.yml))
		if err == nil {
			_, err = r.Build(tc.unsigned, BuildOptions{Now: testNow})
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q (unsigned %v):\n got %v\nwant %s", tc.yml, tc.unsigned, err, tc.want)
		}
	}
}

func TestRequestBillionLaughs(t *testing.T) {
	yml := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		yml += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	if _, err := ParseRequest([]byte(yml)); err == nil || !strings.Contains(err.Error(), "expands to more than") {
		t.Errorf("got %v", err)
	}
}

func TestRequestWebAuthnKeyPair(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	key := hex.EncodeToString(COSEKeyEd25519(pub).Bytes())
	yml := "code: x\nkeyPairs:\n  - scheme: WebAuthn\n    public: " + key + "\n    secret: " + hex.EncodeToString(priv.Seed()) + "\n"
	c, p := build(t, yml, false)
	if p.Signers[0].Scheme != SchemeWebAuthn || p.Signers[0].PubKey != key {
		t.Errorf("signer %+v", p.Signers[0])
	}
	if _, ok := c.Sigs[0].WebAuthn(); !ok {
		t.Errorf("sig %s", c.Sigs[0].Sig)
	}
	if _, err := VerifyCommand(c); err != nil {
		t.Error(err)
	}
}

func TestHaskellShow(t *testing.T) {
	for in, want := range map[string]string{
		"just-sign-cont":     `"just-sign-cont"`,
		`a"b\c`:              `"a\"b\\c"`,
		"\n\t\r\a\b\f\v":     `"\n\t\r\a\b\f\v"`,
		"\x00\x01\x1f\x7f":   `"\NUL\SOH\US\DEL"`,
		"é1é":                `"\233\&1\233"`,
		"\x0eH\x0eI":         `"\SO\&H\SOI"`,
		"2020-01-29 1 UTC ✓": `"2020-01-29 1 UTC \10003"`,
	} {
		if got := hsShow(in); got != want {
			t.Errorf("hsShow(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDefaultNonce(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2020, 1, 29, 16, 46, 22, 916695123, time.UTC), "2020-01-29 16:46:22.916695 UTC"},
		{time.Date(2020, 1, 29, 16, 46, 22, 500000000, time.FixedZone("x", 3600)), "2020-01-29 15:46:22.5 UTC"},
		{time.Date(2020, 1, 29, 16, 46, 22, 0, time.UTC), "2020-01-29 16:46:22 UTC"},
	} {
		if got := DefaultNonce(tc.t); got != tc.want {
			t.Errorf("DefaultNonce(%v) = %s, want %s", tc.t, got, tc.want)
		}
	}
}
