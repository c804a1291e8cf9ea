package contracthttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/keyorder"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The contract command endpoints (interface.md, "Contract command endpoints"): send, poll,
// listen, local, private, verify and spv. One handler set serves `pact -s` (mounted at
// /api/v1/<op>, server.go) and the node (package transport mounts Ops under
// /chain/{c}/contract/api/v1/ and /chain/{c}/pact/api/v1/). The handlers decode and check the
// request, call an API and write its answer; what a command does is the backend's business.
//
// Status codes: 200 with JSON on success; 400 text/plain with the reason for anything the
// client got wrong (a body that is not the operation's JSON, a command that fails verification,
// a request key already submitted, a bad query parameter); 413 for a body over the limit; 415
// for a body that is not declared as application/json; 504 when listen times out; 503 while
// the backend shuts down, or when the backend says it cannot serve now (ContractConfig.Unavailable:
// on the node, every slot for Pact evaluations stayed taken while a local waited, or damaged
// data). A 500 means a bug or a failing store.

// API executes contract commands. pact/server's Engine implements it for `pact -s`; the node
// implements it over its mempool and executor. Errors that are a contractapi.RequestError
// become 400s with their text; a listen whose context ends returns the context's error.
type API interface {
	// Send submits commands and returns their request keys.
	Send(ctx context.Context, cmds []*api.Command) ([]api.Hash, error)
	// Poll returns the results that exist among keys; keys without one are left out.
	Poll(ctx context.Context, keys []api.Hash, opts contractapi.PollOptions) ([]contractapi.Polled, error)
	// Listen waits until the result of key exists or ctx ends.
	Listen(ctx context.Context, key api.Hash) ([]byte, error)
	// Local simulates a command; nothing it does is kept.
	Local(ctx context.Context, cmd *api.Command, opts contractapi.LocalOptions) (contractapi.LocalResult, error)
	// Private takes the body of /private (a command with private metadata, or whatever the
	// backend exchanges between entities) and returns the request keys it accepted.
	Private(ctx context.Context, body []byte) ([]api.Hash, error)
	// Verify takes the body of /verify and returns the JSON of its analysis.
	Verify(ctx context.Context, body []byte) ([]byte, error)
	// SPV returns the proof that a transaction of this chain happened, for another chain.
	SPV(ctx context.Context, req contractapi.SPVRequest) (string, error)
}

// ContractConfig configures the contract handlers.
type ContractConfig struct {
	// API returns the backend of a chain. Routes without a chain segment (pact -s) pass 0.
	API func(chain ledger.ChainID) API
	// MaxBodyBytes bounds the body of send, local, private and verify (DefaultMaxBodyBytes if
	// zero); poll shares it. listen and spv bodies are bounded by smallBodyBytes.
	MaxBodyBytes int
	// ListenTimeout bounds how long listen waits (DefaultListenTimeout if zero).
	ListenTimeout time.Duration
	// Unavailable says whether a backend error means that the backend cannot serve the request
	// now, through no fault of the request and no bug of its own (on the node: every evaluation
	// slot taken, the node stopping, damaged data), and how to answer it: a 503 with the
	// refusal's text. Nil: only contractapi.ErrClosed and a cancelled request are.
	Unavailable func(err error) (Refusal, bool)
	Logger      *slog.Logger
}

// Refusal is the 503 answer to a request the backend cannot serve now.
type Refusal struct {
	Text string
	// RetryAfter is the Retry-After header in seconds; "" sends none.
	RetryAfter string
}

// DefaultListenTimeout is how long listen waits for a result before answering 504
// (DECISIONS.md, "listen timeout": upstream's 180 s).
const DefaultListenTimeout = 180 * time.Second

// smallBodyBytes bounds the bodies that hold one request key (listen, spv).
const smallBodyBytes = 4 << 10

