package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ledgernode/ledger-node/internal/yamlerr"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/repl"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/transport/connguard"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
	"github.com/ledgernode/ledger-node/txexec"
)

// pact -s CONFIG (also --server, --serve): the HTTP server of spec §2 on
// 127.0.0.1:PORT, until SIGINT or SIGTERM.
//
// The configuration is YAML; every key but port is optional, an unknown
// key or a value of the wrong type is an error (exit 2):
//
//	port           TCP port (required; 0 picks a free one)
//	persistDir     keep the Pact state and the results here (goleveldb);
//	               without it everything is in memory
//	logDir         write the access log to <logDir>/pact-server.log
//	               (default: standard output)
//	pragmas        SQLite pragmas: accepted and ignored (the storage is
//	               goleveldb), with a note in the log
//	entity         this server's entity name for private commands
//	               (default "entity")
//	entitySecret   this entity's nacl/box secret key, 64 hex digits
//	               (default: <persistDir>/entity.key, created on first
//	               start, or a fresh key per start without persistDir)
//	entities       the other entities: NAME: {publicKey: HEX, url: URL}
//	gasLimit       gas limit of commands without public meta (private
//	               commands); others use their own gasLimit (default 0)
//	gasRate        gas per metered operation (default 0: free)
//	evalBudget     work a command may do, with or without a gas rate,
//	               in gas as Pact 5's table model prices it, all its
//	               top-level forms together (default 1000000, some seven
//	               block gas limits); past it the command fails with
//	               "Evaluation budget exceeded"
//	maxElements    list elements enumerate, make-list and str-to-list may
//	               build in one top-level form, whatever the gas (default
//	               2000000)
//	maxResultSize  bytes of JSON a command's value, events and
//	               continuation may take (default 1048576); past it the
//	               command fails and its writes are rolled back
//	timeLimit      wall-clock time of a command, a Go duration such as 30s
//	               (default 12.5 µs per gas of evalBudget, 12.5s): Pact 5
//	               prices some natives far below their cost, so the budget
//	               alone does not bound the time; past it the command
//	               stops, fails and its writes are rolled back
//	flags          execution flags, as env-exec-config takes them
//	execConfig     the same as flags (P5's name for it)
//	listenTimeout  seconds a listen waits before answering 504 (default 180)
//	maxConnections connections kept open at once; more are closed at once
//	               (default: the descriptor limit less what the store and
//	               logs need, at most 16384)
//	verbose        log at debug level (default false)
//	preloadDevContracts
//	               load the project's development contracts at start, as
//	               a node's chain 0 has them: coin, fungible-v2,
//	               fungible-xchain-v1, gas-payer-v1, ns and its namespaces,
//	               util.guards, the development accounts (sender00...)
//	               and their balances (default false: an empty state, as
//	               P5's server; a command naming one of those modules then
//	               gets this key in its error). Skipped when the state
//	               has coin already (a persistDir loaded before)
//
// The server logs (on standard error) the address it listens on and its
// entity's public box key.

// serverConfig is the decoded configuration.
type serverConfig struct {
	Port          *int                    `yaml:"port"`
	PersistDir    string                  `yaml:"persistDir"`
	LogDir        string                  `yaml:"logDir"`
	Pragmas       []string                `yaml:"pragmas"`
	Entity        string                  `yaml:"entity"`
	EntitySecret  string                  `yaml:"entitySecret"`
	Entities      map[string]entityConfig `yaml:"entities"`
	GasLimit      uint64                  `yaml:"gasLimit"`
	GasRate       int64                   `yaml:"gasRate"`
	EvalBudget    *int64                  `yaml:"evalBudget"`
	MaxElements   *int64                  `yaml:"maxElements"`
	MaxResultSize *int64                  `yaml:"maxResultSize"`
	// TimeLimit is server.Config.TimeLimit, a Go duration ("30s").
	TimeLimit     *string  `yaml:"timeLimit"`
	Flags         []string `yaml:"flags"`
	ExecConfig    []string `yaml:"execConfig"`
	ListenTimeout *float64 `yaml:"listenTimeout"`
	// MaxConnections bounds the connections the server keeps open (ours; default: from the
	// descriptor limit, serverConnLimits).
	MaxConnections *int `yaml:"maxConnections"`
	Verbose        bool `yaml:"verbose"`
	// PreloadDevContracts is server.Config.DevContracts; its key is
	// server.DevContractsKey, which the hint of an unknown module names.
	PreloadDevContracts bool `yaml:"preloadDevContracts"`
}

