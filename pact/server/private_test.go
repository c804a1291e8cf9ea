package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// Three entities: alice sends a private command to bob; carol, who is not
// addressed, only records its hash.
func TestPrivate(t *testing.T) {
	secret := func(b byte) *[32]byte {
		var k [32]byte
		for i := range k {
			k[i] = b + byte(i)
		}
		return &k
	}
	names := []string{"alice", "bob", "carol"}
	secrets := map[string]*[32]byte{"alice": secret(1), "bob": secret(50), "carol": secret(100)}
	engines := map[string]*Engine{}
	for _, n := range names {
		others := map[string]Entity{}
		for _, o := range names {
			if o != n {
				others[o] = Entity{PublicKey: PublicBoxKey(*secrets[o])}
			}
		}
		cfg := Config{Entity: n, EntitySecret: secrets[n], Entities: others}
		if n == "alice" {
			cfg.Deliver = func(ctx context.Context, env []byte) error {
				var errs []error
				for _, to := range []string{"bob", "carol"} {
					if _, err := engines[to].Private(ctx, env); err != nil {
						errs = append(errs, err)
					}
				}
				return errors.Join(errs...)
			}
		}
		engines[n] = open(t, cfg)
	}
	ctx := context.Background()
	ks := `{"ks":{"keys":["` + alice.PublicHex() + `"],"pred":"keys-all"}}`
	c := build(t, cmdSpec{code: `(define-keyset 'secret-ks (read-keyset "ks")) (+ 40 2)`, data: ks, nonce: "p1",
		signers: []*api.KeyPair{alice}, private: &api.Address{From: "alice", To: []string{"bob"}}})
	body := c.JSON()

	// Only the sending entity's server takes it from a client; not /send.
	if _, err := engines["bob"].Private(ctx, body); err == nil || !strings.Contains(err.Error(), `from entity "alice" sent to the server of entity "bob"`) {
		t.Errorf("bob took alice's command: %v", err)
	}
	if _, err := engines["alice"].Send(ctx, []*api.Command{c}); err == nil {
		t.Error("send took a private command")
	}
	keys, err := engines["alice"].Private(ctx, body)
	if err != nil || len(keys) != 1 || keys[0] != c.Hash {
		t.Fatalf("private: %v %v", keys, err)
	}
	for _, n := range []string{"alice", "bob"} {
		got, _ := engines[n].Poll(ctx, keys, contractapi.PollOptions{})
		if len(got) != 1 || string(decode(t, got[0].Result).Result.Data) != `{"int":42}` {
			t.Errorf("%s: %v", n, got)
		}
		// The keyset the command defined is in the entity's state.
		r := local(t, engines[n], build(t, cmdSpec{code: `(describe-keyset 'secret-ks)`, nonce: "d"}))
		if r.Result.Status != "success" {
			t.Errorf("%s: keyset missing: %+v", n, r.Result.Error)
		}
	}
	carol := engines["carol"]
	if got, _ := carol.Poll(ctx, keys, contractapi.PollOptions{}); len(got) != 0 {
		t.Errorf("carol sees the result: %s", got[0].Result)
	}
	if _, err := carol.Listen(ctx, c.Hash); err == nil || !strings.Contains(err.Error(), "only its hash is recorded here") {
		t.Errorf("carol listen: %v", err)
	}
	if r := local(t, carol, build(t, cmdSpec{code: `(describe-keyset 'secret-ks)`, nonce: "d"})); r.Result.Status != "failure" {
		t.Error("carol's state has the keyset")
	}
	// carol recorded the key: a second delivery is a duplicate.
	env := engines["alice"].Outbox()
	if len(env) != 1 {
		t.Fatalf("outbox: %d", len(env))
	}
	if _, err := carol.Private(ctx, env[0]); err == nil || !strings.Contains(err.Error(), "already been submitted") {
		t.Errorf("carol redelivery: %v", err)
	}
	// The envelope reveals nothing but the addresses and the key.
	if strings.Contains(string(env[0]), "secret-ks") || strings.Contains(string(env[0]), "define-keyset") {
		t.Errorf("envelope leaks the payload: %s", env[0])
	}
	// A box tampered with, or sealed for someone else, does not open.
	var doc struct {
		Envelope envelope `json:"envelope"`
	}
	json.Unmarshal(env[0], &doc)
	fresh := open(t, Config{Entity: "bob", EntitySecret: secrets["carol"],
		Entities: map[string]Entity{"alice": {PublicKey: PublicBoxKey(*secrets["alice"])}}})
	if _, err := fresh.Private(ctx, env[0]); err == nil || !strings.Contains(err.Error(), "does not open") {
		t.Errorf("wrong key: %v", err)
	}
	box := []byte(doc.Envelope.Boxes["bob"])
	box[40] ^= 1
	doc.Envelope.Boxes["bob"] = string(box)
	doc.Envelope.RequestKey = build(t, cmdSpec{code: "1", nonce: "other"}).Hash.String()
	tampered, _ := json.Marshal(doc)
	if _, err := engines["bob"].Private(ctx, tampered); err == nil {
		t.Error("a tampered box opened")
	}
	// Unknown recipients and public meta are refused.
	for _, tc := range []struct {
		spec cmdSpec
		msg  string
	}{
		{cmdSpec{code: "1", nonce: "p2", private: &api.Address{From: "alice", To: []string{"dave"}}}, `unknown entity "dave"`},
		{cmdSpec{code: "1", nonce: "p3"}, "needs private metadata"},
	} {
		if _, err := engines["alice"].Private(ctx, build(t, tc.spec).JSON()); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v", tc.msg, err)
		}
	}
}
