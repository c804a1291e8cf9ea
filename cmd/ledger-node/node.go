package main

import (
	"cmp"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/actors/mining"
	"github.com/ledgernode/ledger-node/actors/peersync"
	"github.com/ledgernode/ledger-node/explorer"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/private"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/store/backup"
	"github.com/ledgernode/ledger-node/transport"
	"github.com/ledgernode/ledger-node/transport/connguard"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
	"github.com/ledgernode/ledger-node/txexec"
)

// packageVersion is the node software version, reported by /info and the version headers.
const packageVersion = "0.1.0"

// updatesWindow is how many recent blocks the update streams can replay to a client resuming
// with Last-Event-ID (DECISIONS.md).
const updatesWindow = 1024

// defaultStatusEvery is how often a running node prints its status line.
const defaultStatusEvery = 5 * time.Second

// nodeOptions are wiring knobs that are not user configuration; tests set them.
type nodeOptions struct {
	// genesisTarget replaces the development network's derived genesis target, so that tests
	// mine many blocks per second even under the race detector.
	genesisTarget *ledger.U256
	workers       int           // miner goroutines; 0 = one per core
	statusEvery   time.Duration // 0 = defaultStatusEvery
	// syncWindow replaces the catch-up window (peersync.DefaultWindow blocks), so that tests
	// cross several windows with few blocks.
	syncWindow int
	// backupProgress is passed to the backup jobs (backup.Config.Progress); tests hold a
	// job running with it.
	backupProgress func(id string, st store.BackupStats)
	// wrapPeer, when set, wraps the client of each peer: tests count what a peer is asked and
	// make one misbehave.
	wrapPeer func(addr string, p peersync.Peer) peersync.Peer
	// peerKey makes the key of the peer API's certificate at the first start (nil: upstream's
	// RSA-4096, transport.GeneratePeerKey); tests make cheaper ones.
	peerKey func() (crypto.Signer, error)
}

// node is a running node: its store, actors, update hub and service API.
type node struct {
	cfg     Config
	opts    nodeOptions
	version *ledger.Version
	log     *slog.Logger
	db      *store.DB
	genesis []*ledger.Header // by chain id; nil on networks whose genesis this node does not write
	// runner executes Pact on the networks whose genesis this node writes; nil elsewhere.
	runner *txexec.Runner
	// priv serves private commands where runner is set.
	priv *private.Chains
	hub  *actors.UpdatesHub
	rt   *actors.Runtime
	svc  *transport.Service
	ln   net.Listener
	// The peer API and peer sync, on the networks that execute Pact (a block from a peer is
	// validated by executing it).
	peerSvc *transport.Service
	peerLn  net.Listener
	syncer  *peersync.Syncer
	// peerCert is the peer API's certificate, peerID its fingerprint (the node's peer id),
	// peerHost the host the node announces to its peers.
	peerCert *transport.PeerCertificate
	peerID   string
	peerHost string
	// makeBlocksLn serves POST /make-blocks alone (mining.onDemand.port); nil without it.
	makeBlocksLn  net.Listener
	makeBlocksSrv *fasthttp.Server

	// backups runs the backup API's jobs; nil when the API is off.
	backups *backup.Jobs
	// miner is the built-in miner; nil when mining is off.
	miner *mining.Miner
	// coord is the mining API's coordinator (miningapi.go); nil when the API is off.
	coord *mining.Coordinator
	// requests counts the API requests for the metrics; nil without metrics (metrics.go).
	requests *transport.RequestStats
	// budget shares out the process's file descriptors; guarded are the listeners under its
	// connection limits (limits.go).
	budget  descriptorBudget
	guarded []namedListener
}

// openNode binds the service port (and the peer port), then opens (or creates) the data
// directory, writes the genesis blocks the first time, resumes the stored cut and starts the
// actors (and the miner). It does not serve yet.
func openNode(cfg Config, log *slog.Logger) (*node, error) {
	return openNodeWith(cfg, log, nodeOptions{})
}

