package transport

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/actors/mining"
	"github.com/ledgernode/ledger-node/explorer"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/connguard"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// ServiceConfig configures the service API.
type ServiceConfig struct {
	Version *ledger.Version
	Store   *store.DB
	// Cut returns the node's current cut (nil before there is one). Reading it must be cheap
	// and safe from any goroutine. If Cut is nil, GET …/cut is not served.
	Cut            func() *ledger.Cut
	PackageVersion string // X-Ledger-Node-Version, X-Chainweb-Node-Version, nodePackageVersion
	ServiceDate    string // nodeServiceDate, ISO 8601; "" → null
	// MaxBodyBytes bounds request bodies (default 2 MiB, upstream's limit); larger ones get 413.
	MaxBodyBytes int
	// PayloadBatchLimit bounds the hashes of one payload batch request (default 1000); the rest
	// of the list is ignored.
	PayloadBatchLimit int
	// Updates feeds GET …/header/updates and …/block/updates (sse.go). Nil leaves both routes
	// out, so they answer 404, as upstream's do without --header-stream.
	Updates *actors.UpdatesHub
	// UpdatesKeepalive is the interval of ": keepalive" comments on update streams
	// (DefaultUpdatesKeepalive if zero).
	UpdatesKeepalive time.Duration
	// UpdatesBuffer is how many events an update stream may fall behind before it is dropped
	// (actors.DefaultSubscriberBuffer if zero).
	UpdatesBuffer int
	// Contract returns a chain's contract API (send, poll, listen, local, ...), served under
	// chain/{c}/pact/api/v1/ and chain/{c}/contract/api/v1/ (DECISIONS.md) with the legacy
	// chain/{c}/pact/spv. Nil leaves those routes out (404), as on a node that executes no
	// Pact.
	Contract func(ledger.ChainID) contracthttp.API
	// ListenTimeout bounds a listen (DefaultListenTimeout if zero).
	ListenTimeout time.Duration
	// Backup serves POST …/make-backup and GET …/check-backup/{backupId} (backup.go). Nil
	// leaves both routes out (404): the backup API is off unless the operator enables it.
	Backup BackupAPI
	// MakeBlocks serves POST /make-blocks (makeblocks.go); nil leaves it out (404).
	MakeBlocks MakeBlocksFunc
	// Explorer serves the explorer page at / (explorer.go) with this status; nil leaves the
	// page out (404).
	Explorer func() explorer.Status
	// Transfers serves GET …/account/{account}/transfers (accounts.go), the account's transfers
	// across chains; nil leaves it out (404), as on a node that executes no Pact.
	Transfers TransferIndex
	// Continuations serves GET …/chain/{chain}/pact/{pactIdHash}/continuations
	// (continuations.go), where a pact was continued; nil leaves it out (404).
	Continuations ContinuationIndex
	// Mining serves the mining API for external miners, GET …/mining/work, POST
	// …/mining/solved and GET …/mining/updates (mining.go). Nil leaves the routes out (404):
	// the API is off unless the operator enables mining coordination.
	Mining *mining.Coordinator
	// Metrics serves GET MetricsPath (a rooted path such as "/metrics"); nil leaves it out.
	Metrics     fasthttp.RequestHandler
	MetricsPath string
	// Requests, when set, counts the requests by route class and status (requests.go), under
	// RequestsAPI's name ("service" if empty).
	Requests    *RequestStats
	RequestsAPI string
	Logger      *slog.Logger
}

// Defaults of ServiceConfig and of the server.
const (
	DefaultMaxBodyBytes      = httpkit.DefaultMaxBodyBytes
	DefaultPayloadBatchLimit = 1000
)

// Service is the service API server.
type Service struct {
	cfg     ServiceConfig
	db      chainDB
	log     *slog.Logger
	router  *router
	headers commonHeaders
	limits  listLimits
	info    map[*ledger.Graph][]byte // /info bodies, one per graph the version ever uses
	server  *fasthttp.Server
	// contract serves the contract endpoints; nil without ServiceConfig.Contract.
	contract *contracthttp.Contract
	// throttle limits the peer API's request rates per client address; nil on the service API.
	throttle *throttler
	// objectHeaders: headers are offered in the object encoding too. The service API does; the
	// peer API, as upstream's, answers 406 to a request for it (chainweb-api.md §4.2).
	objectHeaders bool
	// tls makes Serve speak HTTPS (the peer API: PeerConfig.TLS); nil: plain HTTP.
	tls *tls.Config

	lnMu      sync.Mutex
	listeners []net.Listener // handed to Serve; closed by Shutdown
	stopped   bool

	// internalErrors counts 500 answers (panics and store failures). Bad input must never
	// reach one; tests assert it stays zero.
	internalErrors atomic.Int64

	// The request classes of requests no route takes (requests.go); nil when nobody counts.
	unmatched, preflights, refused *routeClass
}

