package api

import (
	"strings"
	"testing"
)

// P5's pact-tests/sign-scripts fixtures (kadena-io/pact-5 @ bfc5310c): the
// cmd of add-sigs.yaml (written by P4, so its cap has "args" first), its
// hash, and the signature key.yaml makes of that hash (addSigsExpected.yaml,
// bare-sig.yaml).
const (
	signScriptsCmd  = `{"networkId":null,"payload":{"exec":{"data":null,"code":"(test.run-escrow \"Alice\" \"Bob\")"}},"signers":[{"pubKey":"7d0c9ba189927df85c8c54f8b5c8acd76c1d27e923abbf25a957afdf25550804","clist":[{"args":["Alice"],"name":"accounts.USER_GUARD"}]}],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":"just-sign-exec"}`
	signScriptsHash = "i1S2rUgEyfBl393oWEwts3DzuyCvraemXA9A1Bno6sg"
	signScriptsSig  = "c72ac57ac1f03cd264b4e0db1ef681894e42b02b5ddcb115ee2f776ba8048c2afd15a4c1e46b20248bb015ba395689a90ac93b5193173f3af6e495b4ce09ce03"
	// addSigsExpected.yaml: the command add-sig prints for add-sigs.yaml.
	signScriptsBatch = `{"cmds":[{"hash":"i1S2rUgEyfBl393oWEwts3DzuyCvraemXA9A1Bno6sg","sigs":[{"sig":"c72ac57ac1f03cd264b4e0db1ef681894e42b02b5ddcb115ee2f776ba8048c2afd15a4c1e46b20248bb015ba395689a90ac93b5193173f3af6e495b4ce09ce03"}],"cmd":"{\"networkId\":null,\"payload\":{\"exec\":{\"data\":null,\"code\":\"(test.run-escrow \\\"Alice\\\" \\\"Bob\\\")\"}},\"signers\":[{\"pubKey\":\"7d0c9ba189927df85c8c54f8b5c8acd76c1d27e923abbf25a957afdf25550804\",\"clist\":[{\"args\":[\"Alice\"],\"name\":\"accounts.USER_GUARD\"}]}],\"meta\":{\"creationTime\":0,\"ttl\":0,\"gasLimit\":0,\"chainId\":\"\",\"gasPrice\":0,\"sender\":\"\"},\"nonce\":\"just-sign-exec\"}"}]}`
)

// P4's tests/add-sig/unsigned.yaml (kadena-io/pact @ ebad60e2): a command
// with two signers, made by `pact -u` from test.yaml.
const (
	p4UnsignedCmd  = `{"networkId":"testnet04","payload":{"exec":{"data":null,"code":"(+ 1 1)"}},"signers":[{"pubKey":"87a4f2f179662829da6816b901ec1402b4baa30ce9d96048345aff9b346de6b7"},{"pubKey":"1ba4d22bdcf499a8e27667b56e45222260a93806066ca5f82e79ef2f38cf8c0b","clist":[{"args":[],"name":"coin.GAS"}]}],"meta":{"creationTime":1648585041,"ttl":28800,"gasLimit":5000,"chainId":"0","gasPrice":1.0e-8,"sender":"jose"},"nonce":"2022-03-29 20:17:21.296857 UTC"}`
	p4UnsignedHash = "tTg1a9B8jWRM3KrAq2ITSZtL5yq1wQj30SpugHiLqiE"
)

func TestGoldenSignScripts(t *testing.T) {
	if got := RequestKey(signScriptsCmd); got != signScriptsHash {
		t.Errorf("request key %s, want %s", got, signScriptsHash)
	}
	if got := RequestKey(p4UnsignedCmd); got != p4UnsignedHash {
		t.Errorf("request key %s, want %s", got, p4UnsignedHash)
	}
	k := mustKey(t, sec0)
	if k.PublicHex() != pub0 {
		t.Fatalf("public key %s, want %s", k.PublicHex(), pub0)
	}
	h, _ := ParseHash(signScriptsHash)
	if got := k.SignHash(h).Sig; got != signScriptsSig {
		t.Errorf("signature %s, want %s", got, signScriptsSig)
	}
	b, err := DecodeSubmitBatch([]byte(signScriptsBatch))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b.AppendJSON(nil)); got != signScriptsBatch {
		t.Errorf("batch round trip:\n got %s\nwant %s", got, signScriptsBatch)
	}
	pc, err := VerifyCommand(b.Cmds[0])
	if err != nil {
		t.Fatal(err)
	}
	if pc.RequestKey.String() != signScriptsHash || pc.HashAlg != BLAKE2b256 || pc.Code == nil ||
		pc.Payload.Signers[0].Clist[0].Name != "accounts.USER_GUARD" {
		t.Errorf("parsed command: %+v", pc)
	}
}

// signed builds the command of p, signed by keys (in order).
func signed(t *testing.T, p *Payload, keys ...*KeyPair) *Command {
	t.Helper()
	js, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	c := &Command{Cmd: string(js), Hash: HashBytes(js)}
	for _, k := range keys {
		c.Sigs = append(c.Sigs, k.SignHash(c.Hash))
	}
	return c
}

func testPayload(pubs ...string) *Payload {
	p := &Payload{Exec: &ExecMsg{Code: "(+ 1 2)"}, Meta: Meta{Public: &PublicMeta{TTL: 600, ChainID: "0"}}, Nonce: "n"}
	for _, pk := range pubs {
		p.Signers = append(p.Signers, Signer{PubKey: pk})
	}
	return p
}