func openNodeWith(cfg Config, log *slog.Logger, opts nodeOptions) (*node, error) {
	// The ports come first: a node that cannot serve must not create a data directory, write
	// genesis into it (binding it to this block delay) or start mining before it finds out.
	v := nodeVersion(cfg, opts.genesisTarget)
	ln, peerLn, err := bindPorts(&cfg, v)
	if err != nil {
		return nil, err
	}
	var mbLn net.Listener
	if cfg.Mining.Mode == "on-demand" && cfg.Mining.OnDemand.Port != 0 {
		addr := net.JoinHostPort(cfg.Mining.OnDemand.Interface, fmt.Sprint(cfg.Mining.OnDemand.Port))
		if mbLn, err = net.Listen("tcp", addr); err != nil {
			err = fmt.Errorf("make-blocks: cannot listen on %s (--on-demand-port, YAML mining.onDemand.port): %w", addr, err)
		}
	}
	budget := newDescriptorBudget(&cfg, connguard.DescriptorLimit(), peerLn != nil)
	var n *node
	if err == nil {
		n, err = initStore(cfg, v, log, budget.levelDB)
	}
	if err != nil {
		for _, l := range []net.Listener{ln, peerLn, mbLn} {
			if l != nil {
				l.Close()
			}
		}
		return nil, err
	}
	n.opts, n.budget = opts, budget
	if peerLn != nil {
		// The certificate before anything runs: making one (an RSA-4096 key) takes a second
		// or more, which must not pass with the miner already at work.
		n.peerHost = peerHost(cfg.P2P, peerLn.Addr().(*net.TCPAddr).IP)
		if n.peerCert, err = n.peerCertificate(n.peerHost, opts.peerKey); err != nil {
			n.close()
			for _, l := range []net.Listener{ln, peerLn, mbLn} {
				if l != nil {
					l.Close()
				}
			}
			return nil, err
		}
	}
	n.ln = guard(ln, budget.service, "service", n)
	n.peerLn = guard(peerLn, budget.peer, "peer", n)
	n.makeBlocksLn = guard(mbLn, budget.makeBlock, "make-blocks", n)
	log.Info("connection limits", "budget", budget.String())
	if cfg.Backup.API.Enabled {
		// Before anything starts: an unusable backup directory is a configuration error to
		// report at once, not at the first backup.
		n.backups, err = backup.Open(n.db, backup.Config{Dir: cfg.Backup.Directory, Logger: log, Keep: cfg.Backup.Keep,
			Progress: opts.backupProgress})
		if err != nil {
			n.close()
			return nil, err
		}
	}
	n.hub = actors.NewUpdatesHub(updatesWindow)
	var miner *mining.Config
	switch cfg.Mining.Mode {
	case "pow":
		miner = &mining.Config{MinerData: cfg.Mining.minerData(), Workers: opts.workers}
	case "on-demand":
		od := cfg.Mining.OnDemand
		miner = &mining.Config{MinerData: cfg.Mining.minerData(), Workers: opts.workers,
			OnDemand:    &mining.OnDemandConfig{ConfirmationDepth: uint64(od.ConfirmationDepth), IdlePeriod: od.IdlePeriod},
			StartBlocks: uint64(od.StartBlocks)}
	}
	var exec *actors.ExecutionConfig
	if n.runner != nil {
		pool := mempool.DefaultConfig()
		pool.BlockGasLimit = cfg.Execution.BlockGasLimit
		exec = &actors.ExecutionConfig{Runner: n.runner, MinerData: cfg.Mining.minerData(),
			Mempool:             actors.MempoolConfig{Logger: log, Pool: &pool},
			MaxBlockOutputBytes: cfg.Execution.MaxBlockOutputBytes,
			EvalSlots:           actors.NewEvalSlots(cfg.Execution.EvalSlots, cfg.Execution.EvalWait)}
	}
	n.rt, err = actors.Start(actors.Config{
		Version: n.version, Store: n.db, Genesis: n.genesis, Updates: n.hub,
		Execution: exec, Logger: log,
	})
	if err != nil {
		n.close()
		return nil, fmt.Errorf("resume the stored cut: %w", err)
	}
	if miner != nil {
		n.miner = mining.Start(n.rt, *miner) // n.rt.Stop stops it
	}
	scfg := transport.ServiceConfig{
		Version:           n.version,
		Store:             n.db,
		Cut:               n.rt.Cut,
		PackageVersion:    packageVersion,
		ServiceDate:       cfg.NodeServiceDate,
		PayloadBatchLimit: cfg.ServiceAPI.PayloadBatchLimit,
		Logger:            log,
	}
	if cfg.ServiceAPI.HeaderStream {
		scfg.Updates = n.hub
	}
	if n.backups != nil {
		scfg.Backup = n.backups
	}
	scfg.MakeBlocks = n.miner.MakeBlocks // a 404 with the reason unless mining on demand (nil miner too)
	if cfg.ServiceAPI.Explorer {
		scfg.Explorer = n.explorerStatus
	}
	scfg.Mining = n.startMiningAPI()
	if n.runner != nil {
		if n.priv, err = private.Open(privateConfig(cfg, n.version.Name, log)); err != nil {
			n.close()
			return nil, err
		}
		rt, priv := n.rt, n.priv
		scfg.Contract = func(c ledger.ChainID) contracthttp.API {
			cc, _ := rt.Contract(c) // every chain of the version has one
			return priv.Contract(c, cc, rt.EvalSlots())
		}
		scfg.Transfers = rt // the index of transfers by account, read from the Pact states
		scfg.Continuations = rt
	}
	n.wireMetrics(&scfg)
	n.svc = transport.NewService(scfg)
	if n.runner != nil {
		if err := n.startPeers(); err != nil {
			n.close()
			return nil, err
		}
	}
	// The answers the listeners write themselves carry the APIs' common headers too.
	for _, g := range n.guarded {
		switch {
		case g.api == "service":
			g.ln.SetHeaders(n.svc.AppendCommonHeaders)
		case g.api == "peer" && n.peerSvc != nil:
			g.ln.SetHeaders(n.peerSvc.AppendCommonHeaders)
		}
	}
	return n, nil
}