// Contract is the contract endpoints' handler set.
type Contract struct {
	cfg ContractConfig
	log *slog.Logger
	// base is the parent of listen's waits; stop cancels it when the server shuts down, so a
	// waiting listen does not hold the shutdown up.
	base context.Context
	stop context.CancelFunc
	// internalErrors counts 500 answers; bad input must never produce one.
	internalErrors atomic.Int64
	// wrappedSPV and bareSPV are spv's two answers (Ops' and BareSPV's), made once.
	wrappedSPV, bareSPV func(*fasthttp.RequestCtx, ledger.ChainID)
}

// NewContract builds the handler set. It panics without an API: that is a wiring bug.
func NewContract(cfg ContractConfig) *Contract {
	if cfg.API == nil {
		panic("contracthttp: ContractConfig needs API")
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = httpkit.DefaultMaxBodyBytes
	}
	if cfg.ListenTimeout <= 0 {
		cfg.ListenTimeout = DefaultListenTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	base, stop := context.WithCancel(context.Background())
	c := &Contract{cfg: cfg, log: cfg.Logger, base: base, stop: stop}
	c.wrappedSPV, c.bareSPV = c.spv(true), c.spv(false)
	return c
}

// Shutdown ends every waiting listen with a 503.
func (c *Contract) Shutdown() { c.stop() }

// InternalErrors counts the 500 answers so far (panics and backend failures).
func (c *Contract) InternalErrors() int64 { return c.internalErrors.Load() }

// Op is one contract operation's handler; chain selects the backend (0 on `pact -s`, whose
// paths have no chain).
type Op struct {
	Name  string // the last segment of the operation's path: send, poll, listen, ...
	Serve func(ctx *fasthttp.RequestCtx, chain ledger.ChainID)
}

// Ops returns the operations, each a POST at <prefix>/<name> ("/api/v1" on `pact -s`,
// "chain/{chain}/contract/api/v1" and "chain/{chain}/pact/api/v1" on the node). Their spv
// answers {"spv": PROOF}; BareSPV is the node's …/pact/spv.
func (c *Contract) Ops() []Op {
	return []Op{
		{"send", c.send}, {"poll", c.poll}, {"listen", c.listen}, {"local", c.local},
		{"private", c.private}, {"verify", c.verify}, {"spv", c.wrappedSPV},
	}
}

// BareSPV is spv answering the bare JSON string of the proof, as @kadena/client expects of
// …/pact/spv (DECISIONS.md, "SPV response body").
func (c *Contract) BareSPV(ctx *fasthttp.RequestCtx, chain ledger.ChainID) { c.bareSPV(ctx, chain) }

// body checks the Content-Type and the size of a request body; false means the answer (415 or
// 413) was sent.
func (c *Contract) body(ctx *fasthttp.RequestCtx, limit int) ([]byte, bool) {
	if !httpkit.RequireJSONBody(ctx) {
		return nil, false
	}
	b := ctx.PostBody()
	if len(b) > limit {
		httpkit.WriteText(ctx, fasthttp.StatusRequestEntityTooLarge, httpkit.TooLargeText(limit, len(b)))
		return nil, false
	}
	return b, true
}

// malformed answers a body that is not the operation's JSON.
func malformed(ctx *fasthttp.RequestCtx, op string, err error) {
	httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "Malformed request body for "+op+": "+err.Error())
}

// ShuttingDownText is the 503's text for a backend that is stopping.
const ShuttingDownText = "The server is shutting down."

// fail answers a backend error.
func (c *Contract) fail(ctx *fasthttp.RequestCtx, op string, err error) {
	if re, ok := contractapi.IsRequestError(err); ok {
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, re.Msg)
		return
	}
	if c.cfg.Unavailable != nil {
		if r, ok := c.cfg.Unavailable(err); ok {
			if r.RetryAfter != "" {
				ctx.Response.Header.Set("Retry-After", r.RetryAfter)
			}
			httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, r.Text)
			return
		}
	}
	if errors.Is(err, contractapi.ErrClosed) || errors.Is(err, context.Canceled) {
		httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, ShuttingDownText)
		return
	}
	c.internalErrors.Add(1)
	c.log.Error("contract API failed", "op", op, "err", err)
	httpkit.WriteText(ctx, fasthttp.StatusInternalServerError, "Something went wrong")
}