type entityConfig struct {
	PublicKey string `yaml:"publicKey"`
	URL       string `yaml:"url"`
}

const serverConfigHelp = `Config file (pact -s CONFIG) is YAML with these keys (only port is required):
  port: INT             HTTP port on 127.0.0.1 (0: a free port)
  persistDir: DIR       keep state and results in DIR (default: in memory)
  logDir: DIR           access log in DIR/pact-server.log (default: stdout)
  pragmas: [..]         accepted, not applicable to this storage engine
  entity: NAME          entity name for private commands (default "entity")
  entitySecret: HEX     the entity's nacl/box secret key
  entities:             other entities: NAME: {publicKey: HEX, url: URL}
  gasLimit: INT         gas limit of commands without public meta
  gasRate: INT          gas per metered operation (default 0: free)
  evalBudget: GAS       work of a command, with or without a gas rate, priced
                        by the table gas model (default 1000000)
  maxElements: INT      list elements enumerate, make-list and str-to-list
                        may build per top-level form (default 2000000)
  maxResultSize: BYTES  JSON size of a command's result (default 1048576)
  timeLimit: DURATION   wall-clock time of a command, e.g. 30s (default 12.5 µs
                        per gas of evalBudget: 12.5s)
  flags: [FLAG..]       execution flags (also accepted as execConfig)
  listenTimeout: SECS   how long listen waits before 504 (default 180)
  maxConnections: INT   connections kept open at once; more are closed at once
                        (default: from the descriptor limit, at most 16384)
  verbose: BOOL         debug logging
  preloadDevContracts: BOOL
                        load coin, its interfaces, the namespaces and the
                        development accounts at start (default false)`

// parseServerConfig decodes and checks a configuration.
func parseServerConfig(data []byte) (*serverConfig, error) {
	var cfg serverConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the configuration is empty: port is required")
		}
		return nil, errors.New(yamlerr.Text(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("the configuration must be a single YAML document")
	}
	if cfg.Port == nil {
		return nil, errors.New("port is required")
	}
	if *cfg.Port < 0 || *cfg.Port > 65535 {
		return nil, fmt.Errorf("port %d is not a TCP port (0 to 65535)", *cfg.Port)
	}
	if cfg.GasRate < 0 {
		return nil, fmt.Errorf("gasRate %d is negative", cfg.GasRate)
	}
	// The bounds can be moved, not removed: a zero or negative value is a
	// mistake, not a way to run without them (DECISIONS.md, "pact server
	// gasLimit/gasRate": no command can exhaust the server).
	for _, b := range []struct {
		key string
		v   *int64
	}{{"evalBudget", cfg.EvalBudget}, {"maxElements", cfg.MaxElements}, {"maxResultSize", cfg.MaxResultSize}} {
		if b.v != nil && *b.v <= 0 {
			return nil, fmt.Errorf("%s must be positive, got %d", b.key, *b.v)
		}
	}
	if cfg.MaxConnections != nil && *cfg.MaxConnections <= 0 {
		return nil, fmt.Errorf("maxConnections must be positive, got %d", *cfg.MaxConnections)
	}
	if cfg.MaxResultSize != nil && *cfg.MaxResultSize > math.MaxInt32 {
		return nil, fmt.Errorf("maxResultSize %d is more than %d bytes", *cfg.MaxResultSize, math.MaxInt32)
	}
	if cfg.TimeLimit != nil {
		d, err := time.ParseDuration(*cfg.TimeLimit)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("timeLimit must be a positive duration such as 30s, got %q", *cfg.TimeLimit)
		}
	}
	if cfg.ListenTimeout != nil && !(*cfg.ListenTimeout > 0 && *cfg.ListenTimeout <= 86400) {
		return nil, fmt.Errorf("listenTimeout must be a number of seconds between 0 and 86400, got %v", *cfg.ListenTimeout)
	}
	for _, f := range append(slices.Clone(cfg.Flags), cfg.ExecConfig...) {
		if !slices.Contains(repl.ExecFlags, f) {
			return nil, fmt.Errorf("unknown execution flag %q (known: %s)", f, strings.Join(repl.ExecFlags, ", "))
		}
	}
	if cfg.EntitySecret != "" {
		if _, err := server.ParseBoxKey(cfg.EntitySecret); err != nil {
			return nil, fmt.Errorf("entitySecret: %v", err)
		}
	}
	for name, e := range cfg.Entities {
		if name == "" {
			return nil, errors.New("entities: an entity needs a name")
		}
		if _, err := server.ParseBoxKey(e.PublicKey); err != nil {
			return nil, fmt.Errorf("entities.%s.publicKey: %v", name, err)
		}
		if e.URL != "" && !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
			return nil, fmt.Errorf("entities.%s.url: want http://HOST:PORT, got %q", name, e.URL)
		}
	}
	return &cfg, nil
}

