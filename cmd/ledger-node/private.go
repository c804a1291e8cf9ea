package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/nacl/box"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/transport"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// Private commands on the node (DECISIONS.md, "private"): a command with private metadata
// {"address": {"from": ENTITY, "to": [ENTITY...]}} sent to a chain's /private is executed by
// the entities it names and by no one else, and only they can read its result. As in Pact's
// original design it runs on a private Pact state of its own, apart from the chain's public
// state (which every node must agree on): one pact/server Engine per chain, kept in
// <dataDir>/private/<chain>, opened on the chain's first private command. The sending node
// seals the command with nacl/box for each recipient and posts the envelope to the recipients'
// nodes, at the same chain's /private; poll and listen on a chain answer private results too.

// privateChains holds the private engines of the node's chains.
type privateChains struct {
	dir      string
	network  string
	entity   string
	secret   [32]byte
	entities map[string]server.Entity
	log      *slog.Logger

	mu      sync.Mutex
	engines map[ledger.ChainID]*server.Engine
	closed  bool
}

// newPrivateChains reads (or makes) the entity key; engines open lazily.
func newPrivateChains(cfg Config, network string, log *slog.Logger) (*privateChains, error) {
	p := &privateChains{
		dir: filepath.Join(cfg.DataDir, "private"), network: network, entity: cfg.Private.Entity,
		entities: map[string]server.Entity{}, log: log, engines: map[ledger.ChainID]*server.Engine{},
	}
	if p.entity == "" {
		p.entity = server.DefaultEntity
	}
	for name, e := range cfg.Private.Entities {
		pk, _ := server.ParseBoxKey(e.PublicKey) // checked by Config.finish
		p.entities[name] = server.Entity{PublicKey: pk, URL: e.URL}
	}
	if cfg.Private.EntitySecret != "" {
		p.secret, _ = server.ParseBoxKey(cfg.Private.EntitySecret)
	} else if err := p.loadKey(); err != nil {
		return nil, err
	}
	pub := server.PublicBoxKey(p.secret)
	log.Info("private commands", "entity", p.entity, "box public key", hex.EncodeToString(pub[:]))
	return p, nil
}

// loadKey reads the entity's secret from <dir>/entity.key, making one on first start.
func (p *privateChains) loadKey() error {
	path := filepath.Join(p.dir, "entity.key")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		pub, sec, err := box.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(p.dir, 0o700); err != nil {
			return fmt.Errorf("private commands: %w", err)
		}
		doc := "public: " + hex.EncodeToString(pub[:]) + "\nsecret: " + hex.EncodeToString(sec[:]) + "\n"
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			return fmt.Errorf("private commands: write the entity key: %w", err)
		}
		p.secret = *sec
		return nil
	}
	if err != nil {
		return fmt.Errorf("private commands: read the entity key: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "secret:"); ok {
			if p.secret, err = server.ParseBoxKey(strings.TrimSpace(v)); err != nil {
				return fmt.Errorf("%s: secret: %w", path, err)
			}
			return nil
		}
	}
	return fmt.Errorf("%s: no secret key", path)
}

// engine returns chain c's engine, opening it when create is set; nil when it is not open.
func (p *privateChains) engine(c ledger.ChainID, create bool) (*server.Engine, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.engines[c]; e != nil || !create {
		return e, nil
	}
	if p.closed {
		return nil, contractapi.ErrClosed
	}
	dir := filepath.Join(p.dir, fmt.Sprint(c))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("private commands: %w", err)
	}
	urls := map[string]string{}
	for name, e := range p.entities {
		if e.URL != "" {
			// The same chain's contract API on the other node: the deliverer adds /api/v1/private.
			urls[name] = strings.TrimSuffix(e.URL, "/") + fmt.Sprintf("/chainweb/0.0/%s/chain/%d/pact", p.network, c)
		}
	}
	secret := p.secret
	ec := server.Config{PersistDir: dir, Entity: p.entity, EntitySecret: &secret, Entities: p.entities,
		Logger: p.log.With("component", "private", "chain", c)}
	if len(urls) > 0 {
		ec.Deliver = transport.PrivateDeliverer(urls, 10*time.Second)
	}
	e, err := server.Open(ec)
	if err != nil {
		return nil, fmt.Errorf("private commands of chain %d: %w", c, err)
	}
	p.engines[c] = e
	return e, nil
}

// close closes the open engines.
func (p *privateChains) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c, e := range p.engines {
		if err := e.Close(); err != nil {
			p.log.Warn("close private commands", "chain", c, "err", err)
		}
	}
}

// nodeContract is a chain's contract API: the executor's, with private commands added.
type nodeContract struct {
	*actors.ChainContract
	chain ledger.ChainID
	priv  *privateChains
	// slots bounds the evaluations requests start: a private command is one, as local is.
	slots *actors.EvalSlots
}

var _ transport.ContractAPI = nodeContract{}

// Private runs a private command (from a client of this entity) or an envelope (from another
// entity's node).
func (n nodeContract) Private(ctx context.Context, body []byte) ([]api.Hash, error) {
	e, err := n.priv.engine(n.chain, true)
	if err != nil {
		return nil, err
	}
	release, err := n.slots.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return e.Private(ctx, body)
}

// Poll answers from the chain, then from the private results for the keys the chain lacks.
func (n nodeContract) Poll(ctx context.Context, keys []api.Hash, opts contractapi.PollOptions) ([]contractapi.Polled, error) {
	found, err := n.ChainContract.Poll(ctx, keys, opts)
	if err != nil || len(found) == len(keys) {
		return found, err
	}
	e, err := n.priv.engine(n.chain, false)
	if err != nil || e == nil {
		return found, err
	}
	have := make(map[api.Hash]bool, len(found))
	for _, f := range found {
		have[f.Key] = true
	}
	var rest []api.Hash
	for _, k := range keys {
		if !have[k] {
			rest = append(rest, k)
		}
	}
	more, err := e.Poll(ctx, rest, opts)
	return append(found, more...), err
}

// Listen answers a private result at once; otherwise it waits for the chain.
func (n nodeContract) Listen(ctx context.Context, key api.Hash) ([]byte, error) {
	if e, _ := n.priv.engine(n.chain, false); e != nil {
		if got, err := e.Poll(ctx, []api.Hash{key}, contractapi.PollOptions{}); err == nil && len(got) == 1 {
			return got[0].Result, nil
		}
	}
	return n.ChainContract.Listen(ctx, key)
}
