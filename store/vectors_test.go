package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// vectorsDir is the repository's testdata/vectors seen from this package directory.
const vectorsDir = "../testdata/vectors"

func readVector(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorsDir, name))
	if err != nil {
		t.Fatalf("read vector: %v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("parse vector %s: %v", name, err)
	}
}

// chain5Vector is one record of mainnet01-chain5-headers.json.
type chain5Vector struct {
	Height    uint64 `json:"height"`
	Binary    string `json:"binary_b64url"`
	BlockHash string `json:"blockHash_b64url"`
}

// chain5Headers decodes the 360 real mainnet chain-5 headers (heights 2111409..2111762, six of
// them fork siblings), in file order, with their raw bytes.
func chain5Headers(t testing.TB) ([]*ledger.Header, [][]byte) {
	t.Helper()
	var f struct {
		Count   int            `json:"count"`
		Headers []chain5Vector `json:"headers"`
	}
	readVector(t, "mainnet01-chain5-headers.json", &f)
	if len(f.Headers) != f.Count || f.Count != 360 {
		t.Fatalf("chain-5 vector: %d headers, count %d", len(f.Headers), f.Count)
	}
	hs := make([]*ledger.Header, len(f.Headers))
	raws := make([][]byte, len(f.Headers))
	for i, v := range f.Headers {
		raw, err := ledger.DecodeB64(v.Binary)
		if err != nil {
			t.Fatalf("header %d: %v", i, err)
		}
		h, err := ledger.DecodeHeader(raw)
		if err != nil {
			t.Fatalf("header %d: %v", i, err)
		}
		if h.Hash.String() != v.BlockHash || h.Height != v.Height || h.ChainID != 5 {
			t.Fatalf("header %d: decoded %s height %d chain %d, vector says %s height %d",
				i, h.Hash, h.Height, h.ChainID, v.BlockHash, v.Height)
		}
		hs[i], raws[i] = h, raw
	}
	return hs, raws
}

// payloadVector is one payload-*.json file with the bytes decoded.
type payloadVector struct {
	Name                                 string
	MinerData, Coinbase                  []byte
	Txs, Outputs                         [][]byte
	TransactionsHash, OutputsHash, PHash ledger.Hash
}

var payloadVectorFiles = []string{
	"payload-Mainnet0Payload.json",
	"payload-Mainnet10to19Payload.json",
	"payload-Testnet041to19Payload.json",
	"payload-Development1to19Payload.json",
}

func loadPayloadVectors(t testing.TB) []payloadVector {
	t.Helper()
	var out []payloadVector
	for _, name := range payloadVectorFiles {
		var f struct {
			MinerData    string `json:"minerData_b64url"`
			Coinbase     string `json:"coinbaseOutput_b64url"`
			Transactions []struct {
				Tx     string `json:"transaction_b64url"`
				Output string `json:"output_b64url"`
			} `json:"transactions"`
			TransactionsHash ledger.Hash `json:"transactionsHash"`
			OutputsHash      ledger.Hash `json:"outputsHash"`
			PayloadHash      ledger.Hash `json:"payloadHash"`
		}
		readVector(t, name, &f)
		v := payloadVector{Name: name, MinerData: mustB64(t, f.MinerData), Coinbase: mustB64(t, f.Coinbase),
			TransactionsHash: f.TransactionsHash, OutputsHash: f.OutputsHash, PHash: f.PayloadHash}
		for _, tx := range f.Transactions {
			v.Txs = append(v.Txs, mustB64(t, tx.Tx))
			v.Outputs = append(v.Outputs, mustB64(t, tx.Output))
		}
		out = append(out, v)
	}
	return out
}

// payload builds the ledger value with the vector's recorded hashes (not recomputed), so that
// the test can tell a store bug from a hashing bug.
func (v payloadVector) payload() *ledger.PayloadWithOutputs {
	p := &ledger.PayloadWithOutputs{MinerData: v.MinerData, Coinbase: v.Coinbase,
		PayloadHash: v.PHash, TransactionsHash: v.TransactionsHash, OutputsHash: v.OutputsHash}
	for i := range v.Txs {
		p.Transactions = append(p.Transactions, ledger.TxWithOutput{Tx: v.Txs[i], Output: v.Outputs[i]})
	}
	return p
}

func mustB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := ledger.DecodeB64(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openTest opens a fresh store in a temporary directory, closed when the test ends.
func openTest(t testing.TB, opts Options) (*DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dir
}
