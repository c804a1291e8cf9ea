package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
)

// The fixtures in testdata/request use two keys made with pact -g.
const (
	alicePub = "0e59c120e0e49841df656d3fce804c876cbdd76bcdd0fa8aaea5c18192a5a66d"
	bobPub   = "b9f0e17ccfcb806ed9c350baef2413fbe3114bd2a599df1985a56d18915c4482"
	req      = "testdata/request/"
)

// verified decodes pact -a / add-sig output and verifies the command.
func verified(t *testing.T, out string, local bool) *api.ParsedCommand {
	t.Helper()
	if !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("output is not one line of JSON: %q", out)
	}
	var c *api.Command
	if local {
		var err error
		if c, err = api.DecodeCommand([]byte(out)); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	} else {
		b, err := api.DecodeSubmitBatch([]byte(out))
		if err != nil || len(b.Cmds) != 1 {
			t.Fatalf("%v: %s", err, out)
		}
		c = b.Cmds[0]
	}
	pc, err := api.VerifyCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func TestAPIReq(t *testing.T) {
	code, out, errOut := pact(t, "", "-a", req+"signed.yaml")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	pc := verified(t, out, false)
	p := pc.Payload
	if p.Exec.Code != "(coin.transfer (read-msg \"from\") (read-msg \"to\") (read-decimal \"amount\"))\n" ||
		len(p.Signers) != 2 || p.Signers[0].PubKey != alicePub || p.Signers[1].PubKey != bobPub ||
		len(p.Signers[0].Clist) != 2 || *p.NetworkID != "development" || p.Nonce != "signed-1" ||
		p.Meta.Public.GasLimit != 2500 || p.Meta.Public.CreationTime != 1700000000 {
		t.Errorf("payload %s", pc.Command.Cmd)
	}
	if !strings.Contains(pc.Command.Cmd, `"data":{"amount":1.25,"ks":{"pred":"keys-all","keys":["`+alicePub+`"]},"to":"bob","from":"alice"}`) {
		t.Errorf("data: %s", pc.Command.Cmd)
	}
	// Deterministic: the same YAML gives the same command; -l gives it bare.
	for _, args := range [][]string{{"--apireq", req + "signed.yaml"}, {"-l", "-a" + req + "signed.yaml"}, {"--local", "--apireq=" + req + "signed.yaml"}} {
		code, out2, _ := pact(t, "", args...)
		want := out
		if len(args) != 2 || args[0] != "--apireq" {
			want = strings.TrimSuffix(strings.TrimPrefix(out, `{"cmds":[`), "]}\n") + "\n"
		}
		if code != 0 || out2 != want {
			t.Errorf("pact %q: exit %d, stdout %q, want %q", args, code, out2, want)
		}
	}

	// Defaults: the nonce is the time, meta all zero, networkId null.
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Date(2020, 1, 29, 16, 46, 22, 916695000, time.UTC) }
	code, out, _ = pact(t, "", "-a", req+"defaults.yaml", "-l")
	want := `{"networkId":null,"payload":{"exec":{"data":null,"code":"(+ 1 2)"}},"signers":[],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":"2020-01-29 16:46:22.916695 UTC"}`
	if pc := verified(t, out, true); code != 0 || pc.Command.Cmd != want || pc.RequestKey.String() != api.RequestKey(want) {
		t.Errorf("defaults: %s", out)
	}
}

func TestAPIReqErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-a", req + "mismatch.yaml"}, []string{"pact: " + req + "mismatch.yaml: keyPairs[0]: public key " + alicePub +
			" does not match the secret, whose public key is " + bobPub + "\n", "Failure reading request yaml. Valid fields are:"}},
		{[]string{"-a", req + "unsigned.yaml"}, []string{"signers: only allowed with -u"}},
		{[]string{"-u", req + "signed.yaml"}, []string{"keyPairs: not allowed in an unsigned request (-u)"}},
		{[]string{"-a", req + "no-such.yaml"}, []string{"pact: open " + req + "no-such.yaml: no such file or directory\n"}},
		{[]string{"-a", req + "transfer.pact"}, []string{"expected a mapping of request fields, got the string"}},
		{[]string{"-a", req + "unknown-key.yaml", "-l"}, []string{"pact: " + req + "unknown-key.yaml: line 3: bogus: unknown key; the valid keys are type, code, codeFile,",
			"Failure reading request yaml. Valid fields are:"}},
		{[]string{"-u", req + "unknown-key.yaml"}, []string{"bogus: unknown key"}},
	} {
		code, out, errOut := pact(t, "", tc.args...)
		if code != 1 || out != "" {
			t.Errorf("pact %q: exit %d, stdout %q", tc.args, code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("pact %q: stderr %q lacks %q", tc.args, errOut, w)
			}
		}
	}
}

func TestUnsigned(t *testing.T) {
	code, out, errOut := pact(t, "", "-u", req+"unsigned.yaml")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// SigData as one line of JSON (DECISIONS.md): hash, sigs in legacy
	// key order, cmd.
	re := regexp.MustCompile(`^\{"hash":"([A-Za-z0-9_-]{43})","sigs":\{"` + bobPub + `":null,"` + alicePub + `":null\},"cmd":(".*")\}\n$`)
	m := re.FindStringSubmatch(out)
	if m == nil || !json.Valid([]byte(out)) {
		t.Fatalf("stdout:\n%s", out)
	}
	var cmd string
	if err := json.Unmarshal([]byte(m[2]), &cmd); err != nil {
		t.Fatal(err)
	}
	if api.RequestKey(cmd) != m[1] || !strings.Contains(cmd, `"nonce":"unsigned-1"`) {
		t.Errorf("hash %s, cmd %s", m[1], cmd)
	}
	code, out, _ = pact(t, "", "--unsigned", req+"cont.yaml")
	var sd struct{ Cmd string }
	if code != 0 || json.Unmarshal([]byte(out), &sd) != nil ||
		!strings.Contains(sd.Cmd, `"pactId":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g","rollback":false,"step":1}},`) ||
		!strings.HasSuffix(sd.Cmd, `"nonce":"\"cont-1\""}`) {
		t.Errorf("cont: exit %d\n%s", code, out)
	}
}

