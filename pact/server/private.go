package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/crypto/nacl/box"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/crypto"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/result"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// Private commands (DECISIONS.md, "private"): a command whose meta is
// private metadata {"address": {"from": ENTITY, "to": [ENTITY...]}} is
// sent to /private of the sending entity's server. That server
//
//  1. verifies it, checks that "from" is its own entity and that it knows
//     a box key for every entity in "to";
//  2. executes it (the sender is a party) and stores its result;
//  3. seals the command once per recipient with nacl/box (its own secret
//     key, the recipient's public key, a fresh random nonce) and hands the
//     envelope to Config.Deliver, which posts it to every other entity's
//     /private.
//
// A server receiving an envelope executes the command and stores the
// result if it is addressed (after opening its box with the sender's
// public key and verifying the command inside); otherwise it records only
// the request key: poll omits such a key, listen rejects it, and a later
// submission of it is a duplicate.
//
// The envelope, the body of a peer's /private:
//
//	{"envelope": {"requestKey": RK, "from": ENTITY, "to": [ENTITY...],
//	              "boxes": {ENTITY: base64url(nonce || sealed command JSON)}}}
//
// Keys: each entity has a Curve25519 key pair. Config.EntitySecret (the
// YAML key entitySecret) gives the secret; without it the server keeps its
// key in <persistDir>/entity.key (created on first start, YAML with
// "public" and "secret" hex) or, without persistDir, makes a fresh key
// each start. The other entities' public keys are Config.Entities (YAML
// key entities: NAME: {publicKey: HEX, url: URL}). The server logs its own
// public key at start.

type entityKeys struct {
	public, secret [32]byte
}

// loadEntityKeys finds this entity's box key pair (see above).
func loadEntityKeys(cfg Config) (entityKeys, error) {
	var k entityKeys
	if cfg.EntitySecret != nil {
		k.secret = *cfg.EntitySecret
		derivePublic(&k)
		return k, nil
	}
	if cfg.PersistDir == "" {
		return generateKeys(rand.Reader)
	}
	path := filepath.Join(cfg.PersistDir, "entity.key")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if k, err = generateKeys(rand.Reader); err != nil {
			return k, err
		}
		doc := "public: " + hex.EncodeToString(k.public[:]) + "\nsecret: " + hex.EncodeToString(k.secret[:]) + "\n"
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			return k, fmt.Errorf("write entity key: %w", err)
		}
		return k, nil
	}
	if err != nil {
		return k, fmt.Errorf("read entity key: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "secret:"); ok {
			s, err := ParseBoxKey(strings.TrimSpace(v))
			if err != nil {
				return k, fmt.Errorf("%s: secret: %w", path, err)
			}
			k.secret = s
			derivePublic(&k)
			return k, nil
		}
	}
	return k, fmt.Errorf("%s: no secret key", path)
}

func generateKeys(r io.Reader) (entityKeys, error) {
	pub, sec, err := box.GenerateKey(r)
	if err != nil {
		return entityKeys{}, err
	}
	return entityKeys{public: *pub, secret: *sec}, nil
}

func derivePublic(k *entityKeys) {
	pub, _, _ := box.GenerateKey(bytes.NewReader(k.secret[:]))
	k.public = *pub
}

// ParseBoxKey parses a 32-byte nacl/box key written as 64 hex digits.
func ParseBoxKey(s string) ([32]byte, error) {
	var k [32]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return k, fmt.Errorf("want 64 hex digits (a 32-byte Curve25519 key), got %q", s)
	}
	copy(k[:], b)
	return k, nil
}

// PublicBoxKey is the public key of a box secret key.
func PublicBoxKey(secret [32]byte) [32]byte {
	k := entityKeys{secret: secret}
	derivePublic(&k)
	return k.public
}

// envelope is the JSON of a sealed private command.
type envelope struct {
	RequestKey string            `json:"requestKey"`
	From       string            `json:"from"`
	To         []string          `json:"to"`
	Boxes      map[string]string `json:"boxes"`
}

// outbox keeps the envelopes this server sealed, newest last (bounded).
type outbox struct {
	mu   sync.Mutex
	envs [][]byte
}

const outboxSize = 1024

func (o *outbox) add(env []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.envs) == outboxSize {
		o.envs = slices.Delete(o.envs, 0, 1)
	}
	o.envs = append(o.envs, env)
}

// Outbox returns the envelopes this server sealed (the last 1024), for a
// deployment that carries them to the other entities itself.
func (e *Engine) Outbox() [][]byte {
	e.outbox.mu.Lock()
	defer e.outbox.mu.Unlock()
	return slices.Clone(e.outbox.envs)
}

