package private

import (
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

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/transport/contractapi"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
)

// Config is what Open needs: where the private state lives and who the entities are.
type Config struct {
	// Dir holds the entity key (when EntitySecret is nil) and a directory per chain.
	Dir string
	// Network names the network in the other nodes' URLs the envelopes are posted to.
	Network string
	// Entity is this node's entity name (server.DefaultEntity when empty).
	Entity string
	// EntitySecret is this entity's nacl/box secret key; nil: the one in <Dir>/entity.key, made
	// on first start.
	EntitySecret *[32]byte
	// Entities are the other entities by name: their box public keys and their nodes' service
	// API base URLs (empty: not delivered to).
	Entities map[string]server.Entity
	Logger   *slog.Logger
}

// Chains holds the private engines of the node's chains.
type Chains struct {
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

// Open reads (or makes) the entity key and logs its public key; engines open lazily.
func Open(cfg Config) (*Chains, error) {
	p := &Chains{
		dir: cfg.Dir, network: cfg.Network, entity: cfg.Entity, entities: cfg.Entities, log: cfg.Logger,
		engines: map[ledger.ChainID]*server.Engine{},
	}
	if p.entity == "" {
		p.entity = server.DefaultEntity
	}
	if p.entities == nil {
		p.entities = map[string]server.Entity{}
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if cfg.EntitySecret != nil {
		p.secret = *cfg.EntitySecret
	} else if err := p.loadKey(); err != nil {
		return nil, err
	}
	pub := server.PublicBoxKey(p.secret)
	p.log.Info("private commands", "entity", p.entity, "boxPublicKey", hex.EncodeToString(pub[:]))
	return p, nil
}

// loadKey reads the entity's secret from <dir>/entity.key, making one on first start.
func (p *Chains) loadKey() error {
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
func (p *Chains) engine(c ledger.ChainID, create bool) (*server.Engine, error) {
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
		ec.Deliver = contracthttp.PrivateDeliverer(urls, 10*time.Second)
	}
	e, err := server.Open(ec)
	if err != nil {
		return nil, fmt.Errorf("private commands of chain %d: %w", c, err)
	}
	p.engines[c] = e
	return e, nil
}

// Close closes the open engines; a private command that arrives later is refused with
// contractapi.ErrClosed.
func (p *Chains) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c, e := range p.engines {
		if err := e.Close(); err != nil {
			p.log.Warn("close private commands", "chain", c, "err", err)
		}
	}
}
