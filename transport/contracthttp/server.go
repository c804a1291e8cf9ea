package contracthttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The CORS header every answer carries, already in canonical form for SetCanonical.
var (
	hdrAllowOrigin = []byte("Access-Control-Allow-Origin")
	valStar        = []byte("*")
)

// ContractServer is the HTTP server of `pact -s` (spec pact.md §2.2): the contract endpoints at
// /api/v1/<op> over one API, and GET /version. As P5's, it answers CORS requests from
// any origin (methods GET and POST, headers authorization and content-type, max-age one day)
// and writes an Apache-style access log.
type ContractServer struct {
	contract *Contract
	routes   []route
	version  []byte
	maxBody  int
	server   *fasthttp.Server

	logMu     sync.Mutex
	accessLog io.Writer

	lnMu      sync.Mutex
	listeners []net.Listener
	stopped   bool
}

// ContractServerConfig configures a ContractServer.
type ContractServerConfig struct {
	API API
	// Version is the body of GET /version ("pact version 5.4").
	Version string
	// MaxBodyBytes bounds request bodies (DefaultMaxBodyBytes if zero).
	MaxBodyBytes int
	// ListenTimeout bounds listen (DefaultListenTimeout if zero).
	ListenTimeout time.Duration
	// Unavailable is ContractConfig.Unavailable: which backend errors are a 503.
	Unavailable func(err error) (Refusal, bool)
	// AccessLog receives one line per request in Apache's combined format; nil for none.
	AccessLog io.Writer
	Logger    *slog.Logger
}

// NewContractServer builds the server.
func NewContractServer(cfg ContractServerConfig) *ContractServer {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = httpkit.DefaultMaxBodyBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	backend := cfg.API
	s := &ContractServer{
		contract: NewContract(ContractConfig{
			API:           func(ledger.ChainID) API { return backend },
			MaxBodyBytes:  cfg.MaxBodyBytes,
			ListenTimeout: cfg.ListenTimeout,
			Unavailable:   cfg.Unavailable,
			Logger:        cfg.Logger,
		}),
		version:   []byte(cfg.Version),
		maxBody:   cfg.MaxBodyBytes,
		accessLog: cfg.AccessLog,
	}
	for _, op := range s.contract.Ops() {
		s.routes = append(s.routes, route{fasthttp.MethodPost, []string{"api", "v1", op.Name}, op.Serve})
	}
	s.routes = append(s.routes, route{fasthttp.MethodGet, []string{"version"}, s.getVersion})
	s.server = &fasthttp.Server{
		Handler:      s.Handler(),
		ErrorHandler: s.requestError,
		Logger:       httpkit.Logger{L: cfg.Logger},

		ReadBufferSize:     httpkit.ReadBufferSize,
		MaxRequestBodySize: cfg.MaxBodyBytes,
		ReadTimeout:        httpkit.ReadTimeout,
		IdleTimeout:        httpkit.IdleTimeout,

		NoDefaultServerHeader:        true,
		NoDefaultContentType:         true,
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
	}
	return s
}

// InternalErrors counts the 500 answers so far (panics and backend failures).
func (s *ContractServer) InternalErrors() int64 { return s.contract.InternalErrors() }

// Handler returns the request handler (for tests and for embedding).
func (s *ContractServer) Handler() fasthttp.RequestHandler { return s.serve }

func (s *ContractServer) getVersion(ctx *fasthttp.RequestCtx, _ ledger.ChainID) {
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.Response.Header.SetContentTypeBytes(httpkit.ContentTypeText)
	ctx.Response.SetBody(s.version)
}

// serve: CORS, a panic guard, routing, then the access log line.
func (s *ContractServer) serve(ctx *fasthttp.RequestCtx) {
	if s.accessLog != nil {
		defer s.logAccess(ctx, time.Now())
	}
	defer s.recoverPanic(ctx)
	h := &ctx.Response.Header
	h.SetCanonical(hdrAllowOrigin, valStar)
	if ctx.IsOptions() {
		s.preflight(ctx)
		return
	}
	s.route(ctx)
}

