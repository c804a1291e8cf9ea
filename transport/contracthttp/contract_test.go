package contracthttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/syncbuf"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// contractFixture is a ContractServer on 127.0.0.1:0 over a pact/server Engine.
type contractFixture struct {
	t      testing.TB
	srv    *ContractServer
	engine *server.Engine
	base   string
	log    *syncbuf.Buffer
}

func newContractFixture(t testing.TB, api API, cfg ContractServerConfig) *contractFixture {
	t.Helper()
	f := &contractFixture{t: t, log: &syncbuf.Buffer{}}
	if api == nil {
		e, err := server.Open(server.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		f.engine, api = e, e
	}
	cfg.API = api
	cfg.Version = "pact version 5.4"
	cfg.AccessLog = f.log
	f.srv = NewContractServer(cfg)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.base = "http://" + ln.Addr().String()
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangguard.Limit)
		defer cancel()
		if err := f.srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return f
}

type reply struct {
	status int
	ctype  string
	body   string
	header http.Header
}

func (f *contractFixture) do(method, path, ctype, body string) reply {
	f.t.Helper()
	req, err := http.NewRequest(method, f.base+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), string(b), resp.Header}
}

func (f *contractFixture) post(path, body string) reply {
	return f.do(http.MethodPost, path, "application/json", body)
}

var testKey = func() *api.KeyPair {
	k, err := api.KeyPairFromHex("246243bbb9e668a7f24666eaaca75ab0ad49df222de8379f03b2b4b76b03a757")
	if err != nil {
		panic(err)
	}
	return k
}()

// signedCommand builds a command signed by testKey.
func signedCommand(t testing.TB, code, nonce string) *api.Command {
	t.Helper()
	p := &api.Payload{
		Exec:    &api.ExecMsg{Code: code, Data: eval.UnitValue},
		Signers: []api.Signer{{PubKey: testKey.PublicHex()}},
		Meta:    api.Meta{Public: &api.PublicMeta{ChainID: "0", TTL: 600}},
		Nonce:   nonce,
	}
	cmd, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	h := api.HashBytes(cmd)
	return &api.Command{Hash: h, Sigs: []api.UserSig{testKey.SignHash(h)}, Cmd: string(cmd)}
}

func batch(cmds ...*api.Command) string {
	return string((&api.SubmitBatch{Cmds: cmds}).AppendJSON(nil))
}

func TestContractSendPollListenLocal(t *testing.T) {
	f := newContractFixture(t, nil, ContractServerConfig{})
	c := signedCommand(t, "(+ 1 2)", "a")
	rk := c.Hash.String()

	r := f.post("/api/v1/send", batch(c))
	if r.status != 200 || r.body != `{"requestKeys":["`+rk+`"]}` || !strings.HasPrefix(r.ctype, "application/json") ||
		r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("send: %+v", r)
	}
	r = f.post("/api/v1/poll?confirmationDepth=3", `{"requestKeys":["`+rk+`","DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"]}`)
	if r.status != 200 || !strings.HasPrefix(r.body, `{"`+rk+`":{"gas":0,"result":{"status":"success","data":{"int":3}},"reqKey":"`+rk+`"`) {
		t.Errorf("poll: %+v", r)
	}
	r = f.post("/api/v1/listen", `{"listen":"`+rk+`"}`)
	if r.status != 200 || !strings.HasPrefix(r.body, `{"gas":0,"result":{"status":"success"`) {
		t.Errorf("listen: %+v", r)
	}
	r = f.post("/api/v1/send", batch(c))
	if r.status != 400 || !strings.HasPrefix(r.ctype, "text/plain") || !strings.HasPrefix(r.body, "Request key: "+rk+" has already been submitted.") {
		t.Errorf("duplicate: %+v", r)
	}

	l := signedCommand(t, `(enforce false "nope")`, "l")
	r = f.post("/api/v1/local?signatureVerification=true&rewindDepth=0", string(l.JSON()))
	if r.status != 200 || !strings.Contains(r.body, `"status":"failure"`) || !strings.Contains(r.body, `"type":"TxFailure"`) {
		t.Errorf("local: %+v", r)
	}
	r = f.post("/api/v1/local?preflight=true", string(signedCommand(t, "(+ 1 1)", "p").JSON()))
	var pre struct {
		PreflightResult   json.RawMessage `json:"preflightResult"`
		PreflightWarnings []string        `json:"preflightWarnings"`
	}
	if r.status != 200 || json.Unmarshal([]byte(r.body), &pre) != nil || pre.PreflightWarnings == nil ||
		!strings.Contains(string(pre.PreflightResult), `"data":{"int":2}`) {
		t.Errorf("preflight: %+v", r)
	}

	r = f.do(http.MethodGet, "/version", "", "")
	if r.status != 200 || r.body != "pact version 5.4" || !strings.HasPrefix(r.ctype, "text/plain") {
		t.Errorf("version: %+v", r)
	}
	if !strings.Contains(f.log.String(), `"POST /api/v1/send HTTP/1.1" 200 `) {
		t.Errorf("access log:\n%s", f.log.String())
	}
	if n := f.srv.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

