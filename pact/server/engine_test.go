package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/value"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// Keys made from fixed seeds, so request keys are stable.
var (
	alice = mustKey("246243bbb9e668a7f24666eaaca75ab0ad49df222de8379f03b2b4b76b03a757")
	bob   = mustKey("a6da22516ae1d42e30b856953b68f731a736d3bc32925966d8046ce0a31d5db8")
)

func mustKey(secret string) *api.KeyPair {
	k, err := api.KeyPairFromHex(secret)
	if err != nil {
		panic(err)
	}
	return k
}

// cmdSpec describes a test command.
type cmdSpec struct {
	code     string
	data     string // JSON; "" is null
	nonce    string
	signers  []*api.KeyPair
	caps     []api.SigCapability // of the first signer
	gasLimit uint64
	private  *api.Address
	cont     *api.ContMsg
}

func build(t testing.TB, s cmdSpec) *api.Command {
	t.Helper()
	p := &api.Payload{Nonce: s.nonce}
	if s.cont != nil {
		p.Cont = s.cont
	} else {
		var data value.Value = value.UnitValue
		if s.data != "" {
			v, err := value.DecodeJSON([]byte(s.data))
			if err != nil {
				t.Fatal(err)
			}
			data = v
		}
		p.Exec = &api.ExecMsg{Code: s.code, Data: data}
	}
	for i, k := range s.signers {
		sg := api.Signer{PubKey: k.PublicHex()}
		if i == 0 {
			sg.Clist = s.caps
		}
		p.Signers = append(p.Signers, sg)
	}
	if s.private != nil {
		p.Meta.Private = &api.PrivateMeta{Address: s.private}
	} else {
		p.Meta.Public = &api.PublicMeta{ChainID: "0", Sender: "alice", GasLimit: s.gasLimit, TTL: 600, CreationTime: 1700000000}
	}
	cmd, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	h := api.HashBytes(cmd)
	c := &api.Command{Hash: h, Cmd: string(cmd)}
	for _, k := range s.signers {
		c.Sigs = append(c.Sigs, k.SignHash(h))
	}
	return c
}

func open(t testing.TB, cfg Config) *Engine {
	t.Helper()
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// cmdResult is a decoded CommandResult.
type cmdResult struct {
	Gas    int64 `json:"gas"`
	Result struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Info    string `json:"info"`
		} `json:"error"`
	} `json:"result"`
	ReqKey       string            `json:"reqKey"`
	Logs         *string           `json:"logs"`
	Events       []json.RawMessage `json:"events"`
	Continuation json.RawMessage   `json:"continuation"`
	TxID         *int64            `json:"txId"`
}

func decode(t testing.TB, b []byte) cmdResult {
	t.Helper()
	var r cmdResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return r
}

// sendOne sends one command and returns its stored result.
func sendOne(t testing.TB, e *Engine, c *api.Command) cmdResult {
	t.Helper()
	keys, err := e.Send(context.Background(), []*api.Command{c})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Poll(context.Background(), keys, contractapi.PollOptions{})
	if err != nil || len(got) != 1 {
		t.Fatalf("poll: %v %v", got, err)
	}
	return decode(t, got[0].Result)
}

func local(t testing.TB, e *Engine, c *api.Command) cmdResult {
	t.Helper()
	r, err := e.Local(context.Background(), c, contractapi.DefaultLocalOptions)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, r.Result)
}

const testModule = `
(module m g
  (defcap g () true)
  (defschema row v:integer)
  (deftable tbl:{row})
  (defcap PAID (who:string amount:integer) @event true)
  (defun put:string (k:string v:integer) (insert tbl k {'v: v}))
  (defun get:integer (k:string) (at 'v (read tbl k)))
  (defun pay:string (who:string amount:integer) (emit-event (PAID who amount)) "paid")
  (defcap SIGNED (k:string) (enforce-guard (read-keyset 'ks)))
  (defun signed:string (k:string) (with-capability (SIGNED k) "ok"))
  (defpact two-steps:string (x:integer)
    (step (yield {'x: x}))
    (step (resume {'x := y} (format "got {}" [y])))))
(create-table tbl)`

