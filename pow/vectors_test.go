package pow

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// vectorDir is the repository's copy of the shared vectors (testdata/vectors, with their
// origins in its README); tests run in the package directory.
const vectorDir = "../testdata/vectors"

// farFuture is a clock reading after every vector header (year 2100 in µs), for rules that
// compare against "now".
const farFuture int64 = 4102444800_000000

func loadJSON(t testing.TB, name string, into any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorDir, name))
	if err != nil {
		t.Fatalf("read vector %s: %v", name, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("parse vector %s: %v", name, err)
	}
}

// vecHeader is the common shape of a header record in the vectors.
type vecHeader struct {
	ChainID           uint32 `json:"chainId"`
	Height            uint64 `json:"height"`
	Binary            string `json:"binary_b64url"`
	BlockHash         string `json:"blockHash_b64url"`
	PowHash           string `json:"powHash_b64url"`
	PowValid          *bool  `json:"powValid"`
	TargetBEHex       string `json:"target_BEhex"`
	DifficultyDecimal string `json:"difficulty_decimal"`
	WeightDecimal     string `json:"weight_decimal"`
	Parent            string `json:"parent_b64url"`
	ParentInSet       bool   `json:"parentInSet"`
	CreationTime      int64  `json:"creationTime"`
	EpochStart        int64  `json:"epochStart"`
	GenesisParentHash string `json:"genesisParentHash_b64url"`
}

// decode returns the header and its wire bytes, failing the test on any mismatch between the
// record's own fields (so later assertions compare against trustworthy values).
func (r vecHeader) decode(t testing.TB) (*ledger.Header, []byte) {
	t.Helper()
	raw, err := ledger.DecodeB64(r.Binary)
	if err != nil {
		t.Fatalf("chain %d height %d: %v", r.ChainID, r.Height, err)
	}
	h, err := ledger.DecodeHeader(raw)
	if err != nil {
		t.Fatalf("chain %d height %d: %v", r.ChainID, r.Height, err)
	}
	if r.BlockHash != "" && h.Hash.String() != r.BlockHash {
		t.Fatalf("chain %d height %d: decoded hash %s, record says %s", r.ChainID, r.Height, h.Hash, r.BlockHash)
	}
	return h, raw
}

// powU256 reads a b64url PoW digest as the little-endian integer it stands for.
func powU256(t testing.TB, s string) ledger.U256 {
	t.Helper()
	b, err := ledger.DecodeB64(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad pow hash %q: %v", s, err)
	}
	return ledger.U256FromLE(b)
}

func beHexU256(t testing.TB, s string) ledger.U256 {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad BE hex %q: %v", s, err)
	}
	var le [32]byte
	for i := range b {
		le[31-i] = b[i]
	}
	return ledger.U256FromLE(le[:])
}

func decU256(t testing.TB, s string) ledger.U256 {
	t.Helper()
	x, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad decimal %q", s)
	}
	u, ok := ledger.U256FromBig(x)
	if !ok {
		t.Fatalf("decimal %q out of range", s)
	}
	return u
}

// --- mainnet01-header-triples.json ---

type vecTriple struct {
	Header          vecHeader   `json:"header"`
	Parent          vecHeader   `json:"parent"`
	AdjacentParents []vecHeader `json:"adjacentParents"`
	DA              struct {
		Rule               string `json:"rule"`
		DeltaMicros        *int64 `json:"delta_micros"`
		ExpectedTarget     string `json:"expectedTarget_BEhex"`
		ExpectedEpochStart *int64 `json:"expectedEpochStart"`
		MatchesHeader      bool   `json:"matchesHeaderTarget"`
		PerParent          []struct {
			ChainID     uint32 `json:"chainId"`
			DeltaMicros int64  `json:"delta_micros"`
			OldTarget   string `json:"oldTarget_BEhex"`
			Adjusted    string `json:"adjusted_BEhex"`
		} `json:"perParent"`
	} `json:"difficultyAdjustment"`
}

// triple is a decoded vector triple.
type triple struct {
	vec    vecTriple
	h, p   *ledger.Header
	adj    []*ledger.Header
	hBytes []byte
}

func loadTriples(t testing.TB) []triple {
	t.Helper()
	var f struct {
		Triples []vecTriple `json:"triples"`
	}
	loadJSON(t, "mainnet01-header-triples.json", &f)
	if len(f.Triples) == 0 {
		t.Fatal("no triples in the vector file")
	}
	out := make([]triple, len(f.Triples))
	for i, vt := range f.Triples {
		tr := triple{vec: vt}
		tr.h, tr.hBytes = vt.Header.decode(t)
		tr.p, _ = vt.Parent.decode(t)
		for _, a := range vt.AdjacentParents {
			x, _ := a.decode(t)
			tr.adj = append(tr.adj, x)
		}
		out[i] = tr
	}
	return out
}

// tripleAt returns the triple whose header is at the given height.
func tripleAt(t testing.TB, ts []triple, height uint64) triple {
	t.Helper()
	for _, tr := range ts {
		if tr.h.Height == height {
			return tr
		}
	}
	t.Fatalf("no triple at height %d", height)
	return triple{}
}

// --- mainnet01-chain5-headers.json ---

type chain5 struct {
	recs   []vecHeader
	hs     []*ledger.Header
	raw    [][]byte
	byHash map[ledger.Hash]*ledger.Header
}

func loadChain5(t testing.TB) chain5 {
	t.Helper()
	var f struct {
		Count   int         `json:"count"`
		Headers []vecHeader `json:"headers"`
	}
	loadJSON(t, "mainnet01-chain5-headers.json", &f)
	if len(f.Headers) != f.Count || f.Count == 0 {
		t.Fatalf("chain 5 vectors: %d headers, count says %d", len(f.Headers), f.Count)
	}
	c := chain5{recs: f.Headers, byHash: map[ledger.Hash]*ledger.Header{}}
	for _, r := range f.Headers {
		h, raw := r.decode(t)
		c.hs = append(c.hs, h)
		c.raw = append(c.raw, raw)
		c.byHash[h.Hash] = h
	}
	return c
}

// --- genesis-*.json ---

type genesisFile struct {
	Version     string      `json:"version"`
	VersionCode uint32      `json:"versionCode"`
	Headers     []vecHeader `json:"headers"`
}

var genesisFiles = []string{
	"genesis-mainnet01.json",
	"genesis-testnet04.json",
	"genesis-recap-development.json",
	"genesis-development.json",
}