func (c *Contract) send(ctx *fasthttp.RequestCtx, chain ledger.ChainID) {
	body, ok := c.body(ctx, c.cfg.MaxBodyBytes)
	if !ok {
		return
	}
	batch, err := api.DecodeSubmitBatch(body)
	if err != nil {
		malformed(ctx, "send", err)
		return
	}
	keys, err := c.cfg.API(chain).Send(ctx, batch.Cmds)
	if err != nil {
		c.fail(ctx, "send", err)
		return
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, appendRequestKeys(nil, keys))
}

// appendRequestKeys appends {"requestKeys":[...]}.
func appendRequestKeys(b []byte, keys []api.Hash) []byte {
	b = append(b, `{"requestKeys":[`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k.String()...)
		b = append(b, '"')
	}
	return append(b, "]}"...)
}

// parseRequestKey parses one request key of a body; what names it in errors.
func parseRequestKey(s, what string) (api.Hash, error) {
	h, err := api.ParseHash(s)
	if err != nil {
		return h, errors.New(what + ": " + err.Error())
	}
	return h, nil
}

func (c *Contract) poll(ctx *fasthttp.RequestCtx, chain ledger.ChainID) {
	var opts contractapi.PollOptions
	if v, present, perr := httpkit.OptUint(ctx.QueryArgs(), "confirmationDepth"); perr != nil {
		perr.Write(ctx)
		return
	} else if present {
		opts.ConfirmationDepth = v
	}
	body, ok := c.body(ctx, c.cfg.MaxBodyBytes)
	if !ok {
		return
	}
	var req struct {
		RequestKeys *[]string `json:"requestKeys"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		malformed(ctx, "poll", err)
		return
	}
	if req.RequestKeys == nil || len(*req.RequestKeys) == 0 {
		malformed(ctx, "poll", errors.New(`"requestKeys" must be a non-empty list of request keys`))
		return
	}
	keys := make([]api.Hash, len(*req.RequestKeys))
	for i, s := range *req.RequestKeys {
		var err error
		if keys[i], err = parseRequestKey(s, "requestKeys["+strconv.Itoa(i)+"]"); err != nil {
			malformed(ctx, "poll", err)
			return
		}
	}
	found, err := c.cfg.API(chain).Poll(ctx, keys, opts)
	if err != nil {
		c.fail(ctx, "poll", err)
		return
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, appendPollResponse(nil, found))
}

// appendPollResponse appends {"<rk>": RESULT, ...} with the keys in legacy order, as P5's
// legacyHashMap writes them.
func appendPollResponse(b []byte, found []contractapi.Polled) []byte {
	names := make([]string, len(found))
	byName := make(map[string][]byte, len(found))
	for i, f := range found {
		names[i] = f.Key.String()
		byName[names[i]] = f.Result
	}
	b = append(b, '{')
	for i, n := range keyorder.Legacy(names) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, n...)
		b = append(b, `":`...)
		b = append(b, byName[n]...)
	}
	return append(b, '}')
}