// engineConfig turns the configuration into the engine's.
func (c *serverConfig) engineConfig(log *slog.Logger) server.Config {
	ec := server.Config{
		PersistDir: c.PersistDir,
		GasRate:    c.GasRate,
		GasLimit:   c.GasLimit,
		Flags:      append(slices.Clone(c.Flags), c.ExecConfig...),
		Entity:     c.Entity,
		Entities:   map[string]server.Entity{},
		Logger:     log,
	}
	if c.PreloadDevContracts {
		ec.DevContracts = func(st db.DB) error { return txexec.RunDevelopmentGenesis(st, "0", "development") }
	}
	if c.EvalBudget != nil {
		ec.EvalBudget = uint64(*c.EvalBudget)
	}
	if c.MaxElements != nil {
		ec.MaxElements = *c.MaxElements
	}
	if c.MaxResultSize != nil {
		ec.MaxResultSize = int(*c.MaxResultSize)
	}
	if c.TimeLimit != nil {
		ec.TimeLimit, _ = time.ParseDuration(*c.TimeLimit)
	}
	if c.EntitySecret != "" {
		k, _ := server.ParseBoxKey(c.EntitySecret)
		ec.EntitySecret = &k
	}
	urls := map[string]string{}
	for name, e := range c.Entities {
		pk, _ := server.ParseBoxKey(e.PublicKey)
		ec.Entities[name] = server.Entity{PublicKey: pk, URL: e.URL}
		if e.URL != "" {
			urls[name] = e.URL
		}
	}
	if len(urls) > 0 {
		ec.Deliver = contracthttp.PrivateDeliverer(urls, 10*time.Second)
	}
	return ec
}

// Hooks for tests: the context whose end stops the server, and a callback
// told the address once the server listens.
var (
	serverContext = func() (context.Context, context.CancelFunc) {
		return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	}
	serverListening = func(addr string) {}
)