// explorerStatus is what the explorer page shows beyond the public API.
func (n *node) explorerStatus() explorer.Status {
	st := explorer.Status{Mining: n.cfg.Mining.Mode, ProofOfWork: !n.version.DisablePow, Mined: n.rt.Stats().Mined,
		Pending: map[string]int{}}
	for _, c := range n.version.Chains() {
		x, ok := n.rt.Executor(c)
		if !ok {
			continue
		}
		keys := x.PendingKeys()
		st.Pending[fmt.Sprint(c)] = len(keys)
		for _, k := range keys {
			if len(st.PendingKeys) == explorer.MaxPendingKeys {
				break
			}
			st.PendingKeys = append(st.PendingKeys, explorer.PendingTx{Chain: fmt.Sprint(c), ReqKey: k.String()})
		}
	}
	if n.syncer != nil {
		st.Peers = n.syncer.Peers()
	}
	return st
}

// privateConfig is the private commands' configuration: their state in <dataDir>/private, the
// keys of cfg.Private (Config.finish checked them).
func privateConfig(cfg Config, network string, log *slog.Logger) private.Config {
	pc := private.Config{Dir: filepath.Join(cfg.DataDir, "private"), Network: network, Entity: cfg.Private.Entity,
		Entities: map[string]server.Entity{}, Logger: log}
	for name, e := range cfg.Private.Entities {
		pk, _ := server.ParseBoxKey(e.PublicKey)
		pc.Entities[name] = server.Entity{PublicKey: pk, URL: e.URL}
	}
	if cfg.Private.EntitySecret != "" {
		secret, _ := server.ParseBoxKey(cfg.Private.EntitySecret)
		pc.EntitySecret = &secret
	}
	return pc
}