func TestSendPollLocal(t *testing.T) {
	e := open(t, Config{})
	ctx := context.Background()

	// The exact bytes of a simple result: P5's key order, no events.
	c := build(t, cmdSpec{code: "(+ 1 2)", nonce: "n1"})
	keys, err := e.Send(ctx, []*api.Command{c})
	if err != nil || len(keys) != 1 || keys[0] != c.Hash {
		t.Fatalf("send: %v %v", keys, err)
	}
	got, _ := e.Poll(ctx, []api.Hash{c.Hash, c.Hash, api.HashBytes(nil)}, contractapi.PollOptions{})
	if len(got) != 1 {
		t.Fatalf("poll: unknown keys are omitted and repeats collapse: %d results", len(got))
	}
	rk := c.Hash.String()
	want := `{"gas":0,"result":{"status":"success","data":{"int":3}},"reqKey":"` + rk +
		`","logs":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g","metaData":null,"continuation":null,"txId":0}`
	if string(got[0].Result) != want {
		t.Errorf("result\n got %s\nwant %s", got[0].Result, want)
	}

	// Resubmission is P5's 400.
	_, err = e.Send(ctx, []*api.Command{c})
	if re, ok := contractapi.IsRequestError(err); !ok || re.Msg != "Request key: "+rk+" has already been submitted. "+
		"If you are resubmitting a valid transaction, try changing the nonce in the payload" {
		t.Errorf("duplicate: %v", err)
	}
	// So is a batch repeating a key, and nothing of it runs.
	c2 := build(t, cmdSpec{code: "(+ 2 2)", nonce: "n2"})
	if _, err := e.Send(ctx, []*api.Command{c2, c2}); err == nil {
		t.Error("a batch repeating a key was accepted")
	}
	if got, _ := e.Poll(ctx, []api.Hash{c2.Hash}, contractapi.PollOptions{}); len(got) != 0 {
		t.Error("a rejected batch left a result")
	}

	// A module, a table write, events, and a defpact across two commands.
	r := sendOne(t, e, build(t, cmdSpec{code: testModule, nonce: "mod", signers: []*api.KeyPair{alice}}))
	if r.Result.Status != "success" || r.TxID == nil || *r.TxID != 1 || r.Logs == nil {
		t.Fatalf("module: %+v %s", r, r.Result.Data)
	}
	r = sendOne(t, e, build(t, cmdSpec{code: `(m.put "a" 1) (m.pay "bob" 5)`, nonce: "put"}))
	if r.Result.Status != "success" || string(r.Result.Data) != `"paid"` || len(r.Events) != 1 {
		t.Fatalf("put: %+v", r)
	}
	if ev := string(r.Events[0]); !strings.HasPrefix(ev, `{"params":["bob",{"int":5}],"name":"PAID","module":{"namespace":null,"name":"m"},"moduleHash":"`) {
		t.Errorf("event %s", ev)
	}
	start := build(t, cmdSpec{code: `(m.two-steps 7)`, nonce: "pact"})
	r = sendOne(t, e, start)
	pactID := start.Hash.String()
	if !strings.HasPrefix(string(r.Continuation), `{"executed":null,"pactId":"`+pactID+`","contractId":"`+pactID+
		`","stepHasRollback":false,"step":0,"yield":{"data":{"x":{"int":7}},"provenance":null},"continuation":{"args":[{"int":7}],"def":"m.two-steps"},"stepCount":2}`) {
		t.Errorf("continuation %s", r.Continuation)
	}
	r = sendOne(t, e, build(t, cmdSpec{nonce: "cont", cont: &api.ContMsg{PactID: pactID, Step: 1, Data: value.UnitValue}}))
	if r.Result.Status != "success" || string(r.Result.Data) != `"got 7"` {
		t.Errorf("continuation step: %+v %s", r, r.Result.Data)
	}

	// local: the write is rolled back, nothing is stored, txId is null.
	lc := build(t, cmdSpec{code: `(m.put "b" 2)`, nonce: "local"})
	r = local(t, e, lc)
	if r.Result.Status != "success" || r.TxID != nil {
		t.Errorf("local: %+v", r)
	}
	if got, _ := e.Poll(ctx, []api.Hash{lc.Hash}, contractapi.PollOptions{}); len(got) != 0 {
		t.Error("local stored its result")
	}
	r = local(t, e, build(t, cmdSpec{code: `(m.get "b")`, nonce: "local2"}))
	if r.Result.Error == nil || r.Result.Error.Type != "TxFailure" {
		t.Errorf("local write survived: %+v", r)
	}
	if r := local(t, e, build(t, cmdSpec{code: `(m.get "a")`, nonce: "local3"})); string(r.Result.Data) != `{"int":1}` {
		t.Errorf("sent write lost: %s", r.Result.Data)
	}
}