func TestContractRequestErrors(t *testing.T) {
	f := newContractFixture(t, nil, ContractServerConfig{MaxBodyBytes: 64 << 10, ListenTimeout: 50 * time.Millisecond})
	good := signedCommand(t, "(+ 1 2)", "good")
	tampered := *good
	tampered.Cmd = strings.Replace(good.Cmd, "(+ 1 2)", "(+ 1 3)", 1)
	for _, tc := range []struct {
		name, method, path, ctype, body string
		status                          int
		text                            string
	}{
		{"text body", "POST", "/api/v1/send", "text/plain", batch(good), 415, "Unsupported Content-Type"},
		{"no content type", "POST", "/api/v1/poll", "", `{}`, 415, "Unsupported Content-Type"},
		{"bad JSON", "POST", "/api/v1/send", "application/json", `{"cmds":[`, 400, "Malformed request body for send: "},
		{"no commands", "POST", "/api/v1/send", "application/json", `{"cmds":[]}`, 400, "Malformed request body for send: cmds: no commands"},
		{"tampered", "POST", "/api/v1/send", "application/json", batch(&tampered), 400,
			`One or more transactions were invalid: Transaction "` + good.Hash.String() + `" at index 0 failed with: Invalid transaction hash`},
		{"poll nothing", "POST", "/api/v1/poll", "application/json", `{"requestKeys":[]}`, 400, `"requestKeys" must be a non-empty list`},
		{"poll bad key", "POST", "/api/v1/poll", "application/json", `{"requestKeys":["abc"]}`, 400, "requestKeys[0]: invalid"},
		{"poll depth", "POST", "/api/v1/poll?confirmationDepth=x", "application/json", `{"requestKeys":[]}`, 400,
			"Error parsing query parameter confirmationDepth failed"},
		{"listen nothing", "POST", "/api/v1/listen", "application/json", `{}`, 400, `"listen" (a request key) is missing`},
		{"listen timeout", "POST", "/api/v1/listen", "application/json", `{"listen":"` + good.Hash.String() + `"}`, 504,
			"Listen timed out after 50ms: no result for request key " + good.Hash.String()},
		{"local flag", "POST", "/api/v1/local?preflight=maybe", "application/json", string(good.JSON()), 400,
			"Error parsing query parameter preflight failed: not a boolean"},
		{"local batch", "POST", "/api/v1/local", "application/json", batch(good), 400, "Malformed request body for local: "},
		{"too large", "POST", "/api/v1/send", "application/json", `{"cmds":"` + strings.Repeat("x", 70<<10) + `"}`, 413,
			"Request body too large to be processed. The maximum size is 65536 bytes"},
		{"listen too large", "POST", "/api/v1/listen", "application/json", `{"listen":"` + strings.Repeat("x", 5000) + `"}`, 413,
			"The maximum size is 4096 bytes"},
		{"spv", "POST", "/api/v1/spv", "application/json", `{"requestKey":"` + good.Hash.String() + `","targetChainId":"1"}`, 400,
			"SPV proofs are not supported"},
		{"private public meta", "POST", "/api/v1/private", "application/json", string(good.JSON()), 400, "needs private metadata"},
		{"verify bad", "POST", "/api/v1/verify", "application/json", `{"modules":7}`, 400, `"modules" must be a list`},
		{"wrong method", "GET", "/api/v1/send", "", "", 405, ""},
		{"unknown op", "POST", "/api/v1/nothing", "application/json", "{}", 404, ""},
	} {
		r := f.do(tc.method, tc.path, tc.ctype, tc.body)
		if r.status != tc.status || !strings.Contains(r.body, tc.text) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, r.status, r.body, tc.status, tc.text)
		}
		if tc.status == 400 && !strings.HasPrefix(r.ctype, "text/plain") {
			t.Errorf("%s: 400 with Content-Type %q", tc.name, r.ctype)
		}
	}
	r := f.do(http.MethodOptions, "/api/v1/send", "", "")
	if r.status != 204 || r.header.Get("Access-Control-Allow-Headers") != "authorization, content-type" ||
		r.header.Get("Access-Control-Max-Age") != "86400" {
		t.Errorf("preflight: %+v", r)
	}
	r = f.post("/api/v1/verify", `{"modules":["(module m 'k (defun f:integer () 1))"]}`)
	if r.status != 200 || r.body != `{"output":[]}` {
		t.Errorf("verify: %+v", r)
	}
	if n := f.srv.InternalErrors(); n != 0 {
		t.Errorf("%d internal errors", n)
	}
}

