package api

import (
	"strings"
	"testing"
)

// P4's tests/add-sig/unsigned.yaml and unsigned2.yaml (kadena-io/pact @
// ebad60e2), as `pact -u` printed them (the blank last line included).
const (
	p4UnsignedYAML = "hash: " + p4UnsignedHash + "\nsigs:\n  " + pub2 + ": null\n  " + pub1 + ": null\ncmd: '" + p4UnsignedCmd + "'\n\n"
	p4ColdYAML     = "hash: " + p4UnsignedHash + "\nsigs:\n  " + pub2 + ": null\n  " + pub1 + ": null\ncmd: null\n\n"
)

// P5's pact-tests/sign-scripts add-sigs.yaml and bare-sig.yaml.
const (
	addSigsYAML = "hash: " + signScriptsHash + "\nsigs:\n  " + pub0 + ": null\ncmd: '" + signScriptsCmd + "'\n"
	bareSigYAML = "hash: " + signScriptsHash + "\nsigs:\n  " + pub0 + ": " + signScriptsSig + "\n\n"
)

func mustSigData(t *testing.T, yml string) *SigData {
	t.Helper()
	sd, err := ParseSigData([]byte(yml))
	if err != nil {
		t.Fatalf("ParseSigData: %v\n%s", err, yml)
	}
	return sd
}

func TestSigDataYAML(t *testing.T) {
	sd := mustSigData(t, p4UnsignedYAML)
	if got, want := string(sd.YAML()), strings.TrimSuffix(p4UnsignedYAML, "\n"); got != want {
		t.Errorf("YAML:\n got %s\nwant %s", got, want)
	}
	cold := mustSigData(t, p4ColdYAML)
	if got, want := string(cold.YAML()), "hash: "+p4UnsignedHash+"\nsigs:\n  "+pub2+": null\n  "+pub1+": null\n"; got != want {
		t.Errorf("cold YAML:\n got %s\nwant %s", got, want)
	}
	// Keys in any order are read into legacy order.
	swapped := mustSigData(t, "sigs: {"+pub1+": null, "+pub2+": ~}\nhash: "+p4UnsignedHash+"\n")
	if swapped.Sigs[0].PubKey != pub2 || swapped.Sigs[1].PubKey != pub1 {
		t.Errorf("order %+v", swapped.Sigs)
	}
	// Strings that plain style cannot hold are quoted as libyaml quotes
	// them, and read back.
	for _, cmd := range []string{`{"a":"it's"}`, "{\"é\":\"\\n\"}", "true", "", "- x", "a\u0085b"} {
		sd := &SigData{Hash: HashBytes(nil), Sigs: []SigEntry{{PubKey: pub0, Sig: ptr("12e3")}}, Cmd: &cmd}
		back := mustSigData(t, string(sd.YAML()))
		if back.Cmd == nil || *back.Cmd != cmd || *back.Sigs[0].Sig != "12e3" {
			t.Errorf("cmd %q: read back %+v from\n%s", cmd, back, sd.YAML())
		}
	}
	empty := &SigData{Hash: HashBytes(nil)}
	if got := string(empty.YAML()); got != "hash: DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g\nsigs: {}\n" {
		t.Errorf("no signers: %q", got)
	}
}

func TestSigDataParseErrors(t *testing.T) {
	h := "hash: " + p4UnsignedHash + "\n"
	for _, tc := range []struct{ yml, want string }{
		{"sigs: {}\n", "line 1: hash: missing"},
		{h, "line 1: sigs: missing"},
		{h + "sigs: []\n", "line 2: sigs: expected an object, got an array"},
		{h + "sigs: {abc: null}\n", "line 2: sigs.abc: Public key must have 64 hex characters"},
		{h + "sigs: {" + strings.Repeat("x", 64) + ": null}\n", "line 2: sigs." + strings.Repeat("x", 64) + ": Public key must have 64 hex characters"},
		{h + "sigs: {" + pub0 + ": 5}\n", "line 2: sigs." + pub0 + ": expected a signature string or null, got the number 5"},
		{h + "sigs: {}\ncmd: [1]\n", "line 3: cmd: expected a string, got an array"},
		{"hash: 12\nsigs: {}\n", "line 1: hash: expected a string, got the number 12"},
		{"[]", "line 1: expected SigData (a mapping with hash, sigs and cmd), got an array"},
	} {
		_, err := ParseSigData([]byte(tc.yml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yml, err, tc.want)
		}
	}
}