func TestErrors(t *testing.T) {
	e := open(t, Config{})
	for _, tc := range []struct {
		code, typ, msg, info string
	}{
		{`(enforce false "no way")`, "TxFailure", "no way", "<toplevel>:0"},
		{"1\n(+ 1 \"a\")", "EvalError", "Type error", "<toplevel>:1"},
		{`(undefined-thing 1)`, "EvalError", "", "<toplevel>:0"},
		{`(+ 1`, "SyntaxError", "Expected", "<toplevel>:0"},
		{``, "EvalError", "empty input", "<toplevel>:0"},
	} {
		r := sendOne(t, e, build(t, cmdSpec{code: tc.code, nonce: tc.code}))
		er := r.Result.Error
		if r.Result.Status != "failure" || er == nil || er.Type != tc.typ || !strings.Contains(er.Message, tc.msg) ||
			er.Info != tc.info || r.Logs != nil || r.TxID != nil {
			t.Errorf("%q: %+v %+v", tc.code, r, er)
		}
	}
}

func TestVerification(t *testing.T) {
	e := open(t, Config{})
	good := build(t, cmdSpec{code: "(+ 1 2)", nonce: "v", signers: []*api.KeyPair{alice, bob}})

	wrongSig := *good
	wrongSig.Sigs = []api.UserSig{good.Sigs[1], good.Sigs[0]}
	tampered := *good
	tampered.Cmd = strings.Replace(good.Cmd, "(+ 1 2)", "(+ 1 3)", 1)
	missing := *good
	missing.Sigs = good.Sigs[:1]
	badCode := build(t, cmdSpec{code: "(+ 1 2", nonce: "v", signers: []*api.KeyPair{alice}})
	badCode.Sigs = []api.UserSig{bob.SignHash(badCode.Hash)}
	for _, tc := range []struct {
		name string
		cmd  *api.Command
		msg  string
	}{
		// The node's texts (chainweb's), which pact -s shares.
		{"wrong signature", &wrongSig, "Invalid transaction sigs: The signature at position 0 is invalid: invalid ed25519 signature."},
		{"tampered cmd", &tampered, "Invalid transaction hash"},
		{"missing signer", &missing, "Invalid transaction sigs: The number of signers and signatures do not match. Number of signers: 2. Number of signatures: 1."},
		{"bad code, bad signature", badCode, "Invalid transaction sigs: The signature at position 0 is invalid: invalid ed25519 signature."},
	} {
		_, err := e.Send(context.Background(), []*api.Command{good, tc.cmd})
		re, ok := contractapi.IsRequestError(err)
		want := "One or more transactions were invalid: Transaction " + quote(tc.cmd.Hash.String()) + " at index 1 failed with: " + tc.msg
		if !ok || re.Msg != want {
			t.Errorf("%s: %v\nwant %s", tc.name, err, want)
		}
	}
	if got, _ := e.Poll(context.Background(), []api.Hash{good.Hash}, contractapi.PollOptions{}); len(got) != 0 {
		t.Error("a batch with a bad command ran its good one")
	}
	// local can skip signature checks.
	r, err := e.Local(context.Background(), &wrongSig, contractapi.LocalOptions{})
	if err != nil || decode(t, r.Result).Result.Status != "success" {
		t.Errorf("local without signature verification: %v", err)
	}
	if _, err := e.Local(context.Background(), &wrongSig, contractapi.DefaultLocalOptions); err == nil {
		t.Error("local verified no signature")
	}
	// Signed capabilities reach the interpreter.
	sendOne(t, e, build(t, cmdSpec{code: testModule, nonce: "mod"}))
	ks := `{"ks":{"keys":["` + alice.PublicHex() + `"],"pred":"keys-all"}}`
	for _, tc := range []struct {
		cap    api.SigCapability
		status string
	}{
		{api.SigCapability{Name: "m.SIGNED", Args: []value.Value{value.String("x")}}, "success"},
		{api.SigCapability{Name: "m.SIGNED", Args: []value.Value{value.String("y")}}, "failure"},
		{api.SigCapability{Name: "m.PAID", Args: []value.Value{value.String("x"), value.NewInt(1)}}, "failure"},
	} {
		capped := build(t, cmdSpec{code: `(m.signed "x")`, data: ks, nonce: "cap" + tc.cap.Name + tc.cap.Args[0].String(),
			signers: []*api.KeyPair{alice}, caps: []api.SigCapability{tc.cap}})
		if r := sendOne(t, e, capped); r.Result.Status != tc.status {
			t.Errorf("signed with %s %v: %+v", tc.cap.Name, tc.cap.Args, r.Result.Error)
		}
	}
}