func (s *ContractServer) recoverPanic(ctx *fasthttp.RequestCtx) {
	r := recover()
	if r == nil {
		return
	}
	s.contract.internalErrors.Add(1)
	s.contract.log.Error("panic in HTTP handler", "method", string(ctx.Method()), "uri", string(ctx.RequestURI()),
		"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	ctx.Response.Reset()
	ctx.Response.Header.SetCanonical(hdrAllowOrigin, valStar)
	httpkit.WriteText(ctx, fasthttp.StatusInternalServerError, "Something went wrong")
}

// preflight answers CORS preflights as wai-cors does for P5's server.
func (s *ContractServer) preflight(ctx *fasthttp.RequestCtx) {
	path := ctx.URI().PathOriginal()
	if len(s.allowedMethods(path)) == 0 {
		httpkit.WriteText(ctx, fasthttp.StatusNotFound, s.notFound(ctx.Method(), path))
		return
	}
	h := &ctx.Response.Header
	h.Set(fasthttp.HeaderAccessControlAllowMethods, "GET, POST")
	h.Set(fasthttp.HeaderAccessControlAllowHeaders, "authorization, content-type")
	h.Set(fasthttp.HeaderAccessControlMaxAge, "86400")
	httpkit.WriteEmpty(ctx, fasthttp.StatusNoContent)
}

// requestError answers a request fasthttp could not read (413 for a body over the limit, 431
// for a request line and headers over the read buffer), with a reason as the node's does.
func (s *ContractServer) requestError(ctx *fasthttp.RequestCtx, err error) {
	ctx.Response.Reset()
	ctx.Response.Header.SetCanonical(hdrAllowOrigin, valStar)
	httpkit.AnswerUnreadable(ctx, err, s.maxBody)
	if s.accessLog != nil {
		s.logAccess(ctx, time.Now())
	}
}

// logAccess writes an Apache combined log line:
// HOST - - [02/Jan/2006:15:04:05 -0700] "METHOD URI PROTO" STATUS SIZE "REFERER" "AGENT".
func (s *ContractServer) logAccess(ctx *fasthttp.RequestCtx, _ time.Time) {
	b := make([]byte, 0, 192)
	host, _, err := net.SplitHostPort(ctx.RemoteAddr().String())
	if err != nil {
		host = ctx.RemoteAddr().String()
	}
	b = append(b, host...)
	b = append(b, " - - ["...)
	b = time.Now().AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
	b = append(b, `] "`...)
	b = append(b, ctx.Method()...)
	b = append(b, ' ')
	b = append(b, ctx.RequestURI()...)
	b = append(b, ' ')
	b = append(b, ctx.Request.Header.Protocol()...)
	b = append(b, `" `...)
	b = strconv.AppendInt(b, int64(ctx.Response.StatusCode()), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(ctx.Response.Body())), 10)
	b = append(b, ' ')
	b = httpkit.AppendJSONString(b, orDash(ctx.Referer()))
	b = append(b, ' ')
	b = httpkit.AppendJSONString(b, orDash(ctx.UserAgent()))
	b = append(b, '\n')
	s.logMu.Lock()
	s.accessLog.Write(b)
	s.logMu.Unlock()
}

func orDash(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return string(b)
}

// Serve serves on ln until Shutdown; it returns nil after a Shutdown.
func (s *ContractServer) Serve(ln net.Listener) error {
	s.lnMu.Lock()
	if s.stopped {
		s.lnMu.Unlock()
		ln.Close()
		return nil
	}
	s.listeners = append(s.listeners, ln)
	s.lnMu.Unlock()
	err := s.server.Serve(ln)
	s.lnMu.Lock()
	stopped := s.stopped
	s.lnMu.Unlock()
	if errors.Is(err, net.ErrClosed) || stopped {
		return nil
	}
	return err
}

// Shutdown stops accepting connections and waits for open requests until ctx ends.
func (s *ContractServer) Shutdown(ctx context.Context) error {
	s.lnMu.Lock()
	s.stopped = true
	lns := s.listeners
	s.listeners = nil
	s.lnMu.Unlock()
	s.contract.Shutdown()
	err := s.server.ShutdownWithContext(ctx)
	for _, ln := range lns {
		ln.Close()
	}
	return err
}

// PrivateDeliverer returns a pact/server Config.Deliver that posts a private envelope to
// /api/v1/private of every server in urls (entity name → base URL such as
// http://127.0.0.1:8081), one after the other; it returns the failures joined.
func PrivateDeliverer(urls map[string]string, timeout time.Duration) func(ctx context.Context, envelope []byte) error {
	client := &fasthttp.Client{NoDefaultUserAgentHeader: true}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return func(ctx context.Context, envelope []byte) error {
		var errs []error
		for entity, base := range urls {
			req := fasthttp.AcquireRequest()
			resp := fasthttp.AcquireResponse()
			req.SetRequestURI(strings.TrimSuffix(base, "/") + "/api/v1/private")
			req.Header.SetMethod(fasthttp.MethodPost)
			req.Header.SetContentType("application/json")
			req.SetBody(envelope)
			err := client.DoTimeout(req, resp, timeout)
			if err == nil && resp.StatusCode() != fasthttp.StatusOK {
				err = fmt.Errorf("status %d: %s", resp.StatusCode(), resp.Body())
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("entity %s (%s): %w", entity, base, err))
			}
			fasthttp.ReleaseRequest(req)
			fasthttp.ReleaseResponse(resp)
		}
		return errors.Join(errs...)
	}
}