// bindPorts listens on the service port and, on the networks that run the peer API (those
// whose genesis this node writes, see actors.MakeGenesis), on the peer port. The error names the port
// and the option that sets it.
func bindPorts(cfg *Config, v *ledger.Version) (service, peer net.Listener, err error) {
	service, err = net.Listen("tcp", cfg.serviceAddr())
	if err != nil {
		return nil, nil, fmt.Errorf("service API: cannot listen on %s (--service-port, YAML serviceApi.port): %w", cfg.serviceAddr(), err)
	}
	if !actors.WritesGenesis(v) {
		return service, nil, nil
	}
	peer, err = net.Listen("tcp", cfg.p2pAddr())
	if err != nil {
		service.Close()
		return nil, nil, fmt.Errorf("peer API: cannot listen on %s (--p2p-port, YAML p2p.port): %w", cfg.p2pAddr(), err)
	}
	return service, peer, nil
}

// startPeers starts peer sync and the peer API, over HTTPS with the node's certificate, on the
// bound peer listener. A configured peer at an address that is never a peer's is a
// configuration error.
func (n *node) startPeers() error {
	self := n.peerLn.Addr().(*net.TCPAddr)
	// What this node announces: --p2p-hostname, else the bound address (peerHost).
	host, cert := n.peerHost, n.peerCert
	v, selfAddr := n.version, net.JoinHostPort(host, fmt.Sprint(self.Port))
	n.peerID = cert.ID
	// Peers others offer may be on loopback or private addresses only where this node is on
	// one itself (a network on one machine or a LAN), or the configuration says so; the
	// configured peers are the operator's choice and may always be.
	policy := &transport.AddressPolicy{AllowPrivate: n.cfg.P2P.AllowPrivatePeers || self.IP.IsLoopback() || self.IP.IsPrivate() ||
		privateHost(host), SelfPort: uint16(self.Port), Own: transport.LocalAddresses()}
	seedPolicy := *policy
	seedPolicy.AllowPrivate = true
	seeds := map[string]bool{}
	for _, s := range n.cfg.P2P.Peers {
		p, _ := transport.ParsePeerInfo(s) // Config.finish checked it
		if err := seedPolicy.Check(p.String()); err != nil {
			return fmt.Errorf("p2p.peers (--peer) %s: %w", s, err)
		}
		seeds[p.String()] = true
	}
	n.log.Info("peer API", "announced", selfAddr, "peerId", cert.ID, "listening", self.String())
	dial, seedDial := policy.Dialer(transport.DefaultPeerTimeout), seedPolicy.Dialer(transport.DefaultPeerTimeout)
	n.syncer = peersync.Start(n.rt, peersync.Config{
		Self:   selfAddr,
		SelfID: cert.ID,
		Seeds:  n.cfg.P2P.Peers,
		Policy: policy.Check,
		Dial: func(addr, id string) peersync.Peer {
			d := dial
			if seeds[addr] {
				d = seedDial
			}
			var p peersync.Peer = transport.NewPeerClient(addr, v, transport.PeerClientConfig{Dial: d, ID: id})
			if n.opts.wrapPeer != nil {
				p = n.opts.wrapPeer(addr, p)
			}
			return p
		},
		Window: n.opts.syncWindow,
		Logger: n.log,
	})
	n.peerSvc = transport.NewPeerService(transport.ServiceConfig{
		Version: v, Store: n.db, Cut: n.rt.Cut, PackageVersion: packageVersion, Logger: n.log,
		Requests: n.requests, RequestsAPI: "peer",
	}, transport.PeerConfig{Node: n.syncer, Config: chainwebConfigJSON(n.cfg, selfAddr), TLS: transport.PeerServerTLS(cert),
		Throttle: transport.Throttle{
			Global: n.cfg.P2P.Throttling.Global, PutPeer: n.cfg.P2P.Throttling.PutPeer, Mempool: n.cfg.P2P.Throttling.Mempool,
			Loopback: n.cfg.P2P.Throttling.Loopback}})
	return nil
}