func TestVerifyCommand(t *testing.T) {
	k0, k1 := mustKey(t, sec0), mustKey(t, sec1)

	c := signed(t, testPayload(pub0, pub1), k0, k1)
	if _, err := VerifyCommand(c); err != nil {
		t.Fatalf("two signers: %v", err)
	}
	// Upper-case hex keys and signatures are read too.
	up := signed(t, testPayload(strings.ToUpper(pub0)), k0)
	up.Sigs[0].Sig = strings.ToUpper(up.Sigs[0].Sig)
	if _, err := VerifyCommand(up); err != nil {
		t.Errorf("upper-case hex: %v", err)
	}

	// BLAKE2s-256 hashes are accepted (DECISIONS.md) and are the request key.
	js, _ := testPayload(pub0).JSON()
	s := &Command{Cmd: string(js), Hash: HashBytesBLAKE2s(js)}
	s.Sigs = []UserSig{k0.SignHash(s.Hash)}
	pc, err := VerifyCommand(s)
	if err != nil || pc.HashAlg != BLAKE2s256 || pc.RequestKey != HashBytesBLAKE2s(js) {
		t.Errorf("BLAKE2s command: %v %+v", err, pc)
	}

	wrongSig := signed(t, testPayload(pub0), k1)
	tampered := signed(t, testPayload(pub0), k0)
	tampered.Cmd = strings.Replace(tampered.Cmd, "(+ 1 2)", "(+ 1 3)", 1)
	missing := signed(t, testPayload(pub0), k0, k1)
	addr := testPayload(pub0)
	addr.Signers[0].Addr = ptr(pub1)
	webauthnScheme := testPayload(pub0)
	webauthnScheme.Signers[0].Scheme = SchemeWebAuthn
	badPub := testPayload("abcd")
	badHex := testPayload("xyz")
	shortSig := signed(t, testPayload(pub0), k0)
	shortSig.Sigs[0].Sig = "00ff"
	webauthnSig := signed(t, testPayload(pub0), k0)
	webauthnSig.Sigs[0].Sig = `{"clientDataJSON":"","authenticatorData":"","signature":""}`
	badCode := testPayload(pub0)
	badCode.Exec.Code = "(+ 1"
	noMeta := &Command{Cmd: `{"payload":{"exec":{"code":"1"}},"signers":[],"nonce":""}`}
	noMeta.Hash = HashBytes([]byte(noMeta.Cmd))

	for _, tc := range []struct {
		name string
		c    *Command
		want string
	}{
		{"wrong signature", wrongSig, `Invalid command: Invalid sig(s) found: {"` + pub0 + `":"invalid ed25519 signature"}`},
		{"tampered cmd", tampered, "Invalid command: Hash Mismatch, received " + tampered.Hash.String() +
			" but our hashing resulted in " + RequestKey(tampered.Cmd)},
		{"missing signer", missing, "Invalid command: Number of sig(s) does not match number of signer(s)"},
		{"missing sig", signed(t, testPayload(pub0, pub1), k0), "Invalid command: Number of sig(s) does not match number of signer(s)"},
		{"address", signed(t, addr, k0), `Invalid command: Invalid sig(s) found: {"` + pub0 + `":"address does not match pubkey"}`},
		{"scheme", signed(t, webauthnScheme, k0), `Invalid command: Invalid sig(s) found: {"` + pub0 + `":"scheme of Just WebAuthn does not match signature type ED25519"}`},
		{"webauthn sig for an ed25519 signer", webauthnSig, `Invalid command: Invalid sig(s) found: {"` + pub0 + `":"scheme of Nothing does not match signature type WebAuthn"}`},
		{"short pubkey", signed(t, badPub, k0), `Invalid command: Invalid sig(s) found: {"abcd":"failed to parse ed25519 pubkey: Invalid ED25519 Public Key: \"abcd\""}`},
		{"pubkey not hex", signed(t, badHex, k0), `Invalid command: Invalid sig(s) found: {"xyz":"failed to parse ed25519 pubkey: invalid character 'x'"}`},
		{"short sig", shortSig, `Invalid command: Invalid sig(s) found: {"` + pub0 + `":"failed to parse ed25519 signature: Invalid ED25519 Signature: \"00ff\""}`},
		{"code", signed(t, badCode, k0), "Invalid command: 1:5: "}, // then the parser's message
		{"payload", noMeta, "Invalid command: meta: missing"},
	} {
		_, err := VerifyCommand(tc.c)
		if err == nil || err.Error() != tc.want && !(strings.HasSuffix(tc.want, ": ") && strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, err, tc.want)
		}
		if _, ok := err.(*CommandError); !ok {
			t.Errorf("%s: error of type %T", tc.name, err)
		}
	}

	// Every failing signature is reported, in signer order.
	two := signed(t, testPayload(pub0, pub1), k1, k0)
	want := `Invalid command: Invalid sig(s) found: {"` + pub0 + `":"invalid ed25519 signature","` + pub1 + `":"invalid ed25519 signature"}`
	if _, err := VerifyCommand(two); err == nil || err.Error() != want {
		t.Errorf("two bad sigs: %v", err)
	}
}

func TestParseCommandSkipsChecks(t *testing.T) {
	c := signed(t, testPayload(pub0))
	c.Hash = Hash{1}
	pc, err := ParseCommand(c)
	if err != nil || pc.RequestKey != c.Hash || pc.Payload.Exec.Code != "(+ 1 2)" {
		t.Errorf("ParseCommand: %v %+v", err, pc)
	}
}