// NewService builds the service. It panics on a config without Version or Store: that is a
// wiring bug, not a runtime condition.
func NewService(cfg ServiceConfig) *Service {
	s := newService(cfg, serviceLimits, (*Service).routes)
	s.objectHeaders = true
	return s
}

// newService builds a server of the node's routes: the service API's or the peer API's.
func newService(cfg ServiceConfig, limits listLimits, routes func(*Service)) *Service {
	if cfg.Version == nil || cfg.Store == nil {
		panic("transport: ServiceConfig needs Version and Store")
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.PayloadBatchLimit <= 0 {
		cfg.PayloadBatchLimit = DefaultPayloadBatchLimit
	}
	if cfg.UpdatesKeepalive <= 0 {
		cfg.UpdatesKeepalive = DefaultUpdatesKeepalive
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Service{
		cfg:     cfg,
		db:      cfg.Store,
		log:     cfg.Logger,
		router:  newRouter(cfg.Version),
		headers: commonHeaders{nodeVersion: []byte(cfg.PackageVersion)},
		limits:  limits,
		info:    map[*ledger.Graph][]byte{},
	}
	for _, e := range cfg.Version.Graphs {
		s.info[e.Graph] = s.infoJSON(e.Graph)
	}
	routes(s)
	s.router.pickHot(hotPattern)
	if cfg.Requests != nil {
		s.attachRequestStats(cmp.Or(cfg.RequestsAPI, "service"), cfg.Requests)
	}
	s.server = &fasthttp.Server{
		Handler:       s.Handler(),
		ErrorHandler:  s.requestError,
		ExpectHandler: s.expectContinue,
		Logger:        httpkit.Logger{L: s.log},

		ReadBufferSize:     httpkit.ReadBufferSize,
		MaxRequestBodySize: cfg.MaxBodyBytes,
		ReadTimeout:        httpkit.ReadTimeout,
		IdleTimeout:        httpkit.IdleTimeout,
		// WriteTimeout stays 0: a positive one ends server-sent event streams after that long.

		NoDefaultServerHeader: true,
		// Every response sets its own Content-Type; bodiless errors carry none, as upstream's.
		NoDefaultContentType:         true,
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		ReduceMemoryUsage:            false, // keep per-connection buffers: throughput over RSS
	}
	return s
}

// routes registers the service API. Literal routes come before captures at the same depth.
func (s *Service) routes() {
	r := s.router
	r.handle(fasthttp.MethodGet, "/health-check", s.healthCheck)
	r.handle(fasthttp.MethodGet, "/info", s.getInfo)
	if s.cfg.Cut != nil {
		r.handle(fasthttp.MethodGet, "cut", s.getCut)
	}

	if s.cfg.Updates != nil {
		r.handle(fasthttp.MethodGet, "header/updates", s.getUpdates(false))
		r.handle(fasthttp.MethodGet, "block/updates", s.getUpdates(true))
	}

	r.handle(fasthttp.MethodGet, "chain/{chain}/hash", s.getList(listHashes))
	r.handle(fasthttp.MethodPost, "chain/{chain}/hash/branch", s.postBranch(listHashes))
	r.handle(fasthttp.MethodGet, "chain/{chain}/header", s.getList(listHeaders))
	r.handle(fasthttp.MethodPost, "chain/{chain}/header/branch", s.postBranch(listHeaders))
	r.handle(fasthttp.MethodGet, "chain/{chain}/header/{blockHash}", s.getHeader)
	r.handle(fasthttp.MethodGet, "chain/{chain}/block", s.getList(listBlocks))
	r.handle(fasthttp.MethodPost, "chain/{chain}/block/branch", s.postBranch(listBlocks))

	r.handle(fasthttp.MethodPost, "chain/{chain}/payload/batch", s.postPayloadBatch(false))
	r.handle(fasthttp.MethodPost, "chain/{chain}/payload/outputs/batch", s.postPayloadBatch(true))
	r.handle(fasthttp.MethodGet, "chain/{chain}/payload/{payloadHash}", s.getPayload(false))
	r.handle(fasthttp.MethodGet, "chain/{chain}/payload/{payloadHash}/outputs", s.getPayload(true))

	if s.cfg.Contract != nil {
		s.contract = contracthttp.NewContract(contracthttp.ContractConfig{
			API: s.cfg.Contract, MaxBodyBytes: s.cfg.MaxBodyBytes, ListenTimeout: s.cfg.ListenTimeout,
			Unavailable: func(err error) (contracthttp.Refusal, bool) { return unavailable(err, s.log) },
			Logger:      s.log,
		})
		for _, prefix := range []string{"chain/{chain}/pact/api/v1/", "chain/{chain}/contract/api/v1/"} {
			for _, op := range s.contract.Ops() {
				r.handle(fasthttp.MethodPost, prefix+op.Name, onChain(op.Serve))
			}
		}
		r.handle(fasthttp.MethodPost, "chain/{chain}/pact/spv", onChain(s.contract.BareSPV))
	}

	if s.cfg.Transfers != nil {
		r.handle(fasthttp.MethodGet, "account/{account}/transfers", s.getTransfers)
	}
	if s.cfg.Continuations != nil {
		r.handle(fasthttp.MethodGet, "chain/{chain}/pact/{pactIdHash}/continuations", s.getContinuations)
	}

	if s.cfg.Explorer != nil {
		r.handle(fasthttp.MethodGet, "/", serveExplorerFile("index.html"))
		r.handle(fasthttp.MethodGet, "/explorer/app.js", serveExplorerFile("app.js"))
		r.handle(fasthttp.MethodGet, "/explorer/style.css", serveExplorerFile("style.css"))
		r.handle(fasthttp.MethodGet, "/explorer/status", s.explorerStatus)
		r.handle(fasthttp.MethodGet, "/explorer/block/{blockHash}", s.explorerBlock)
	}

	if s.cfg.MakeBlocks != nil {
		r.handle(fasthttp.MethodPost, "/make-blocks", func(ctx *fasthttp.RequestCtx, _ params) { makeBlocks(ctx, s.cfg.MakeBlocks) })
	}

	if s.cfg.Mining != nil {
		s.miningRoutes()
	}

	if s.cfg.Backup != nil {
		r.handle(fasthttp.MethodPost, "make-backup", s.makeBackup)
		r.handle(fasthttp.MethodGet, "check-backup/{backupId}", s.checkBackup)
	}

	if s.cfg.Metrics != nil {
		metrics := s.cfg.Metrics
		r.handle(fasthttp.MethodGet, s.cfg.MetricsPath, func(ctx *fasthttp.RequestCtx, _ params) { metrics(ctx) })
	}
}

// Handler returns the request handler, for embedding the API in another fasthttp server or
// serving it in tests. Serve uses the same handler with the tuned server around it.
func (s *Service) Handler() fasthttp.RequestHandler { return s.serve }

// Serve serves the API on ln until Shutdown. It returns nil after a Shutdown, also when the
// Shutdown came first (then it closes ln and returns at once).
func (s *Service) Serve(ln net.Listener) error {
	s.lnMu.Lock()
	if s.stopped {
		s.lnMu.Unlock()
		ln.Close()
		return nil
	}
	s.listeners = append(s.listeners, ln)
	s.lnMu.Unlock()
	// A guarded listener's connections have lazy read deadlines (deadline.go) already.
	g, guarded := ln.(*connguard.GuardedListener)
	if !guarded {
		ln = connguard.LazyDeadlineListener{Listener: ln}
	}
	if s.tls != nil {
		// A guarded listener does TLS itself, under its connection limits.
		if guarded {
			g.SetTLS(s.tls)
		} else {
			ln = tls.NewListener(ln, s.tls)
		}
	}
	err := s.server.Serve(ln)
	if errors.Is(err, net.ErrClosed) || s.isStopped() {
		return nil
	}
	return err
}

// Shutdown stops accepting connections and waits for open requests until ctx ends. fasthttp
// only closes listeners whose Serve has already begun; closing every listener handed to Serve
// here as well means a Serve racing a Shutdown cannot go on serving forever.
func (s *Service) Shutdown(ctx context.Context) error {
	s.lnMu.Lock()
	s.stopped = true
	lns := s.listeners
	s.listeners = nil
	s.lnMu.Unlock()
	if s.contract != nil {
		s.contract.Shutdown() // waiting listens answer 503 instead of holding the shutdown up
	}
	err := s.server.ShutdownWithContext(ctx)
	for _, ln := range lns {
		ln.Close()
	}
	return err
}

// InternalErrors counts the 500 answers so far (panics, store and backend failures). Bad input
// must never produce one; tests assert it stays zero.
func (s *Service) InternalErrors() int64 {
	n := s.internalErrors.Load()
	if s.contract != nil {
		n += s.contract.InternalErrors()
	}
	return n
}

func (s *Service) isStopped() bool {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	return s.stopped
}

// onChain mounts a contract endpoint's handler, which takes the chain alone, on the router.
func onChain(h func(*fasthttp.RequestCtx, ledger.ChainID)) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) { h(ctx, p.chain) }
}
