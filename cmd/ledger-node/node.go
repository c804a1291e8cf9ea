package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport"
)

// packageVersion is the node software version, reported by /info and the version headers.
const packageVersion = "0.1.0"

// node is a running node: its store, its current cut and its service API.
type node struct {
	cfg     Config
	version *ledger.Version
	log     *slog.Logger
	db      *store.DB
	cut     atomic.Pointer[ledger.Cut]
	svc     *transport.Service
	ln      net.Listener
}

// openNode opens (or creates) the data directory, writes the genesis blocks the first time,
// loads the stored cut and binds the service port. It does not serve yet.
func openNode(cfg Config, log *slog.Logger) (*node, error) {
	db, v, err := openInitializedStore(cfg, log)
	if err != nil {
		return nil, err
	}
	n := &node{cfg: cfg, version: v, log: log, db: db}
	heads, err := db.Heads()
	if err == nil {
		err = n.loadCut(heads)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	n.svc = transport.NewService(transport.ServiceConfig{
		Version:           v,
		Store:             db,
		Cut:               n.cut.Load,
		PackageVersion:    packageVersion,
		ServiceDate:       cfg.NodeServiceDate,
		PayloadBatchLimit: cfg.ServiceAPI.PayloadBatchLimit,
		Logger:            log,
	})
	n.ln, err = net.Listen("tcp", cfg.serviceAddr())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("service API: %w", err)
	}
	return n, nil
}

// init checks that the directory belongs to this network and writes the genesis blocks and heads
// when the directory is new.
func (n *node) init() error {
	if err := n.db.CheckVersion(n.version.Name); err != nil {
		return err
	}
	heads, err := n.db.Heads()
	if err != nil {
		return fmt.Errorf("read heads: %w", err)
	}
	if len(heads) == 0 {
		if heads, err = n.writeGenesis(); err != nil {
			return fmt.Errorf("write genesis: %w", err)
		}
		if len(heads) > 0 {
			n.log.Info("wrote genesis blocks", "network", n.version.Name, "chains", len(heads))
		}
	}
	return nil
}

// writeGenesis stores every chain's genesis block and makes them the heads. Our development
// network (and test-singleton) has its own genesis payload (DECISIONS.md). The upstream networks
// keep upstream's genesis payloads, which this node does not carry: their data directories hold
// only what is imported, so nothing is written for them.
func (n *node) writeGenesis() (map[ledger.ChainID]ledger.Hash, error) {
	heads := map[ledger.ChainID]ledger.Hash{}
	if _, upstream := n.version.UpstreamGenesisPayloadHash(0); upstream && n.version != ledger.Development {
		return heads, nil
	}
	p := ledger.EmptyGenesisPayload()
	if err := n.db.PutPayload(p); err != nil {
		return nil, err
	}
	var headers []*ledger.Header
	for _, c := range n.version.Chains() {
		h := ledger.GenesisHeader(n.version, c, p.PayloadHash)
		headers = append(headers, h)
		heads[c] = h.Hash
	}
	if err := n.db.PutHeaders(headers...); err != nil {
		return nil, err
	}
	return heads, n.db.SetHeads(heads)
}

// loadCut makes the stored heads the current cut. A chain without a stored head (an upstream
// network with nothing imported for it) is left out.
func (n *node) loadCut(heads map[ledger.ChainID]ledger.Hash) error {
	var hs []*ledger.Header
	for _, c := range n.version.Chains() {
		hash, ok := heads[c]
		if !ok {
			continue
		}
		h, err := n.db.Header(hash)
		if err != nil {
			return fmt.Errorf("head of chain %d (%s): %w", c, hash, err)
		}
		hs = append(hs, h)
	}
	n.cut.Store(ledger.NewCut(n.version, hs))
	return nil
}

// serve runs the service API until ctx ends, then shuts down gracefully.
func (n *node) serve(ctx context.Context, out io.Writer) error {
	fmt.Fprintf(out, "ledger-node %s: network %s, data in %s\n", packageVersion, n.version.Name, n.cfg.DataDir)
	fmt.Fprintf(out, "service API on http://%s/chainweb/0.0/%s/ (try /info, /health-check, /chainweb/0.0/%s/cut)\n",
		n.ln.Addr(), n.version.Name, n.version.Name)
	errc := make(chan error, 1)
	go func() { errc <- n.svc.Serve(n.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	n.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.svc.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		n.log.Warn("service shutdown", "err", err)
	}
	return nil
}

// close releases the database.
func (n *node) close() error {
	if n.ln != nil {
		n.ln.Close()
	}
	return n.db.Close()
}