// initStore opens the data directory for version v and initialises it (init).
func initStore(cfg Config, v *ledger.Version, log *slog.Logger, openFiles int) (*node, error) {
	db, err := store.Open(cfg.DataDir, store.Options{
		HeaderCacheSize: cfg.Store.HeaderCacheSize, BlockCacheMiB: cfg.Store.BlockCacheMiB, OpenFiles: openFiles,
	})
	if err != nil {
		return nil, fmt.Errorf("open database in %s: %w", cfg.DataDir, err)
	}
	n := &node{cfg: cfg, version: v, log: log, db: db}
	if err := n.init(); err != nil {
		db.Close()
		return nil, err
	}
	return n, nil
}

// init checks that the directory belongs to this network (and, on the development network, to
// this block delay) and writes the genesis blocks and heads when the directory is new.
func (n *node) init() error {
	if what, lost, err := n.db.LostMark(); err != nil {
		return err
	} else if lost {
		return fmt.Errorf("%w: a repair found data lost: %s", store.ErrDataLost, what)
	}
	if err := n.db.CheckVersion(n.version.Name); err != nil {
		return err
	}
	var g *actors.Genesis
	if actors.WritesGenesis(n.version) {
		n.runner = txexec.New(txexec.Config{LocalGasLimit: n.cfg.Execution.LocalGasLimit,
			LocalTimeLimit:    n.cfg.Execution.LocalTimeLimit,
			AllowReadsInLocal: n.cfg.Execution.AllowReadsInLocal,
			MaxResultBytes:    n.cfg.Execution.MaxResultBytes})
		var err error
		if g, err = actors.MakeGenesis(n.runner, n.version); err != nil {
			return err
		}
		n.genesis = g.Headers
	}
	err := actors.InitGenesis(n.db, g, n.log)
	if gm := (*actors.GenesisMismatchError)(nil); errors.As(err, &gm) {
		return genesisMismatch(n.cfg.DataDir, n.version, gm)
	}
	return err
}

// genesisMismatch says why a data directory's genesis blocks are not this node's, and what to
// do about it.
func genesisMismatch(dataDir string, v *ledger.Version, e *actors.GenesisMismatchError) error {
	if v.Name != ledger.Development.Name {
		return fmt.Errorf("data directory %s holds other genesis blocks than this build's %s network", dataDir, v.Name)
	}
	stored, g := e.Stored, e.Want
	if stored != nil && stored.Target == g.Target && stored.PayloadHash != g.PayloadHash {
		return fmt.Errorf("data directory %s was made by a ledger-node build with another development genesis "+
			"(genesis payload %s, this build's %s), whose Pact state cannot carry over; remove it or use another --data-dir",
			dataDir, stored.PayloadHash, g.PayloadHash)
	}
	msg := fmt.Sprintf("data directory %s was created with another block delay: its genesis blocks are not those of --block-delay %v",
		dataDir, time.Duration(v.BlockDelay)*time.Microsecond)
	if stored != nil {
		msg += fmt.Sprintf(" (they look like --block-delay %v)", pow.DevBlockDelayOf(stored.Target))
	}
	msg += "; start with the block delay it was created with (--block-delay, YAML mining.blockDelay) or use another --data-dir"
	// Earlier builds derived the genesis target without the first epoch's speed-up
	// (pow/devnet.go); a directory of theirs can look like one of this build's at a longer
	// delay, so both readings are given.
	if stored != nil {
		if d := pow.LegacyDevBlockDelayOf(stored.Target); d > 0 && pow.LegacyDevGenesisTarget(d) == stored.Target {
			msg += fmt.Sprintf(". If a ledger-node build from before the development network's first blocks got cheap made it "+
				"(--block-delay %v then), it cannot be used with this build: remove it or use another --data-dir", d)
		}
	}
	return errors.New(msg)
}

