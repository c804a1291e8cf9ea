package store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestPayloadRoundTrip(t *testing.T) {
	vs := loadPayloadVectors(t)
	db, dir := openTest(t, Options{})
	for _, v := range vs {
		if err := db.PutPayload(v.payload()); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
	}
	check := func(t *testing.T, db *DB) {
		for _, v := range vs {
			p, err := db.PayloadWithOutputs(v.PHash)
			if err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			if err := p.Verify(); err != nil {
				t.Fatalf("%s: loaded payload does not verify: %v", v.Name, err)
			}
			if p.PayloadHash != v.PHash || p.TransactionsHash != v.TransactionsHash || p.OutputsHash != v.OutputsHash {
				t.Fatalf("%s: hashes differ from the vector", v.Name)
			}
			if !bytes.Equal(p.MinerData, v.MinerData) || !bytes.Equal(p.Coinbase, v.Coinbase) ||
				len(p.Transactions) != len(v.Txs) {
				t.Fatalf("%s: contents differ from the vector", v.Name)
			}
			for i, tx := range p.Transactions {
				if !bytes.Equal(tx.Tx, v.Txs[i]) || !bytes.Equal(tx.Output, v.Outputs[i]) {
					t.Fatalf("%s: transaction %d differs", v.Name, i)
				}
			}

			d, err := db.Payload(v.PHash)
			if err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			if err := d.Verify(); err != nil {
				t.Fatalf("%s: loaded payload data does not verify: %v", v.Name, err)
			}
			if d.PayloadHash != v.PHash || d.TransactionsHash != v.TransactionsHash || d.OutputsHash != v.OutputsHash ||
				!bytes.Equal(d.MinerData, v.MinerData) || len(d.Transactions) != len(v.Txs) {
				t.Fatalf("%s: payload data differs from the vector", v.Name)
			}
			for i, tx := range d.Transactions {
				if !bytes.Equal(tx, v.Txs[i]) {
					t.Fatalf("%s: transaction %d differs", v.Name, i)
				}
			}
			if ok, err := db.HasPayload(v.PHash); err != nil || !ok {
				t.Fatalf("%s: HasPayload %v %v", v.Name, ok, err)
			}
		}
	}
	t.Run("fresh", func(t *testing.T) { check(t, db) })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2 := reopen(t, dir, Options{})
	t.Run("reopened", func(t *testing.T) { check(t, db2) })
}

// A block without transactions (most mined blocks) still has miner data and a coinbase output.
func TestPayloadEmpty(t *testing.T) {
	db, _ := openTest(t, Options{})
	p := ledger.NewPayloadWithOutputs([]byte(`{"account":"x"}`), []byte(`{"gas":0}`), nil)
	if err := db.PutPayload(p); err != nil {
		t.Fatal(err)
	}
	got, err := db.PayloadWithOutputs(p.PayloadHash)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Transactions) != 0 || got.Verify() != nil || string(got.Coinbase) != `{"gas":0}` {
		t.Fatalf("empty payload came back as %+v", got)
	}
}

// Callers own what they read: changing one result must not show in the next.
func TestPayloadResultsAreIndependent(t *testing.T) {
	v := loadPayloadVectors(t)[0]
	db, _ := openTest(t, Options{})
	if err := db.PutPayload(v.payload()); err != nil {
		t.Fatal(err)
	}
	p1, _ := db.PayloadWithOutputs(v.PHash)
	p1.Transactions[0].Tx[0] ^= 0xff
	p1.MinerData[0] ^= 0xff
	p2, err := db.PayloadWithOutputs(v.PHash)
	if err != nil {
		t.Fatal(err)
	}
	if err := p2.Verify(); err != nil {
		t.Fatalf("a caller's edit leaked into the store: %v", err)
	}
}

func TestPayloadNotFound(t *testing.T) {
	db, _ := openTest(t, Options{})
	missing := ledger.Hash{9}
	if _, err := db.Payload(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Payload: %v", err)
	}
	if _, err := db.PayloadWithOutputs(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("PayloadWithOutputs: %v", err)
	}
	if ok, err := db.HasPayload(missing); err != nil || ok {
		t.Fatalf("HasPayload: %v %v", ok, err)
	}
	if err := db.PutPayload(nil); err == nil {
		t.Fatal("PutPayload(nil) accepted")
	}
}