func runServer(inv *invocation) int {
	data, err := os.ReadFile(inv.arg)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitUsage
	}
	cfg, err := parseServerConfig(data)
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %s: %v\n\n%s\n", inv.arg, err, serverConfigHelp)
		return exitUsage
	}
	level := slog.LevelInfo
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(inv.stderr, &slog.HandlerOptions{Level: level}))

	var access io.Writer = inv.stdout
	if cfg.LogDir != "" {
		if err := os.MkdirAll(cfg.LogDir, 0o755); err != nil {
			fmt.Fprintf(inv.stderr, "pact: logDir: %v\n", err)
			return exitFail
		}
		f, err := os.OpenFile(filepath.Join(cfg.LogDir, "pact-server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(inv.stderr, "pact: logDir: %v\n", err)
			return exitFail
		}
		defer f.Close()
		access = f
	}
	if len(cfg.Pragmas) > 0 {
		log.Info("pragmas are SQLite settings and do not apply to this server's storage engine (goleveldb); ignored",
			"pragmas", cfg.Pragmas)
	}

	engine, err := server.Open(cfg.engineConfig(log))
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	defer engine.Close()
	pub := engine.EntityPublicKey()
	log.Info("pact server entity", "entity", engine.EntityName(), "publicKey", hex.EncodeToString(pub[:]))
	budget, elements, resultSize, timeLimit := engine.Bounds()
	log.Info("pact server bounds", "gasRate", cfg.GasRate, "evalBudget", budget, "maxElements", elements,
		"maxResultSize", resultSize, "timeLimit", timeLimit)

	var timeout time.Duration
	if cfg.ListenTimeout != nil {
		timeout = time.Duration(*cfg.ListenTimeout * float64(time.Second))
	}
	srv := contracthttp.NewContractServer(contracthttp.ContractServerConfig{
		API:           engine,
		Version:       "pact version " + repl.Version,
		ListenTimeout: timeout,
		Unavailable:   damagedPersistence(cfg.PersistDir),
		AccessLog:     access,
		Logger:        log,
	})
	bound, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(*cfg.Port)))
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	limits := serverConnLimits(cfg, connguard.DescriptorLimit())
	log.Info("pact server connection limit", "maxConnections", limits.Max)
	ln := connguard.GuardListener(bound, limits, "pact server", log)
	ctx, stop := serverContext()
	defer stop()
	addr := ln.Addr().String()
	log.Info("pact server listening", "addr", addr, "persistDir", cfg.PersistDir)
	serverListening(addr)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
		log.Info("pact server shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
		if serr := <-served; err == nil {
			err = serr
		}
	}
	if cerr := engine.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(inv.stderr, "pact: %v\n", err)
		return exitFail
	}
	return exitOK
}

// serverConnLimits are the server's connection limits for a process allowed nofile descriptors
// (0: unknown): maxConnections when set, else what is left of them once the store (goleveldb's
// table files, when persistDir is set) and the logs have theirs. The server listens on
// 127.0.0.1 only, so every client shares the loopback address and only the global limit counts.
// Without a limit, a few hundred idle connections used up the descriptors and the server exited.
func serverConnLimits(cfg *serverConfig, nofile int) connguard.ConnLimits {
	if cfg.MaxConnections != nil {
		return connguard.ConnLimits{Max: *cfg.MaxConnections}
	}
	reserve := 64
	if cfg.PersistDir != "" {
		// goleveldb keeps up to 500 table files open; a server's store rarely has many.
		reserve += min(500, max(nofile, 256)/4)
	}
	l := connguard.AutoConnLimits(nofile, reserve, 1)[0]
	return connguard.ConnLimits{Max: l.Max}
}

// damagedPersistence is the server's contracthttp Unavailable: a request that met damaged data
// in persistDir is answered 503 with what to do, as a node answers damaged data, not 500 (no
// bug of the server's, no fault of the request).
func damagedPersistence(dir string) func(error) (contracthttp.Refusal, bool) {
	return func(err error) (contracthttp.Refusal, bool) {
		if !errors.Is(err, kv.ErrCorrupt) {
			return contracthttp.Refusal{}, false
		}
		return contracthttp.Refusal{RetryAfter: "3600", Text: "The server's persistDir (" + dir + ") is damaged where " +
			"this request reads; stop the server and restore the directory from a copy, or start with an empty one."}, true
	}
}