// serve runs the service API until ctx ends, then shuts down gracefully: mining stops, the actors
// finish what they hold, the heads are written, update streams close and the server drains.
func (n *node) serve(ctx context.Context, out io.Writer) error {
	// The start-up lines go to out (standard output), where scripts read the addresses, as
	// records in the log's format (logs.go).
	l := n.startLog(out)
	name := n.version.Name
	l.Info(fmt.Sprintf("ledger-node %s: network %s, data in %s", packageVersion, name, n.cfg.DataDir),
		"version", packageVersion, "network", name, "dataDir", n.cfg.DataDir)
	l.Info(fmt.Sprintf("service API on http://%s/chainweb/0.0/%s/ (try /info, /health-check, /chainweb/0.0/%s/cut)",
		n.ln.Addr(), name, name), "api", "service", "address", n.ln.Addr().String())
	if c := n.cfg.Mining.Coordination; c.Enabled {
		l.Info(fmt.Sprintf("mining API on http://%s/chainweb/0.0/%s/mining/ (work, solved, updates) for %d miner(s); built-in miner: %s",
			n.ln.Addr(), name, len(c.Miners), n.cfg.Mining.Mode), "api", "mining", "miners", len(c.Miners), "mining", n.cfg.Mining.Mode)
	}
	if n.cfg.ServiceAPI.Explorer {
		l.Info(fmt.Sprintf("explorer on http://%s/", n.ln.Addr()), "api", "explorer")
	}
	if n.cfg.ServiceAPI.MetricsPath != "" {
		l.Info(fmt.Sprintf("Prometheus metrics on http://%s%s", n.ln.Addr(), n.cfg.ServiceAPI.MetricsPath), "api", "metrics")
	}
	if n.backups != nil {
		l.Info(fmt.Sprintf("backup API on: POST .../make-backup, GET .../check-backup/{id}; backups go to %s", n.backups.Dir()),
			"api", "backup", "dir", n.backups.Dir())
	}
	switch n.cfg.Mining.Mode {
	case "pow":
		how := "with proof of work"
		if n.version.DisablePow {
			how = "without proof of work (--disable-pow), one block per chain per block delay"
		}
		delay := time.Duration(n.version.BlockDelay) * time.Microsecond
		l.Info(fmt.Sprintf("mining all %d chains %s, block delay %v", len(n.version.Chains()), how, delay),
			"mining", "pow", "proofOfWork", !n.version.DisablePow, "blockDelay", delay, "miner", json.RawMessage(n.cfg.Mining.minerData()))
	case "on-demand":
		od := n.cfg.Mining.OnDemand
		idle := "no idle blocks"
		if od.IdlePeriod > 0 {
			idle = fmt.Sprintf("a block after %v without one", od.IdlePeriod)
		}
		l.Info(fmt.Sprintf("mining on demand (POST /make-blocks {\"<chain>\": count}): %d blocks per chain at start, %d after a sent transaction's block, %s; proof of work %v",
			od.StartBlocks, od.ConfirmationDepth, idle, !n.version.DisablePow),
			"mining", "on-demand", "proofOfWork", !n.version.DisablePow, "miner", json.RawMessage(n.cfg.Mining.minerData()))
		if n.makeBlocksLn != nil {
			l.Info(fmt.Sprintf("make-blocks also on http://%s/make-blocks", n.makeBlocksLn.Addr()), "api", "make-blocks")
		}
	}
	if n.peerSvc != nil {
		l.Info(fmt.Sprintf("peer API on https://%s/chainweb/0.0/%s/ (peer id %s; peers: %s)", n.peerLn.Addr(), name, n.peerID,
			strings.Join(append([]string{}, n.cfg.P2P.Peers...), ", ")), "api", "peer", "address", n.peerLn.Addr().String(),
			"peers", len(n.cfg.P2P.Peers))
	}
	stopStatus := n.reportStatus()
	n.mineFirstBlocks(ctx, out)
	errc := make(chan error, 2)
	go func() { errc <- n.svc.Serve(n.ln) }()
	if n.peerSvc != nil {
		go func() { errc <- n.peerSvc.Serve(n.peerLn) }()
	}
	if n.makeBlocksLn != nil {
		n.makeBlocksSrv = &fasthttp.Server{Handler: transport.MakeBlocksHandler(n.miner.MakeBlocks), Name: "ledger-node",
			MaxRequestBodySize: transport.DefaultMaxBodyBytes, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
			Logger: printfLog{n.log}} // not fasthttp's default, plain text on stderr
		go func() { errc <- n.makeBlocksSrv.Serve(n.makeBlocksLn) }()
	}
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	stopStatus()
	n.log.Info("shutting down")
	n.stopMiningAPI()
	n.rt.Stop()
	n.hub.Close() // ends the update streams, so the server need not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if serr := n.svc.Shutdown(sctx); serr != nil && !errors.Is(serr, context.DeadlineExceeded) {
		n.log.Warn("service shutdown", "err", serr)
	}
	if n.peerSvc != nil {
		if serr := n.peerSvc.Shutdown(sctx); serr != nil && !errors.Is(serr, context.DeadlineExceeded) {
			n.log.Warn("peer API shutdown", "err", serr)
		}
	}
	if n.makeBlocksSrv != nil {
		n.makeBlocksSrv.ShutdownWithContext(sctx)
	}
	return err
}

