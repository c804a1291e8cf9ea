package api

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/value"
)

// Test keys. key0 is P5's pact-tests/sign-scripts/key.yaml; key1 and key2
// are P4's tests/add-sig/key1.yaml and key2.yaml (kadena-io/pact-5 @
// bfc5310c, kadena-io/pact @ ebad60e2).
const (
	pub0 = "7d0c9ba189927df85c8c54f8b5c8acd76c1d27e923abbf25a957afdf25550804"
	sec0 = "2e8c91521479537221576a7c3c80c46d0fa3fc663804117f0c7011366dec35de"
	pub1 = "87a4f2f179662829da6816b901ec1402b4baa30ce9d96048345aff9b346de6b7"
	sec1 = "0a61e065af30ce14d36e683b5394fdbf4573347a72fa44e6fcb6b42e20c64db1"
	pub2 = "1ba4d22bdcf499a8e27667b56e45222260a93806066ca5f82e79ef2f38cf8c0b"
	sec2 = "31f2554f16ca907073739a2441fcca4d2a54c6f773f61628c262f0f24ff776cb"
)

func mustKey(t testing.TB, secret string) *KeyPair {
	t.Helper()
	k, err := KeyPairFromHex(secret)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustValue(t testing.TB, js string) value.Value {
	t.Helper()
	v, err := value.DecodeJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

func TestCommandJSONRoundTrip(t *testing.T) {
	for _, js := range []string{
		`{"hash":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g","sigs":[],"cmd":""}`,
		`{"hash":"i1S2rUgEyfBl393oWEwts3DzuyCvraemXA9A1Bno6sg","sigs":[{"sig":"ab"},{"sig":"{\"x\":1}"}],"cmd":"{\"a\":\"\\u0001é\"}"}`,
	} {
		c, err := DecodeCommand([]byte(js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if got := string(c.JSON()); got != js {
			t.Errorf("round trip:\n got %s\nwant %s", got, js)
		}
	}
	// Other key orders, white space and padded hashes are read; output is
	// canonical.
	c, err := DecodeCommand([]byte(` { "cmd" : "x", "extra": [1, {}], "sigs": [ {"sig": "00"} ], "hash": "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g=" } `))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(c.JSON()), `{"hash":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g","sigs":[{"sig":"00"}],"cmd":"x"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	b, err := DecodeSubmitBatch([]byte(`{"cmds":[` + string(c.JSON()) + `,` + string(c.JSON()) + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b.AppendJSON(nil)), `{"cmds":[`+string(c.JSON())+`,`+string(c.JSON())+`]}`; got != want {
		t.Errorf("batch: got %s, want %s", got, want)
	}
}

func TestDecodeCommandErrors(t *testing.T) {
	const h = `"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"`
	for _, tc := range []struct{ in, want string }{
		{``, "invalid JSON at offset 0: unexpected end of input"},
		{`[]`, "expected an object, got an array"},
		{`{"hash":` + h + `,"sigs":[]}`, "cmd: missing"},
		{`{"hash":` + h + `,"sigs":[],"cmd":1}`, "cmd: expected a string, got the number 1"},
		{`{"hash":` + h + `,"cmd":""}`, "sigs: missing"},
		{`{"hash":` + h + `,"sigs":{},"cmd":""}`, "sigs: expected an array, got an object"},
		{`{"hash":` + h + `,"sigs":[{"sag":"x"}],"cmd":""}`, "sigs[0].sig: missing"},
		{`{"hash":` + h + `,"sigs":[{"sig":null}],"cmd":""}`, "sigs[0].sig: expected a string, got null"},
		{`{"sigs":[],"cmd":""}`, "hash: missing"},
		{`{"hash":"abc","sigs":[],"cmd":""}`, `hash: invalid hash "abc": 2 bytes, want 32`},
		{`{"hash":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH+qtFzfEv46g","sigs":[],"cmd":""}`, "hash: invalid base64url hash"},
		{`{"hash":` + h + `,"sigs":[],"cmd":"","cmd":"x"}`, "cmd: the key appears more than once"},
		{`{"hash":` + h + `,"sigs":[],"cmd":""} x`, "unexpected data after the JSON value"},
		{`{"hash":` + h + `,"sigs":[],"cmd":"` + "\x01" + `"}`, "control character"},
		{`{"hash":` + h + `,"sigs":[],"cmd":"` + "\xff" + `"}`, "invalid UTF-8"},
		{`{"hash":` + h + `,"sigs":[],"cmd":01}`, "expected ',' or '}'"},
		{strings.Repeat("[", 600), "nested more than 512 deep"},
	} {
		_, err := DecodeCommand([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeCommand(%.60q): %v, want %q", tc.in, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"cmds":[]}`, "cmds: no commands"},
		{`{}`, "cmds: missing"},
		{`{"cmds":[{}]}`, "cmds[0].cmd: missing"},
	} {
		_, err := DecodeSubmitBatch([]byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeSubmitBatch(%s): %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestPayloadEncoding(t *testing.T) {
	meta := Meta{Public: &PublicMeta{CreationTime: 1648585041, TTL: 28800, GasLimit: 5000, ChainID: "0",
		GasPrice: value.NewDecimal(value.NewInt(1), 8), Sender: "jose"}}
	for _, tc := range []struct {
		name string
		p    Payload
		want string
	}{
		{"minimal exec", Payload{Exec: &ExecMsg{Code: "(+ 1 2)"}, Meta: Meta{Public: &PublicMeta{}}, Nonce: "n"},
			`{"networkId":null,"payload":{"exec":{"data":null,"code":"(+ 1 2)"}},"signers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":"n"}`},
		{"exec with data in legacy key order", Payload{NetworkID: ptr("testnet04"),
			Exec: &ExecMsg{Code: "(read-msg \"a\")", Data: mustValue(t, `{"name":"Stuart","language":"Pact","n":1,"i":{"int":2}}`)},
			Meta: meta, Nonce: "2022-03-29 20:17:21.296857 UTC"},
			`{"networkId":"testnet04","payload":{"exec":{"data":{"n":1,"name":"Stuart","language":"Pact","i":{"int":2}},"code":"(read-msg \"a\")"}},"signers":[],"meta":{"creationTime":1648585041,"ttl":28800,"gasLimit":5000,"chainId":"0","gasPrice":1.0e-8,"sender":"jose"},"nonce":"2022-03-29 20:17:21.296857 UTC"}`},
		{"signers", Payload{Exec: &ExecMsg{Code: "1"}, Meta: meta, Nonce: "",
			Signers: []Signer{
				{PubKey: pub1},
				{PubKey: pub2, Clist: []SigCapability{{Name: "coin.GAS"}, {Name: "coin.TRANSFER", Args: []value.Value{value.String("a"), value.String("b"), mustValue(t, "1.5")}}}},
				{Addr: ptr("addr"), Scheme: SchemeED25519, PubKey: "k"},
				{Scheme: SchemeWebAuthn, PubKey: "WEBAUTHN-a5"},
			}},
			`{"networkId":null,"payload":{"exec":{"data":null,"code":"1"}},"signers":[{"pubKey":"` + pub1 + `"},{"pubKey":"` + pub2 + `","clist":[{"name":"coin.GAS","args":[]},{"name":"coin.TRANSFER","args":["a","b",1.5]}]},{"addr":"addr","scheme":"ED25519","pubKey":"k"},{"scheme":"WebAuthn","pubKey":"WEBAUTHN-a5"}],"meta":{"creationTime":1648585041,"ttl":28800,"gasLimit":5000,"chainId":"0","gasPrice":1.0e-8,"sender":"jose"},"nonce":""}`},
		{"cont with verifiers", Payload{
			Cont:      &ContMsg{PactID: "TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY", Step: 1, Rollback: false, Data: mustValue(t, `{"a":{"int":1}}`)},
			Verifiers: []Verifier{{Name: "hyperlane_v3_message", Proof: value.String("p")}, {Name: "v", Proof: value.UnitValue, Clist: []SigCapability{{Name: "ns.m.C", Args: []value.Value{value.NewInt(3)}}}}},
			Meta:      Meta{Public: &PublicMeta{TTL: 1800, GasLimit: ^uint64(0), GasPrice: value.NewDecimal(value.NewInt(125), 2)}}, Nonce: `"q"`},
			`{"networkId":null,"payload":{"cont":{"proof":null,"data":{"a":{"int":1}},"pactId":"TNgO7o8nSZILVCfJPcg5IjHADy-XKvQ7o5RfAieJvwY","rollback":false,"step":1}},"signers":[],"verifiers":[{"name":"hyperlane_v3_message","proof":"p","clist":[]},{"name":"v","proof":null,"clist":[{"name":"ns.m.C","args":[{"int":3}]}]}],"meta":{"creationTime":0,"ttl":1800,"gasLimit":18446744073709551615,"chainId":"","gasPrice":1.25,"sender":""},"nonce":"\"q\""}`},
		{"cont with proof, private meta", Payload{
			Cont: &ContMsg{PactID: "p", Step: 2, Rollback: true, Data: value.UnitValue, Proof: ptr("eyJ")},
			Meta: Meta{Private: &PrivateMeta{Address: &Address{From: "Alice", To: []string{"Bob", "Carol"}}}}, Nonce: "x"},
			`{"networkId":null,"payload":{"cont":{"proof":"eyJ","data":null,"pactId":"p","rollback":true,"step":2}},"signers":[],"meta":{"address":{"to":["Bob","Carol"],"from":"Alice"}},"nonce":"x"}`},
		{"private meta without address", Payload{Exec: &ExecMsg{Code: ""}, Meta: Meta{Private: &PrivateMeta{}}, Nonce: "x"},
			`{"networkId":null,"payload":{"exec":{"data":null,"code":""}},"signers":[],"meta":{"address":null},"nonce":"x"}`},
	} {
		got, err := tc.p.JSON()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
			continue
		}
		// What we write, we read back to the same bytes.
		p, err := DecodePayload(got)
		if err != nil {
			t.Errorf("%s: decoding our own output: %v", tc.name, err)
			continue
		}
		again, err := p.JSON()
		if err != nil || string(again) != tc.want {
			t.Errorf("%s: round trip:\n got %s (%v)\nwant %s", tc.name, again, err, tc.want)
		}
	}
}

func TestDecodePayloadInputForms(t *testing.T) {
	const sig = `"signers":[],`
	for _, tc := range []struct{ name, in, want string }{
		{"optional keys absent, data absent, P4 cap order",
			`{"payload":{"exec":{"code":"x"}},"signers":[{"pubKey":"k","clist":[{"args":[1,{"int":2}],"name":"coin.GAS"}]}],"meta":{"sender":"s","chainId":"1","gasLimit":1,"gasPrice":0.01,"ttl":1,"creationTime":2},"nonce":"n"}`,
			`{"networkId":null,"payload":{"exec":{"data":null,"code":"x"}},"signers":[{"pubKey":"k","clist":[{"name":"coin.GAS","args":[1,{"int":2}]}]}],"meta":{"creationTime":2,"ttl":1,"gasLimit":1,"chainId":"1","gasPrice":1.0e-2,"sender":"s"},"nonce":"n"}`},
		{"nulls are absent",
			`{"networkId":null,"verifiers":null,"payload":{"exec":{"code":"x","data":null}},"signers":[{"pubKey":"k","addr":null,"scheme":null,"clist":null}],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":""}`,
			`{"networkId":null,"payload":{"exec":{"data":null,"code":"x"}},"signers":[{"pubKey":"k"}],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":""}`},
		{"integers as strings, {int}, rounded numbers; gasPrice as a string",
			`{"payload":{"exec":{"code":""}},` + sig + `"meta":{"creationTime":"1700000000","ttl":{"int":600},"gasLimit":2.5,"chainId":"","gasPrice":"0.00000001","sender":""},"nonce":""}`,
			`{"networkId":null,"payload":{"exec":{"data":null,"code":""}},"signers":[],"meta":{"creationTime":1700000000,"ttl":600,"gasLimit":2,"chainId":"","gasPrice":1.0e-8,"sender":""},"nonce":""}`},
		{"gasLimit saturates; ttl 3.5 rounds to 4",
			`{"payload":{"exec":{"code":""}},` + sig + `"meta":{"creationTime":-5,"ttl":3.5,"gasLimit":-7,"chainId":"","gasPrice":12,"sender":""},"nonce":""}`,
			`{"networkId":null,"payload":{"exec":{"data":null,"code":""}},"signers":[],"meta":{"creationTime":-5,"ttl":4,"gasLimit":0,"chainId":"","gasPrice":12,"sender":""},"nonce":""}`},
		{"cont step as 1.0e0, empty verifiers omitted",
			`{"payload":{"cont":{"pactId":"p","step":1.0e0,"rollback":true,"data":{"k":"v"}}},` + sig + `"verifiers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":""}`,
			`{"networkId":null,"payload":{"cont":{"proof":null,"data":{"k":"v"},"pactId":"p","rollback":true,"step":1}},"signers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":""}`},
		{"private meta, to is a set",
			`{"payload":{"exec":{"code":""}},` + sig + `"meta":{"address":{"from":"A","to":["C","B","C"]}},"nonce":""}`,
			`{"networkId":null,"payload":{"exec":{"data":null,"code":""}},"signers":[],"meta":{"address":{"to":["B","C"],"from":"A"}},"nonce":""}`},
	} {
		p, err := DecodePayload([]byte(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got, err := p.JSON()
		if err != nil || string(got) != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.name, got, err, tc.want)
		}
	}
}

func TestDecodePayloadErrors(t *testing.T) {
	const meta = `"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""}`
	exec := func(rest string) string { return `{"payload":{"exec":{"code":"x"}},"nonce":"",` + rest + `}` }
	for _, tc := range []struct{ in, want string }{
		{`{"nonce":"","signers":[],` + meta + `}`, "payload: missing"},
		{`{"payload":{},"nonce":"","signers":[],` + meta + `}`, `payload: expected an object with an "exec" or a "cont" key`},
		{`{"payload":{"exec":{}},"nonce":"","signers":[],` + meta + `}`, "payload.exec.code: missing"},
		{`{"payload":{"exec":{"code":"x","data":[1e99999]}},"nonce":"","signers":[],` + meta + `}`, "payload.exec.data: "},
		{`{"payload":{"cont":{"pactId":"p","step":1,"rollback":false}},"nonce":"","signers":[],` + meta + `}`, "payload.cont.data: missing"},
		{`{"payload":{"cont":{"pactId":"p","step":1.5,"rollback":false,"data":null}},"nonce":"","signers":[],` + meta + `}`, "payload.cont.step: expected an integer, got 1.5"},
		{`{"payload":{"cont":{"pactId":"p","step":1e30,"rollback":false,"data":null}},"nonce":"","signers":[],` + meta + `}`, "payload.cont.step: integer 1e30 out of range"},
		{`{"payload":{"cont":{"pactId":"p","step":1,"rollback":"no","data":null}},"nonce":"","signers":[],` + meta + `}`, `payload.cont.rollback: expected a boolean, got the string "no"`},
		{exec(meta), "signers: missing"},
		{exec(`"signers":[{}],` + meta), "signers[0].pubKey: missing"},
		{exec(`"signers":[{"pubKey":"k","scheme":"ETH"}],` + meta), `signers[0].scheme: invalid scheme "ETH": want "ED25519" or "WebAuthn"`},
		{exec(`"signers":[{"pubKey":"k","clist":[{"name":"GAS","args":[]}]}],` + meta), `signers[0].clist[0].name: "GAS" is not a qualified name`},
		{exec(`"signers":[{"pubKey":"k","clist":[{"name":"coin.GAS"}]}],` + meta), "signers[0].clist[0].args: missing"},
		{exec(`"signers":[{"pubKey":"k","pubKey":"j"}],` + meta), "signers[0].pubKey: the key appears more than once"},
		{exec(`"signers":[],"verifiers":[{"name":"v","proof":1}],` + meta), "verifiers[0].clist: missing"},
		{exec(`"signers":[]`), "meta: missing"},
		{exec(`"signers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"gasPrice":0,"sender":""}`), "meta.chainId: missing"},
		{exec(`"signers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":0,"gasPrice":0,"sender":""}`), "meta.chainId: expected a string, got the number 0"},
		{exec(`"signers":[],"meta":{"creationTime":0,"ttl":"1.5","gasLimit":0,"chainId":"","gasPrice":0,"sender":""}`), `meta.ttl: expected an integer, got the string "1.5"`},
		{exec(`"signers":[],"meta":{"creationTime":0,"ttl":1e400,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""}`), "meta.ttl: integer 1e400 out of range"},
		{exec(`"signers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":"x","sender":""}`), `meta.gasPrice: expected a decimal, got the string "x"`},
		{exec(`"signers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":[],"chainId":"","gasPrice":0,"sender":""}`), `meta.gasLimit: expected an integer`},
		{exec(`"signers":[],"meta":{"address":{"from":"A"}}`), "meta.address.to: missing"},
		{`{"payload":{"exec":{"code":"x"}},"signers":[],` + meta + `}`, "nonce: missing"},
		{exec(`"signers":[],"networkId":5,` + meta), "networkId: expected a string, got the number 5"},
	} {
		_, err := DecodePayload([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodePayload(%s):\n got %v\nwant %q", tc.in, err, tc.want)
		}
	}
}

func TestHashes(t *testing.T) {
	// Check values of spec §2.4: (hash "") and (hash "hello").
	if got := RequestKey(""); got != "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g" {
		t.Errorf(`RequestKey("") = %s`, got)
	}
	if got := RequestKey("hello"); got != "Mk3PAn3UowqTLEQfNlol6GsXPe-kuOWJSCU0cbgbcs8" {
		t.Errorf(`RequestKey("hello") = %s`, got)
	}
	h, err := ParseHash("Mk3PAn3UowqTLEQfNlol6GsXPe-kuOWJSCU0cbgbcs8")
	if err != nil || h != HashBytes([]byte("hello")) {
		t.Errorf("ParseHash: %v %v", h, err)
	}
	if _, err := ParseHash("Mk3PAn3UowqTLEQfNlol6GsXPe-kuOWJSCU0cbgbcs9"); err == nil {
		t.Error("ParseHash accepted non-canonical trailing bits")
	}
}

// A gas limit written as a fraction or out of range decodes as P5 takes it (rounded half to
// even, saturated), and says it was not exact; whole numbers in any of the input forms are.
func TestGasLimitInexact(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    uint64
		inexact bool
	}{
		{`1000`, 1000, false}, {`1000.0`, 1000, false}, {`1e3`, 1000, false}, {`"1000"`, 1000, false}, {`{"int":1000}`, 1000, false},
		{`1000.5`, 1000, true}, {`1001.5`, 1002, true}, {`0.4`, 0, true},
		{`-1`, 0, true}, {`18446744073709551615`, ^uint64(0), false}, {`18446744073709551616`, ^uint64(0), true}, {`1e30`, ^uint64(0), true},
	} {
		p, err := DecodePayload([]byte(`{"payload":{"exec":{"code":"x"}},"signers":[],"meta":{"sender":"s","chainId":"1","gasLimit":` +
			tc.in + `,"gasPrice":0.01,"ttl":1,"creationTime":2},"nonce":"n"}`))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if m := p.Meta.Public; m.GasLimit != tc.want || m.GasLimitInexact != tc.inexact {
			t.Errorf("gasLimit %s: %d inexact %v, want %d inexact %v", tc.in, m.GasLimit, m.GasLimitInexact, tc.want, tc.inexact)
		}
	}
}
