package ledger

import (
	"bytes"
	"crypto/sha512"
	"errors"
	"strings"
	"testing"
)

// Every leaf of trees of every size up to 70 proves against the tree's root, and a proof for one
// position fails for any other leaf.
func TestInclusionPath(t *testing.T) {
	for n := 1; n <= 70; n++ {
		leaves := make([]Hash, n)
		for i := range leaves {
			leaves[i] = sha512.Sum512_256([]byte{byte(n), byte(i)})
		}
		root := MerkleRoot(leaves)
		for pos := range leaves {
			p := MerkleProof{Position: uint64(pos), Steps: InclusionPath(leaves, pos)}
			if got := p.Root(leaves[pos]); got != root {
				t.Fatalf("n=%d pos=%d: root %s, want %s", n, pos, got, root)
			}
			if n > 1 && p.Root(leaves[(pos+1)%n]) == root {
				t.Fatalf("n=%d pos=%d: another leaf proves too", n, pos)
			}
		}
	}
}

// A transaction output proves through the payload and the real mainnet header that carries it,
// and a header proves as the adjacent parent of a header on a neighbouring chain.
func TestOutputAndHeaderPaths(t *testing.T) {
	var f payloadFile
	loadVector(t, payloadFiles[0], &f)
	var txs []TxWithOutput
	for _, tx := range f.Transactions {
		txs = append(txs, TxWithOutput{Tx: mustB64(t, tx.Tx), Output: mustB64(t, tx.Output)})
	}
	if len(txs) < 2 {
		t.Fatalf("%s: want at least 2 transactions", payloadFiles[0])
	}
	p := NewPayloadWithOutputs(mustB64(t, f.MinerData), mustB64(t, f.CoinbaseOutput), txs)
	for i, tx := range txs {
		proof := MerkleProof{Position: uint64(i + 1), Steps: OutputPath(p, i)}
		if got := proof.Root(TaggedLeafHash(TagTransactionOutput, tx.Output)); got != p.PayloadHash {
			t.Fatalf("output %d: root %s, payload hash %s", i, got, p.PayloadHash)
		}
	}

	var tr struct {
		Triples []struct {
			Header    headerRecord   `json:"header"`
			Adjacents []headerRecord `json:"adjacentParents"`
		} `json:"triples"`
	}
	loadVector(t, "mainnet01-header-triples.json", &tr)
	h := checkHeaderRecord(t, tr.Triples[0].Header)
	steps := h.PayloadPath()
	if got := (&MerkleProof{Steps: steps}).Root(h.PayloadHash); got != h.Hash {
		t.Fatalf("payload path: root %s, block hash %s", got, h.Hash)
	}
	for _, a := range h.Adjacents {
		steps, ok := h.AdjacentPath(a.Chain)
		if !ok {
			t.Fatal("adjacent not found")
		}
		if got := (&MerkleProof{Steps: steps}).Root(a.Hash); got != h.Hash {
			t.Fatalf("adjacent %d: root %s, block hash %s", a.Chain, got, h.Hash)
		}
	}
	if _, ok := h.AdjacentPath(h.ChainID); ok {
		t.Error("a header is its own adjacent")
	}
}

func TestOutputProofEncoding(t *testing.T) {
	p := &OutputProof{Chain: 7, Output: []byte(`{"gas":1}`),
		Proof: MerkleProof{Position: 3, Steps: []ProofStep{{ProofLeft, Hash{1}}, {ProofRight, Hash{2}}}}}
	s := p.Encode()
	back, err := DecodeOutputProof(`"` + s + `"`) // clients may keep the JSON quotes
	if err != nil {
		t.Fatal(err)
	}
	if back.Chain != 7 || !bytes.Equal(back.Output, p.Output) || back.Proof.Position != 3 || len(back.Proof.Steps) != 2 ||
		back.Root() != p.Root() {
		t.Fatalf("round trip: %+v", back)
	}
	raw, _ := DecodeB64(s)
	if !strings.HasPrefix(string(raw), `{"chain":7,"object":"`) || !strings.HasSuffix(string(raw), `"algorithm":"SHA512t_256"}`) {
		t.Errorf("transport JSON %s", raw)
	}
	for _, bad := range []string{"", "!!", EncodeB64([]byte(`{}`)), EncodeB64([]byte(`{"chain":1,"object":"AAAA","subject":{"input":"ABQ"}}`)),
		EncodeB64([]byte(`{"chain":1,"object":"AAAAAAAAAAAAAAAA","subject":{"input":"ABM"}}`)),
		EncodeB64([]byte(`{"chain":1,"object":"AAAAAAAAAAAAAAAA","subject":{"input":"ABQ"},"algorithm":"Keccak_256"}`))} {
		if _, err := DecodeOutputProof(bad); !errors.Is(err, ErrSPVProof) {
			t.Errorf("%q: %v, want ErrSPVProof", bad, err)
		}
	}
}

// FuzzDecodeOutputProof: proofs come from clients; any string decodes or fails cleanly.
func FuzzDecodeOutputProof(f *testing.F) {
	f.Add((&OutputProof{Chain: 1, Output: []byte("{}")}).Encode())
	f.Add("")
	f.Add(EncodeB64([]byte(`{"chain":1,"object":"AAAAAQAAAAAAAAAAAA","subject":{"input":"ABQ"}}`)))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := DecodeOutputProof(s)
		if err != nil {
			return
		}
		_ = p.Root()
		if back, err := DecodeOutputProof(p.Encode()); err != nil || back.Root() != p.Root() {
			t.Fatalf("re-encoding: %v", err)
		}
	})
}