// P5's testSigsRoundtrip: add-sig and combine-sigs on the sign-scripts.
func TestSigDataGoldenSignScripts(t *testing.T) {
	sd := mustSigData(t, addSigsYAML)
	if !sd.AddSig(mustKey(t, sec0)) {
		t.Fatal("key.yaml is not a signer")
	}
	partial, c, err := FinishSigData(sd)
	if err != nil || partial != nil {
		t.Fatalf("FinishSigData: %v %v", partial, err)
	}
	if got := string((&SubmitBatch{Cmds: []*Command{c}}).AppendJSON(nil)); got != signScriptsBatch {
		t.Errorf("add-sig:\n got %s\nwant %s", got, signScriptsBatch)
	}
	combined, err := CombineSigData([]*SigData{mustSigData(t, addSigsYAML), mustSigData(t, bareSigYAML)})
	if err != nil {
		t.Fatal(err)
	}
	if _, c, err = FinishSigData(combined); err != nil || string((&SubmitBatch{Cmds: []*Command{c}}).AppendJSON(nil)) != signScriptsBatch {
		t.Errorf("combine-sigs: %v", err)
	}
	// A complete SigData without cmd stays SigData (cold wallet).
	bare := mustSigData(t, bareSigYAML)
	if sd, c, err := FinishSigData(bare); err != nil || c != nil || sd != bare {
		t.Errorf("bare sig: %v %v %v", sd, c, err)
	}
	// pact sign on the hash.
	es, err := SignBase64URL(" "+signScriptsHash+"\n", []*KeyPair{mustKey(t, sec0)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(SigMapYAML(es)), pub0+": "+signScriptsSig+"\n"; got != want {
		t.Errorf("sign: %q, want %q", got, want)
	}
}

// pact -u, then add-sig with each key separately, then combine-sigs: the
// command verifies.
func TestSigDataWorkflow(t *testing.T) {
	r, err := ParseRequest([]byte("code: (+ 1 1)\nsigners:\n  - public: " + pub1 + "\n  - public: " + pub2 +
		"\n    caps: [{name: coin.GAS, args: []}]\npublicMeta: {chainId: '0'}\nnetworkId: development\n"))
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := r.Build(true, BuildOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	sd, err := CommandToSigData(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	text := string(sd.YAML())
	var parts []*SigData
	for _, sec := range []string{sec1, sec2} {
		part := mustSigData(t, text)
		part.AddSig(mustKey(t, sec))
		out, c, err := FinishSigData(part)
		if err != nil || c != nil || out.Complete() {
			t.Fatalf("partial: %v %v", c, err)
		}
		parts = append(parts, mustSigData(t, string(out.YAML())))
	}
	combined, err := CombineSigData(parts)
	if err != nil {
		t.Fatal(err)
	}
	_, c, err := FinishSigData(combined)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cmd != unsigned.Cmd || c.Hash != unsigned.Hash || len(c.Sigs) != 2 {
		t.Fatalf("command %+v", c)
	}
	if _, err := VerifyCommand(c); err != nil {
		t.Fatal(err)
	}
	// Sigs follow the signers, not the SigData order.
	if c.Sigs[0] != mustKey(t, sec1).SignHash(c.Hash) {
		t.Error("sigs not in signer order")
	}
	// A key that is not a signer changes nothing.
	if mustSigData(t, text).AddSig(mustKey(t, sec0)) {
		t.Error("AddSig with a stranger's key")
	}
}

func TestSigDataVerificationErrors(t *testing.T) {
	k0 := mustKey(t, sec0)
	withSig := func(sd *SigData, pub, sig string) *SigData {
		e, _ := sd.lookup(pub)
		e.Sig = &sig
		return sd
	}
	h, _ := ParseHash(p4UnsignedHash)
	goodSig1 := mustKey(t, sec1).SignHash(h).Sig
	badSig := k0.SignHash(h).Sig

	tampered := mustSigData(t, strings.Replace(p4UnsignedYAML, "(+ 1 1)", "(+ 1 2)", 1))
	oneSigner := mustSigData(t, strings.Replace(p4UnsignedYAML, "  "+pub2+": null\n", "", 1))
	stranger := mustSigData(t, strings.Replace(p4UnsignedYAML, pub2+": null", pub0+": null", 1))
	completeTampered := mustSigData(t, strings.Replace(p4UnsignedYAML, "(+ 1 1)", "(+ 1 2)", 1))
	withSig(completeTampered, pub1, goodSig1)
	withSig(completeTampered, pub2, goodSig1)
	coldBad := mustSigData(t, p4ColdYAML)
	withSig(coldBad, pub1, badSig)

	for _, tc := range []struct {
		name string
		sd   *SigData
		want string
	}{
		{"bad partial sig", withSig(mustSigData(t, p4UnsignedYAML), pub1, badSig), `Invalid sig(s) found: {"` + pub1 + `":"invalid ed25519 signature"}`},
		{"tampered cmd", withSig(tampered, pub1, goodSig1), "Hash Mismatch, received " + p4UnsignedHash + " but our hashing resulted in " + RequestKey(*tampered.Cmd)},
		{"signer count", oneSigner, "Number of signers in the payload does not match number of signers in the sigData"},
		{"signer not in sigs", stranger, "Signer in payload does not show up in signatures: " + pub2},
		{"complete, tampered", completeTampered, "Invalid command: Hash Mismatch, received " + p4UnsignedHash + " but our hashing resulted in " + RequestKey(*completeTampered.Cmd)},
		{"cold wallet, bad sig", coldBad, `Invalid sig(s) found: {"` + pub1 + `":"invalid ed25519 signature"}`},
	} {
		_, _, err := FinishSigData(tc.sd)
		if err == nil || err.Error() != "Command verification failed!\n"+tc.want || !IsVerificationError(err) {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, err, tc.want)
		}
	}

	cold := mustSigData(t, p4ColdYAML)
	other := mustSigData(t, addSigsYAML)
	fewer := mustSigData(t, strings.Replace(p4UnsignedYAML, "  "+pub2+": null\n", "", 1))
	otherKeys := mustSigData(t, strings.Replace(p4UnsignedYAML, pub2+": null", pub0+": null", 1))
	otherCmd := mustSigData(t, strings.Replace(p4UnsignedYAML, "(+ 1 1)", "(+ 1 2)", 1))
	for _, tc := range []struct {
		name string
		sds  []*SigData
		want string
	}{
		{"nothing", nil, "nothing to combine"},
		{"hash", []*SigData{mustSigData(t, p4UnsignedYAML), other}, "SigData 2 has hash " + signScriptsHash + ", SigData 1 has " + p4UnsignedHash + ": they are not the same command"},
		{"lengths", []*SigData{mustSigData(t, p4UnsignedYAML), fewer}, "Sig lists have different lengths: SigData 2 has 1, SigData 1 has 2"},
		{"keys", []*SigData{mustSigData(t, p4UnsignedYAML), otherKeys}, "Sig mismatch: SigData 2 has key " + pub0 + " where SigData 1 has " + pub2 + "; all must sign for the same keys"},
		{"cmd", []*SigData{mustSigData(t, p4UnsignedYAML), otherCmd}, "SigData 2 has a different cmd than an earlier one"},
		{"no cmd", []*SigData{cold, mustSigData(t, p4ColdYAML)}, "SigData files must contain exactly one unique hash and command: none has a cmd"},
	} {
		_, err := CombineSigData(tc.sds)
		if err == nil || err.Error() != tc.want {
			t.Errorf("combine %s:\n got %v\nwant %s", tc.name, err, tc.want)
		}
	}
	// A cold-wallet file combines with one that has the cmd.
	if sd, err := CombineSigData([]*SigData{mustSigData(t, p4ColdYAML), mustSigData(t, p4UnsignedYAML)}); err != nil || sd.Cmd == nil {
		t.Errorf("cold + full: %v", err)
	}
}

func TestSignBase64URLErrors(t *testing.T) {
	k := mustKey(t, sec0)
	if _, err := SignBase64URL("a+b", []*KeyPair{k}); err == nil || !strings.HasPrefix(err.Error(), "stdin was not valid base64url: ") {
		t.Errorf("got %v", err)
	}
	// Any bytes can be signed, padded or not; keys come out in legacy
	// order, once each.
	es, err := SignBase64URL("aGVsbG8=", []*KeyPair{mustKey(t, sec1), mustKey(t, sec2), mustKey(t, sec1)})
	if err != nil || len(es) != 2 || es[0].PubKey != pub2 || *es[1].Sig != strings.ToLower(*es[1].Sig) {
		t.Errorf("got %+v %v", es, err)
	}
}

func TestParseKeyFile(t *testing.T) {
	k, err := ParseKeyFile([]byte("public: " + pub0 + "\nsecret: " + sec0 + "\n"))
	if err != nil || k.PublicHex() != pub0 || k.SecretHex() != sec0 {
		t.Fatalf("%v %v", k, err)
	}
	if got := string(k.KeyFileYAML()); got != "public: "+pub0+"\nsecret: "+sec0+"\n" {
		t.Errorf("KeyFileYAML %q", got)
	}
	for _, tc := range []struct{ yml, want string }{
		{"secret: " + sec0, "line 1: public: missing"},
		{"public: " + pub0, "line 1: secret: missing"},
		{"public: 1\nsecret: " + sec0, "line 1: public: expected a string, got the number 1"},
		{"public: " + pub1 + "\nsecret: " + sec0, "line 2: public key " + pub1 + " does not match the secret, whose public key is " + pub0},
		{"- x", "line 1: expected an object, got an array"},
	} {
		_, err := ParseKeyFile([]byte(tc.yml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yml, err, tc.want)
		}
	}
	g, err := GenerateKeyPair(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseKeyFile(g.KeyFileYAML())
	if err != nil || back.PublicHex() != g.PublicHex() {
		t.Errorf("generated key file: %v", err)
	}
}