// -u, then add-sig with each key on its own, then combine-sigs: a command
// that verifies. And add-sig with both keys at once. -u prints JSON, which
// add-sig and combine-sigs read unchanged as YAML.
func TestOfflineSigning(t *testing.T) {
	dir := t.TempDir()
	_, unsigned, _ := pact(t, "", "-u", req+"unsigned.yaml")
	if !json.Valid([]byte(unsigned)) {
		t.Fatalf("-u output is not JSON:\n%s", unsigned)
	}
	var files []string
	for _, who := range []string{"alice", "bob"} {
		code, out, errOut := pact(t, unsigned, "add-sig", req+who+".key.yaml")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "hash: ") || !strings.HasSuffix(out, "'\n\n") {
			t.Fatalf("add-sig %s: exit %d, stderr %q, stdout\n%s", who, code, errOut, out)
		}
		if strings.Count(out, ": null\n") != 1 {
			t.Errorf("add-sig %s: want one signature still missing:\n%s", who, out)
		}
		f := filepath.Join(dir, who+".sig.yaml")
		os.WriteFile(f, []byte(out), 0o644)
		files = append(files, f)
	}
	code, out, errOut := pact(t, "", append([]string{"combine-sigs"}, files...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("combine-sigs: exit %d, stderr %q", code, errOut)
	}
	pc := verified(t, out, false)
	if len(pc.Command.Sigs) != 2 || pc.Payload.Nonce != "unsigned-1" {
		t.Errorf("combined %s", out)
	}
	code, local, _ := pact(t, "", "combine-sigs", "--local", files[1], files[0])
	if code != 0 || local != strings.TrimSuffix(strings.TrimPrefix(out, `{"cmds":[`), "]}\n")+"\n" {
		t.Errorf("combine-sigs -l: %q", local)
	}
	// combine-sigs takes -u's JSON as one of its files.
	uf := filepath.Join(dir, "unsigned.json")
	os.WriteFile(uf, []byte(unsigned), 0o644)
	code, withJSON, errOut := pact(t, "", "combine-sigs", uf, files[0], files[1])
	if code != 0 || errOut != "" || withJSON != out {
		t.Errorf("combine-sigs with the JSON SigData: exit %d, stderr %q, stdout %s", code, errOut, withJSON)
	}
	code, both, _ := pact(t, unsigned, "add-sig", req+"bob.key.yaml", req+"alice.key.yaml")
	if code != 0 || both != out {
		t.Errorf("add-sig with both keys: %s", both)
	}
	// A signature that does not verify.
	tampered := strings.Replace(unsigned, `coin.transfer`, `coin.tranfser`, 1)
	code, out, errOut = pact(t, tampered, "add-sig", req+"alice.key.yaml")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "Command verification failed!\nHash Mismatch, received ") {
		t.Errorf("tampered: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = pact(t, tampered, "add-sig", req+"alice.key.yaml", req+"bob.key.yaml")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "Command verification failed!\nInvalid command: Hash Mismatch, received ") {
		t.Errorf("tampered, complete: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// A key that is not a signer is reported and changes nothing.
	other := filepath.Join(dir, "other.key.yaml")
	os.WriteFile(other, []byte("public: 7d0c9ba189927df85c8c54f8b5c8acd76c1d27e923abbf25a957afdf25550804\n"+
		"secret: 2e8c91521479537221576a7c3c80c46d0fa3fc663804117f0c7011366dec35de\n"), 0o644)
	code, out, errOut = pact(t, unsigned, "add-sig", other)
	if code != 0 || !strings.HasPrefix(out, "hash: ") || strings.Count(out, ": null\n") != 2 ||
		!strings.Contains(errOut, "is not a signer of this command") {
		t.Errorf("stranger: exit %d, stderr %q, stdout\n%s", code, errOut, out)
	}
	// Signatures for different commands do not combine.
	_, contSD, _ := pact(t, "", "-u", req+"cont.yaml")
	os.WriteFile(filepath.Join(dir, "cont.yaml"), []byte(contSD), 0o644)
	code, _, errOut = pact(t, "", "combine-sigs", files[0], filepath.Join(dir, "cont.yaml"))
	if code != 1 || !strings.Contains(errOut, "they are not the same command") {
		t.Errorf("combine different commands: exit %d, stderr %q", code, errOut)
	}
}

// P5's testSigsRoundtrip (kadena-io/pact-5 @ bfc5310c,
// pact-tests/Pact/Core/Test/SignatureSchemeTests.hs) on its sign-scripts,
// whose contents are transcribed here: key.yaml, add-sigs.yaml,
// bare-sig.yaml, and the expected output of add-sig and combine-sigs.
func TestSignScriptsGolden(t *testing.T) {
	const (
		pub    = "7d0c9ba189927df85c8c54f8b5c8acd76c1d27e923abbf25a957afdf25550804"
		hash   = "i1S2rUgEyfBl393oWEwts3DzuyCvraemXA9A1Bno6sg"
		sig    = "c72ac57ac1f03cd264b4e0db1ef681894e42b02b5ddcb115ee2f776ba8048c2afd15a4c1e46b20248bb015ba395689a90ac93b5193173f3af6e495b4ce09ce03"
		cmd    = `{"networkId":null,"payload":{"exec":{"data":null,"code":"(test.run-escrow \"Alice\" \"Bob\")"}},"signers":[{"pubKey":"7d0c9ba189927df85c8c54f8b5c8acd76c1d27e923abbf25a957afdf25550804","clist":[{"args":["Alice"],"name":"accounts.USER_GUARD"}]}],"meta":{"creationTime":0,"ttl":0,"gasLimit":0,"chainId":"","gasPrice":0,"sender":""},"nonce":"just-sign-exec"}`
		output = `{"cmds":[{"hash":"i1S2rUgEyfBl393oWEwts3DzuyCvraemXA9A1Bno6sg","sigs":[{"sig":"c72ac57ac1f03cd264b4e0db1ef681894e42b02b5ddcb115ee2f776ba8048c2afd15a4c1e46b20248bb015ba395689a90ac93b5193173f3af6e495b4ce09ce03"}],"cmd":"{\"networkId\":null,\"payload\":{\"exec\":{\"data\":null,\"code\":\"(test.run-escrow \\\"Alice\\\" \\\"Bob\\\")\"}},\"signers\":[{\"pubKey\":\"7d0c9ba189927df85c8c54f8b5c8acd76c1d27e923abbf25a957afdf25550804\",\"clist\":[{\"args\":[\"Alice\"],\"name\":\"accounts.USER_GUARD\"}]}],\"meta\":{\"creationTime\":0,\"ttl\":0,\"gasLimit\":0,\"chainId\":\"\",\"gasPrice\":0,\"sender\":\"\"},\"nonce\":\"just-sign-exec\"}"}]}` + "\n"
	)
	dir := t.TempDir()
	write := func(name, content string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	key := write("key.yaml", "public: "+pub+"\nsecret: 2e8c91521479537221576a7c3c80c46d0fa3fc663804117f0c7011366dec35de\n")
	addSigs := "hash: " + hash + "\nsigs:\n  " + pub + ": null\ncmd: '" + cmd + "'\n"
	write("add-sigs.yaml", addSigs)
	write("bare-sig.yaml", "hash: "+hash+"\nsigs:\n  "+pub+": "+sig+"\n\n")

	code, out, errOut := pact(t, hash, "sign", key)
	if code != 0 || errOut != "" || out != pub+": "+sig+"\n\n" {
		t.Errorf("sign: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = pact(t, addSigs, "add-sig", key)
	if code != 0 || errOut != "" || out != output {
		t.Errorf("add-sig: exit %d, stderr %q\n got %s\nwant %s", code, errOut, out, output)
	}
	code, out, errOut = pact(t, "", "combine-sigs", filepath.Join(dir, "add-sigs.yaml"), filepath.Join(dir, "bare-sig.yaml"))
	if code != 0 || errOut != "" || out != output {
		t.Errorf("combine-sigs: exit %d, stderr %q\n got %s\nwant %s", code, errOut, out, output)
	}
	// The cold-wallet form: signed without the cmd, then printed back.
	code, out, _ = pact(t, "hash: "+hash+"\nsigs:\n  "+pub+": null\n", "add-sig", key)
	if code != 0 || out != "hash: "+hash+"\nsigs:\n  "+pub+": "+sig+"\n\n" {
		t.Errorf("cold wallet: exit %d, stdout %q", code, out)
	}
}

func TestGenKey(t *testing.T) {
	code, out, errOut := pact(t, "", "-g")
	if code != 0 || errOut != "" || !regexp.MustCompile(`^public: [0-9a-f]{64}\nsecret: [0-9a-f]{64}\n$`).MatchString(out) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	k, err := api.ParseKeyFile([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	_, out2, _ := pact(t, "", "--genkey")
	if out2 == out || !strings.HasPrefix(out, "public: "+k.PublicHex()+"\n") {
		t.Errorf("keys %q %q", out, out2)
	}
}

func TestToolErrors(t *testing.T) {
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"x+y", []string{"sign", req + "alice.key.yaml"}, "pact: sign: stdin was not valid base64url: "},
		{"AAAA", []string{"sign", req + "missing.yaml"}, "pact: Could not parse key file " + req + "missing.yaml: open "},
		{"AAAA", []string{"sign", req + "signed.yaml"}, "pact: Could not parse key file " + req + "signed.yaml: line 2: public: missing"},
		{"not: sigdata", []string{"add-sig", req + "alice.key.yaml"}, "pact: add-sig: standard input is not SigData: line 1: hash: missing"},
		{"", []string{"combine-sigs", req + "signed.yaml"}, "pact: Error loading SigData file " + req + "signed.yaml: line 2: hash: missing"},
	} {
		code, out, errOut := pact(t, tc.stdin, tc.args...)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("pact %q: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