func TestListen(t *testing.T) {
	e := open(t, Config{})
	c := build(t, cmdSpec{code: "(+ 1 2)", nonce: "listen"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond) // wallclock: a listen that must time out
	defer cancel()
	if _, err := e.Listen(ctx, c.Hash); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("listen on nothing: %v", err)
	}
	done := make(chan []byte)
	go func() {
		res, err := e.Listen(context.Background(), c.Hash)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	time.Sleep(10 * time.Millisecond)
	if _, err := e.Send(context.Background(), []*api.Command{c}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if decode(t, res).ReqKey != c.Hash.String() {
			t.Errorf("listen: %s", res)
		}
	case <-hangguard.After():
		t.Fatal(hangguard.Failure("listen's wake-up"))
	}
	if len(e.waiters) != 0 {
		t.Errorf("waiters left: %d", len(e.waiters))
	}
}

func TestGasRate(t *testing.T) {
	e := open(t, Config{GasRate: 2})
	r := sendOne(t, e, build(t, cmdSpec{code: "(+ 1 (* 2 3))", nonce: "g1", gasLimit: 1000}))
	if r.Result.Status != "success" || r.Gas <= 0 || r.Gas%2 != 0 {
		t.Errorf("gas: %+v", r)
	}
	r = sendOne(t, e, build(t, cmdSpec{code: "(+ 1 2)", nonce: "g2", gasLimit: 0}))
	if r.Result.Error == nil || r.Result.Error.Message != `Gas limit "0"exceeded: 2` {
		t.Errorf("limit 0: %+v", r.Result.Error)
	}
	r = sendOne(t, e, build(t, cmdSpec{code: "(map (+ 1) [1 2 3 4 5 6 7 8 9 10])", nonce: "g3", gasLimit: 3}))
	if r.Result.Error == nil || !strings.HasPrefix(r.Result.Error.Message, `Gas limit "3"exceeded`) {
		t.Errorf("limit 3: %+v", r.Result.Error)
	}
	// Free gas reports 0 whatever the command asks.
	free := open(t, Config{})
	if r := sendOne(t, free, build(t, cmdSpec{code: "(+ 1 2)", nonce: "g4", gasLimit: 10})); r.Gas != 0 {
		t.Errorf("free gas: %d", r.Gas)
	}
}

func TestVerify(t *testing.T) {
	e := open(t, Config{})
	verify := func(body string) []finding {
		t.Helper()
		out, err := e.Verify(context.Background(), []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Output []finding `json:"output"`
		}
		if err := json.Unmarshal(out, &resp); err != nil || resp.Output == nil {
			t.Fatalf("%v: %s", err, out)
		}
		return resp.Output
	}
	clean := `(module clean 'clean-ks
  (defun add:integer (a:integer b:integer) (+ a b))
  (defun twice:integer (a:integer) (add a a)))`
	if got := verify(`{"modules":[` + quote(clean) + `]}`); len(got) != 0 {
		t.Errorf("clean module: %+v", got)
	}
	bad := "(module bad 'bad-ks\n" +
		"  (defconst LIMIT:integer \"ten\")\n" +
		"  (defun add:integer (a:integer b:integer) (+ a b))\n" +
		"  (defun name:string () 42)\n" +
		"  (defun call-add:integer (x) (add \"one\" 2))\n" +
		"  (defun short:integer () (add 1)))"
	got := verify(`{"modules":[` + quote(clean) + `,` + quote(bad) + `]}`)
	want := []struct{ typ, text, info string }{
		{"Error", "Type mismatch in the result of bad.name: declared string, returns an integer literal", "modules[1]:4:25"},
		{"Warning", "Missing type annotation for argument x of bad.call-add", "modules[1]:5:28"},
		{"Error", "Type mismatch in call of bad.add: argument a has type integer, got a string literal", "modules[1]:5:36"},
		{"Error", "Invalid number of arguments in call of bad.add: expected 2, got 1", "modules[1]:6:27"},
		{"Error", "integer", "modules[1]:2:3"},
	}
	if len(got) != len(want) {
		t.Fatalf("findings: %+v", got)
	}
	for i, w := range want {
		if got[i].Type != w.typ || !strings.Contains(got[i].Text, w.text) || got[i].Info != w.info || got[i].Span.EndLine == 0 {
			t.Errorf("finding %d: %+v, want %+v", i, got[i], w)
		}
	}
	// What only type inference sees: the module loads, and fails when f runs.
	typed := "(module typed 'typed-ks\n" +
		"  (defun f:integer (x:integer) (+ x \"a\"))\n" +
		"  (defun g:integer () (read-msg \"n\")))"
	got = verify(`{"modules":[` + quote(typed) + `]}`)
	if len(got) != 2 || got[0].Type != "Error" || got[0].Info != "modules[0]:2:32" ||
		!strings.Contains(got[0].Text, "+ cannot take arguments of type (integer, string)") ||
		got[1].Type != "Warning" || !strings.Contains(got[1].Text, "the result is of unknown type where integer is required") {
		t.Errorf("typed: %+v", got)
	}
	syntaxErr := verify(`{"modules":"(module x"}`)
	if len(syntaxErr) != 1 || syntaxErr[0].Type != "Error" || syntaxErr[0].Info != "modules[0]:1:10" {
		t.Errorf("syntax error: %+v", syntaxErr)
	}
	// Nothing verify loads stays behind.
	if r := local(t, e, build(t, cmdSpec{code: "(clean.add 1 2)", nonce: "after-verify"})); r.Result.Status != "failure" {
		t.Error("verify installed a module")
	}
	for _, body := range []string{`{}`, `{"modules":[]}`, `{"modules":[1]}`, `[`} {
		if _, err := e.Verify(context.Background(), []byte(body)); err == nil {
			t.Errorf("verify %s: no error", body)
		} else if _, ok := contractapi.IsRequestError(err); !ok {
			t.Errorf("verify %s: %v is not a request error", body, err)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestSignatureOfResultsIsStable(t *testing.T) {
	// Two engines given the same commands produce the same bytes: results
	// depend on nothing but the commands.
	var outs [2][]byte
	for i := range outs {
		e := open(t, Config{})
		sendOne(t, e, build(t, cmdSpec{code: testModule, nonce: "mod"}))
		c := build(t, cmdSpec{code: `(m.put "a" 1) (m.pay "bob" 5) (m.two-steps 1)`, nonce: "x"})
		if _, err := e.Send(context.Background(), []*api.Command{c}); err != nil {
			t.Fatal(err)
		}
		got, _ := e.Poll(context.Background(), []api.Hash{c.Hash}, contractapi.PollOptions{})
		outs[i] = got[0].Result
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("results differ:\n%s\n%s", outs[0], outs[1])
	}
}

// With a persistDir, the Pact state and the results survive a restart.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e, err := Open(Config{PersistDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mod := build(t, cmdSpec{code: testModule, nonce: "mod"})
	put := build(t, cmdSpec{code: `(m.put "a" 11)`, nonce: "put"})
	start := build(t, cmdSpec{code: `(m.two-steps 3)`, nonce: "pact"})
	if _, err := e.Send(ctx, []*api.Command{mod, put, start}); err != nil {
		t.Fatal(err)
	}
	before, _ := e.Poll(ctx, []api.Hash{mod.Hash, put.Hash, start.Hash}, contractapi.PollOptions{})
	if len(before) != 3 {
		t.Fatalf("poll: %d results", len(before))
	}
	pub := e.EntityPublicKey()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e = open(t, Config{PersistDir: dir})
	after, _ := e.Poll(ctx, []api.Hash{mod.Hash, put.Hash, start.Hash}, contractapi.PollOptions{})
	if len(after) != 3 {
		t.Fatalf("results lost: %d", len(after))
	}
	for i := range after {
		if !bytes.Equal(after[i].Result, before[i].Result) {
			t.Errorf("result changed:\n%s\n%s", before[i].Result, after[i].Result)
		}
	}
	if _, err := e.Send(ctx, []*api.Command{put}); err == nil {
		t.Error("a key stored before the restart was accepted again")
	}
	if r := local(t, e, build(t, cmdSpec{code: `(m.get "a")`, nonce: "get"})); string(r.Result.Data) != `{"int":11}` {
		t.Errorf("row lost: %+v %s", r.Result.Error, r.Result.Data)
	}
	// The defpact continues, and transaction ids go on.
	r := sendOne(t, e, build(t, cmdSpec{nonce: "cont", cont: &api.ContMsg{PactID: start.Hash.String(), Step: 1, Data: value.UnitValue}}))
	if string(r.Result.Data) != `"got 3"` || r.TxID == nil || *r.TxID != 3 {
		t.Errorf("continuation after restart: %+v %s", r, r.Result.Data)
	}
	if e.EntityPublicKey() != pub {
		t.Error("the entity key changed across the restart")
	}
}