// reportStatus logs a status line (message "status", at info) every few seconds until the
// returned stop is called: cut height, the lowest and highest chain, blocks that entered the cut
// per second, and, when the node mines with proof of work, the miner's hash rate over the
// interval.
func (n *node) reportStatus() (stop func()) {
	every := cmp.Or(n.opts.statusEvery, defaultStatusEvery)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		last, lastAt := n.rt.Stats(), time.Now()
		rate := func(d uint64, secs float64) float64 { return math.Round(float64(d)/secs*100) / 100 }
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				s := n.rt.Stats()
				secs := now.Sub(lastAt).Seconds()
				low, high := cutRange(n.rt.Cut())
				attrs := []any{"cutHeight", s.CutHeight, "lowestChain", low, "highestChain", high,
					"blocksPerSecond", rate(s.Entered-last.Entered, secs)}
				if n.cfg.Mining.Mode == "pow" {
					attrs = append(attrs, "megaHashesPerSecond", rate(s.Hashes-last.Hashes, secs*1e6))
				}
				if n.cfg.Mining.Mode != "off" {
					attrs = append(attrs, "mined", s.Mined)
				}
				if n.runner != nil {
					attrs = append(attrs, "txsPerSecond", rate(s.Transactions-last.Transactions, secs), "pending", s.Pending)
				}
				if wh := n.rt.WriteHealth(); wh.Failing {
					n.log.Error("status: WRITES FAILING, mining paused", append(attrs, "since", wh.Since.Format(time.TimeOnly), "err", wh.Err)...)
				} else {
					n.log.Info("status", attrs...)
				}
				last, lastAt = s, now
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
	}
}

// cutRange returns the lowest and highest chain heights of a cut.
func cutRange(c *ledger.Cut) (low, high uint64) {
	for i, e := range c.Entries {
		if i == 0 || e.Height < low {
			low = e.Height
		}
		high = max(high, e.Height)
	}
	return low, high
}

// close stops whatever serve did not (after a failed open, or when serve never ran) and
// releases the database.
func (n *node) close() error {
	if n.ln != nil {
		n.ln.Close()
	}
	if n.peerLn != nil {
		n.peerLn.Close()
	}
	if n.makeBlocksLn != nil {
		n.makeBlocksLn.Close()
	}
	n.stopMiningAPI()
	if n.rt != nil {
		n.rt.Stop()
	}
	if n.hub != nil {
		n.hub.Close()
	}
	if n.priv != nil {
		n.priv.Close()
	}
	if n.backups != nil {
		n.backups.Close() // a running job holds a snapshot of the store: it ends (failed) first
	}
	return n.db.Close()
}