// failingAPI fails every operation with an error that is not the client's.
type failingAPI struct{}

var errBroken = errors.New("disk on fire")

func (failingAPI) Send(context.Context, []*api.Command) ([]api.Hash, error) { return nil, errBroken }
func (failingAPI) Poll(context.Context, []api.Hash, contractapi.PollOptions) ([]contractapi.Polled, error) {
	return nil, errBroken
}
func (failingAPI) Listen(context.Context, api.Hash) ([]byte, error) { return nil, errBroken }
func (failingAPI) Local(context.Context, *api.Command, contractapi.LocalOptions) (contractapi.LocalResult, error) {
	return contractapi.LocalResult{}, errBroken
}
func (failingAPI) Private(context.Context, []byte) ([]api.Hash, error) { return nil, errBroken }
func (failingAPI) Verify(context.Context, []byte) ([]byte, error)      { return nil, errBroken }
func (failingAPI) SPV(context.Context, contractapi.SPVRequest) (string, error) {
	return "", errBroken
}

func TestContractBackendFailure(t *testing.T) {
	f := newContractFixture(t, failingAPI{}, ContractServerConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	r := f.post("/api/v1/send", batch(signedCommand(t, "1", "x")))
	if r.status != 500 || r.body != "Something went wrong" || f.srv.InternalErrors() != 1 {
		t.Errorf("backend failure: %+v", r)
	}
}

// errBusy is a backend's "cannot serve now", as the node's evaluation slots say it when they
// stay taken.
var errBusy = errors.New("the node is busy")

// busyAPI turns every local away.
type busyAPI struct{ failingAPI }

func (busyAPI) Local(context.Context, *api.Command, contractapi.LocalOptions) (contractapi.LocalResult, error) {
	return contractapi.LocalResult{}, fmt.Errorf("local: %w", errBusy)
}

// A backend error that Unavailable recognises is a 503 with the refusal's text and Retry-After,
// not a 500; one it does not is a 500.
func TestContractUnavailable(t *testing.T) {
	unavailable := func(err error) (Refusal, bool) {
		if errors.Is(err, errBusy) {
			return Refusal{Text: "busy, try again", RetryAfter: "1"}, true
		}
		return Refusal{}, false
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f := newContractFixture(t, busyAPI{}, ContractServerConfig{Unavailable: unavailable, Logger: quiet})
	r := f.post("/api/v1/local", string(signedCommand(t, "(+ 1 2)", "busy").JSON()))
	if r.status != 503 || r.body != "busy, try again" || r.header.Get("Retry-After") != "1" || f.srv.InternalErrors() != 0 {
		t.Errorf("busy local: %+v", r)
	}
	r = f.post("/api/v1/send", batch(signedCommand(t, "(+ 1 2)", "broken")))
	if r.status != 500 || r.header.Get("Retry-After") != "" || f.srv.InternalErrors() != 1 {
		t.Errorf("failing send: %+v", r)
	}
}

// A listen waiting when the server shuts down ends at once with a 503.
func TestContractListenShutdown(t *testing.T) {
	f := newContractFixture(t, nil, ContractServerConfig{})
	got := make(chan reply, 1)
	go func() { got <- f.post("/api/v1/listen", `{"listen":"DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g"}`) }()
	time.Sleep(50 * time.Millisecond)
	f.srv.contract.Shutdown()
	select {
	case r := <-got:
		if r.status != 503 {
			t.Errorf("listen at shutdown: %+v", r)
		}
	case <-hangguard.After():
		t.Fatal(hangguard.Failure("listen's end at shutdown"))
	}
}

// FuzzContractBodies sends arbitrary bodies to every contract operation: the answer is never a
// 500, and a 200 is JSON.
func FuzzContractBodies(f *testing.F) {
	e, err := server.Open(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	srv := NewContractServer(ContractServerConfig{API: e, ListenTimeout: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := srv.Handler()
	good := signedCommand(f, "(+ 1 2)", "fuzz")
	ops := []string{"send", "poll", "listen", "local", "private", "verify", "spv"}
	f.Add(uint8(0), []byte(batch(good)))
	f.Add(uint8(1), []byte(`{"requestKeys":["`+good.Hash.String()+`"]}`))
	f.Add(uint8(2), []byte(`{"listen":"`+good.Hash.String()+`"}`))
	f.Add(uint8(3), good.JSON())
	f.Add(uint8(4), []byte(`{"envelope":{"requestKey":"`+good.Hash.String()+`","from":"a","to":["b"],"boxes":{}}}`))
	f.Add(uint8(5), []byte(`{"modules":["(module m 'k (defun f:integer (x:integer) (f \"a\")))"]}`))
	f.Add(uint8(6), []byte(`{"requestKey":"`+good.Hash.String()+`","targetChainId":"1"}`))
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		var req fasthttp.Request
		req.Header.SetMethod(fasthttp.MethodPost)
		req.SetRequestURI("/api/v1/" + ops[int(op)%len(ops)] + "?preflight=true")
		req.Header.SetContentType("application/json")
		req.SetBody(body)
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, nil, nil)
		h(&ctx)
		status := ctx.Response.StatusCode()
		if status >= 500 && status != fasthttp.StatusGatewayTimeout {
			t.Fatalf("%s %q: %d %s", req.URI().Path(), body, status, ctx.Response.Body())
		}
		if status == 200 && !json.Valid(ctx.Response.Body()) {
			t.Fatalf("%s %q: 200 with %s", req.URI().Path(), body, ctx.Response.Body())
		}
	})
}

// A private command sent to alice's server reaches bob's over HTTP, sealed; both run it.
func TestContractPrivateDelivery(t *testing.T) {
	secret := func(b byte) *[32]byte {
		var k [32]byte
		for i := range k {
			k[i] = b ^ byte(i*7)
		}
		return &k
	}
	aliceKey, bobKey := secret(3), secret(200)
	bobEngine, err := server.Open(server.Config{Entity: "bob", EntitySecret: bobKey,
		Entities: map[string]server.Entity{"alice": {PublicKey: server.PublicBoxKey(*aliceKey)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer bobEngine.Close()
	bob := newContractFixture(t, bobEngine, ContractServerConfig{})
	aliceEngine, err := server.Open(server.Config{Entity: "alice", EntitySecret: aliceKey,
		Entities: map[string]server.Entity{"bob": {PublicKey: server.PublicBoxKey(*bobKey), URL: bob.base}},
		Deliver:  PrivateDeliverer(map[string]string{"bob": bob.base}, 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	defer aliceEngine.Close()
	alice := newContractFixture(t, aliceEngine, ContractServerConfig{})

	p := &api.Payload{
		Exec:    &api.ExecMsg{Code: `(+ 20 22)`, Data: eval.UnitValue},
		Signers: []api.Signer{{PubKey: testKey.PublicHex()}},
		Meta:    api.Meta{Private: &api.PrivateMeta{Address: &api.Address{From: "alice", To: []string{"bob"}}}},
		Nonce:   "private",
	}
	cmd, _ := p.JSON()
	h := api.HashBytes(cmd)
	c := &api.Command{Hash: h, Sigs: []api.UserSig{testKey.SignHash(h)}, Cmd: string(cmd)}
	r := alice.post("/api/v1/private", string(c.JSON()))
	if r.status != 200 || r.body != `{"requestKeys":["`+h.String()+`"]}` {
		t.Fatalf("private: %+v", r)
	}
	for name, f := range map[string]*contractFixture{"alice": alice, "bob": bob} {
		r := f.post("/api/v1/poll", `{"requestKeys":["`+h.String()+`"]}`)
		if r.status != 200 || !strings.Contains(r.body, `"data":{"int":42}`) {
			t.Errorf("%s: %+v", name, r)
		}
	}
	if !strings.Contains(bob.log.String(), `"POST /api/v1/private HTTP/1.1" 200`) {
		t.Errorf("bob's access log:\n%s", bob.log.String())
	}
}