// Private takes the body of /private: a command with private metadata
// (from a client of this entity) or {"envelope": ...} (from another
// entity's server). It returns the command's request key.
func (e *Engine) Private(ctx context.Context, body []byte) ([]api.Hash, error) {
	if e.closed.Load() {
		return nil, contractapi.ErrClosed
	}
	var probe struct {
		Envelope *envelope `json:"envelope"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, contractapi.Reject("Malformed request body: %v", err)
	}
	if probe.Envelope != nil {
		rk, err := e.receive(probe.Envelope)
		if err != nil {
			return nil, err
		}
		return []api.Hash{rk}, nil
	}
	cmd, err := api.DecodeCommand(body)
	if err != nil {
		return nil, contractapi.Reject("Malformed request body: %v", err)
	}
	rk, err := e.originate(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return []api.Hash{rk}, nil
}

// privateAddress returns the address of a command's private meta.
func privateAddress(pc *api.ParsedCommand) (*api.Address, error) {
	pm := pc.Payload.Meta.Private
	if pm == nil || pm.Address == nil {
		return nil, contractapi.Reject("Validation failed for hash %q: a private command needs private metadata "+
			`{"address": {"from": ENTITY, "to": [ENTITY, ...]}}`, pc.RequestKey.String())
	}
	return pm.Address, nil
}

// originate runs a private command sent by a client of this entity.
func (e *Engine) originate(ctx context.Context, cmd *api.Command) (api.Hash, error) {
	c, err := check(cmd)
	if err != nil {
		return api.Hash{}, err
	}
	rk := c.pc.RequestKey
	addr, err := privateAddress(c.pc)
	if err != nil {
		return rk, err
	}
	if addr.From != e.cfg.Entity {
		return rk, contractapi.Reject("Validation failed for hash %q: private command from entity %q sent to the server of entity %q",
			rk.String(), addr.From, e.cfg.Entity)
	}
	if len(addr.To) == 0 {
		return rk, contractapi.Reject("Validation failed for hash %q: private command addressed to no entity", rk.String())
	}
	env := envelope{RequestKey: rk.String(), From: addr.From, To: addr.To, Boxes: map[string]string{}}
	plain := cmd.JSON()
	for _, to := range addr.To {
		if to == e.cfg.Entity {
			continue
		}
		peer, ok := e.cfg.Entities[to]
		if !ok {
			return rk, contractapi.Reject("Validation failed for hash %q: unknown entity %q (no public key configured)", rk.String(), to)
		}
		var nonce [24]byte
		if _, err := rand.Read(nonce[:]); err != nil {
			return rk, err
		}
		sealed := box.Seal(nonce[:], plain, &nonce, &peer.PublicKey, &e.keys.secret)
		env.Boxes[to] = crypto.EncodeBase64URL(sealed)
	}
	if err := e.runPrivate(c); err != nil {
		return rk, err
	}
	doc, err := json.Marshal(map[string]any{"envelope": env})
	if err != nil {
		return rk, err
	}
	e.outbox.add(doc)
	if e.cfg.Deliver != nil {
		if err := e.cfg.Deliver(ctx, doc); err != nil {
			e.log.Warn("pact server: private envelope not delivered to every entity", "reqKey", rk.String(), "err", err)
		}
	}
	return rk, nil
}

// runPrivate executes an addressed private command and stores its result.
func (e *Engine) runPrivate(c *checked) error {
	rk := c.pc.RequestKey
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.checkFresh([]api.Hash{rk}); err != nil {
		return err
	}
	o, _ := e.execute(c, db.Transactional, e.commandGasLimit(c.pc.Payload))
	return e.store([]api.Hash{rk}, [][]byte{result.Append([]byte{byte(recResult)}, rk, o)})
}

// receive takes an envelope from another entity's server.
func (e *Engine) receive(env *envelope) (api.Hash, error) {
	rk, err := api.ParseHash(env.RequestKey)
	if err != nil {
		return rk, contractapi.Reject("Malformed envelope: requestKey: %v", err)
	}
	if env.From == e.cfg.Entity {
		return rk, contractapi.Reject("Malformed envelope: it comes from this entity (%q)", env.From)
	}
	sealedB64, addressed := env.Boxes[e.cfg.Entity]
	if !addressed {
		if slices.Contains(env.To, e.cfg.Entity) {
			return rk, contractapi.Reject("Malformed envelope: addressed to %q without a box for it", e.cfg.Entity)
		}
		// Not ours: remember the hash only.
		rec, _ := json.Marshal(map[string]any{"from": env.From, "to": env.To})
		e.mu.Lock()
		defer e.mu.Unlock()
		if err := e.checkFresh([]api.Hash{rk}); err != nil {
			return rk, err
		}
		return rk, e.store([]api.Hash{rk}, [][]byte{append([]byte{byte(recPrivateHash)}, rec...)})
	}
	sender, ok := e.cfg.Entities[env.From]
	if !ok {
		return rk, contractapi.Reject("Malformed envelope: unknown sending entity %q (no public key configured)", env.From)
	}
	sealed, err := crypto.DecodeBase64URL([]byte(sealedB64))
	if err != nil || len(sealed) < 24+box.Overhead {
		return rk, contractapi.Reject("Malformed envelope: the box for %q is not base64url of a nonce and a sealed box", e.cfg.Entity)
	}
	var nonce [24]byte
	copy(nonce[:], sealed)
	plain, ok := box.Open(nil, sealed[24:], &nonce, &sender.PublicKey, &e.keys.secret)
	if !ok {
		return rk, contractapi.Reject("Malformed envelope: the box for %q does not open with the key of entity %q", e.cfg.Entity, env.From)
	}
	cmd, err := api.DecodeCommand(plain)
	if err != nil {
		return rk, contractapi.Reject("Malformed envelope: sealed command: %v", err)
	}
	c, err := check(cmd)
	if err != nil {
		return rk, err
	}
	if c.pc.RequestKey != rk {
		return rk, contractapi.Reject("Malformed envelope: requestKey %s does not match the sealed command's %s", rk.String(), c.pc.RequestKey.String())
	}
	addr, err := privateAddress(c.pc)
	if err != nil {
		return rk, err
	}
	if addr.From != env.From || !slices.Contains(addr.To, e.cfg.Entity) {
		return rk, contractapi.Reject("Malformed envelope: the sealed command's address does not match the envelope")
	}
	return rk, e.runPrivate(c)
}