func (c *Contract) listen(ctx *fasthttp.RequestCtx, chain ledger.ChainID) {
	body, ok := c.body(ctx, smallBodyBytes)
	if !ok {
		return
	}
	var req struct {
		Listen *string `json:"listen"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		malformed(ctx, "listen", err)
		return
	}
	if req.Listen == nil {
		malformed(ctx, "listen", errors.New(`"listen" (a request key) is missing`))
		return
	}
	key, err := parseRequestKey(*req.Listen, "listen")
	if err != nil {
		malformed(ctx, "listen", err)
		return
	}
	lctx, cancel := context.WithTimeout(c.base, c.cfg.ListenTimeout)
	defer cancel()
	res, err := c.cfg.API(chain).Listen(lctx, key)
	if errors.Is(err, context.DeadlineExceeded) {
		httpkit.WriteText(ctx, fasthttp.StatusGatewayTimeout, "Listen timed out after "+c.cfg.ListenTimeout.String()+
			": no result for request key "+key.String()+" yet")
		return
	}
	if err != nil {
		c.fail(ctx, "listen", err)
		return
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, res)
}

func (c *Contract) local(ctx *fasthttp.RequestCtx, chain ledger.ChainID) {
	opts := contractapi.DefaultLocalOptions
	args := ctx.QueryArgs()
	var perr *httpkit.ParamError
	if opts.Preflight, perr = httpkit.OptBool(args, "preflight", false); perr != nil {
		perr.Write(ctx)
		return
	}
	if opts.SignatureVerification, perr = httpkit.OptBool(args, "signatureVerification", true); perr != nil {
		perr.Write(ctx)
		return
	}
	if v, present, perr := httpkit.OptUint(args, "rewindDepth"); perr != nil {
		perr.Write(ctx)
		return
	} else if present {
		opts.RewindDepth = v
	}
	body, ok := c.body(ctx, c.cfg.MaxBodyBytes)
	if !ok {
		return
	}
	cmd, err := api.DecodeCommand(body)
	if err != nil {
		malformed(ctx, "local", err)
		return
	}
	res, err := c.cfg.API(chain).Local(ctx, cmd, opts)
	if err != nil {
		c.fail(ctx, "local", err)
		return
	}
	if !opts.Preflight {
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, res.Result)
		return
	}
	b := append([]byte(`{"preflightResult":`), res.Result...)
	b = append(b, `,"preflightWarnings":[`...)
	for i, w := range res.Warnings {
		if i > 0 {
			b = append(b, ',')
		}
		b = httpkit.AppendJSONString(b, w)
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, append(b, "]}"...))
}

func (c *Contract) private(ctx *fasthttp.RequestCtx, chain ledger.ChainID) {
	body, ok := c.body(ctx, c.cfg.MaxBodyBytes)
	if !ok {
		return
	}
	if !json.Valid(body) {
		malformed(ctx, "private", errors.New("not valid JSON"))
		return
	}
	keys, err := c.cfg.API(chain).Private(ctx, body)
	if err != nil {
		c.fail(ctx, "private", err)
		return
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, appendRequestKeys(nil, keys))
}

func (c *Contract) verify(ctx *fasthttp.RequestCtx, chain ledger.ChainID) {
	body, ok := c.body(ctx, c.cfg.MaxBodyBytes)
	if !ok {
		return
	}
	if !json.Valid(body) {
		malformed(ctx, "verify", errors.New("not valid JSON"))
		return
	}
	out, err := c.cfg.API(chain).Verify(ctx, body)
	if err != nil {
		c.fail(ctx, "verify", err)
		return
	}
	httpkit.WriteJSON(ctx, fasthttp.StatusOK, out)
}

// spv answers {"requestKey": RK, "targetChainId": CHAIN}: with {"spv": PROOF} when wrapped
// (the api/v1 paths), else with the bare JSON string (…/pact/spv, as @kadena/client expects;
// DECISIONS.md, "SPV response body").
func (c *Contract) spv(wrapped bool) func(*fasthttp.RequestCtx, ledger.ChainID) {
	return func(ctx *fasthttp.RequestCtx, chain ledger.ChainID) {
		body, ok := c.body(ctx, smallBodyBytes)
		if !ok {
			return
		}
		var req struct {
			RequestKey    *string `json:"requestKey"`
			TargetChainID *string `json:"targetChainId"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			malformed(ctx, "spv", err)
			return
		}
		if req.RequestKey == nil || req.TargetChainID == nil {
			malformed(ctx, "spv", errors.New(`"requestKey" and "targetChainId" (strings) are required`))
			return
		}
		key, err := parseRequestKey(*req.RequestKey, "requestKey")
		if err != nil {
			malformed(ctx, "spv", err)
			return
		}
		proof, err := c.cfg.API(chain).SPV(ctx, contractapi.SPVRequest{RequestKey: key, TargetChainID: *req.TargetChainID})
		if err != nil {
			c.fail(ctx, "spv", err)
			return
		}
		b := httpkit.AppendJSONString(nil, proof)
		if wrapped {
			b = append(append([]byte(`{"spv":`), b...), '}')
		}
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, b)
	}
}
