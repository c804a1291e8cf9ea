package ledger

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// vectorDir is the repository's copy of the shared vectors (testdata/vectors, with their
// origins in its README).
const vectorDir = "../testdata/vectors"

func loadVector(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorDir, name))
	if err != nil {
		t.Fatalf("read vector: %v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("parse vector %s: %v", name, err)
	}
}

func mustB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := DecodeB64(s)
	if err != nil {
		t.Fatalf("vector base64 %q: %v", s, err)
	}
	return b
}

func mustHexBytes(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func beHexU256(t testing.TB, s string) U256 {
	t.Helper()
	u, ok := U256FromBig(new(big.Int).SetBytes(mustHexBytes(t, s)))
	if !ok {
		t.Fatalf("bad 256-bit hex %s", s)
	}
	return u
}

// headerRecord is the common shape of a header in the vector files.
type headerRecord struct {
	ChainID         uint32          `json:"chainId"`
	Height          uint64          `json:"height"`
	BinaryB64       string          `json:"binary_b64url"`
	BinaryHex       string          `json:"binary_hex"`
	BlockHash       string          `json:"blockHash_b64url"`
	TargetBEHex     string          `json:"target_BEhex"`
	DifficultyDec   string          `json:"difficulty_decimal"`
	WeightDec       string          `json:"weight_decimal"`
	FeatureFlagsU64 string          `json:"featureFlags_u64"`
	Object          json.RawMessage `json:"object"`
}

// checkHeaderRecord asserts everything a header record states that the ledger can check:
// byte-identical round trip of the binary, base64url and object encodings, and the block hash.
func checkHeaderRecord(t *testing.T, r headerRecord) *Header {
	t.Helper()
	raw := mustB64(t, r.BinaryB64)
	if r.BinaryHex != "" && !bytes.Equal(raw, mustHexBytes(t, r.BinaryHex)) {
		t.Fatalf("vector binary_hex and binary_b64url disagree")
	}
	h, err := DecodeHeader(raw)
	if err != nil {
		t.Fatalf("decode chain %d height %d: %v", r.ChainID, r.Height, err)
	}
	if !bytes.Equal(h.Bytes(), raw) {
		t.Fatalf("chain %d height %d: re-encoding differs", r.ChainID, r.Height)
	}
	if h.B64() != r.BinaryB64 {
		t.Fatalf("base64url re-encoding differs")
	}
	if h2, err := DecodeHeaderB64(r.BinaryB64); err != nil || !bytes.Equal(h2.Bytes(), raw) {
		t.Fatalf("DecodeHeaderB64: %v", err)
	}
	want, err := ParseHash(r.BlockHash)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.ComputeHash(); got != want || h.Hash != want {
		t.Fatalf("chain %d height %d: block hash %s, stored %s, vector %s", r.ChainID, r.Height, got, h.Hash, want)
	}
	if uint32(h.ChainID) != r.ChainID || h.Height != r.Height {
		t.Fatalf("chain/height %d/%d, vector %d/%d", h.ChainID, h.Height, r.ChainID, r.Height)
	}
	if r.TargetBEHex != "" && h.Target != beHexU256(t, r.TargetBEHex) {
		t.Fatalf("target %s, vector %s", h.Target.BEHex(), r.TargetBEHex)
	}
	if r.TargetBEHex != "" && h.Target.BEHex() != r.TargetBEHex {
		t.Fatalf("BEHex %s, vector %s", h.Target.BEHex(), r.TargetBEHex)
	}
	if r.WeightDec != "" && h.Weight.String() != r.WeightDec {
		t.Fatalf("weight %s, vector %s", h.Weight, r.WeightDec)
	}
	if r.FeatureFlagsU64 != "" && strconv.FormatUint(h.FeatureFlags, 10) != r.FeatureFlagsU64 {
		t.Fatalf("feature flags %d, vector %s", h.FeatureFlags, r.FeatureFlagsU64)
	}
	if len(r.Object) > 0 {
		checkObjectEncoding(t, h, r.Object)
	}
	return h
}

// checkObjectEncoding decodes the vector's object form to the same header, and checks that our
// own object encoding has the same values as the vector's (key order carries no meaning).
func checkObjectEncoding(t *testing.T, h *Header, object []byte) {
	t.Helper()
	fromObj, err := DecodeHeaderObject(object)
	if err != nil {
		t.Fatalf("decode object: %v", err)
	}
	if !bytes.Equal(fromObj.Bytes(), h.Bytes()) {
		t.Fatalf("object encoding decodes to a different header")
	}
	var want, got map[string]any
	json.Unmarshal(object, &want)
	if err := json.Unmarshal(h.ObjectJSON(), &got); err != nil {
		t.Fatalf("our object JSON does not parse: %v", err)
	}
	if got["ledgerVersion"] != got["chainwebVersion"] {
		t.Fatalf("ledgerVersion and chainwebVersion differ: %v", got)
	}
	delete(got, "ledgerVersion")
	gotJ, _ := json.Marshal(got)
	wantJ, _ := json.Marshal(want)
	if !bytes.Equal(gotJ, wantJ) {
		t.Fatalf("object JSON differs:\n got  %s\n want %s", gotJ, wantJ)
	}
}

type genesisFile struct {
	Version           string         `json:"version"`
	VersionCode       uint32         `json:"versionCode"`
	GenesisTimeMicros int64          `json:"genesisTimeMicros"`
	Headers           []headerRecord `json:"headers"`
}

func TestGenesisHeaders(t *testing.T) {
	for _, file := range []string{"genesis-mainnet01.json", "genesis-testnet04.json",
		"genesis-recap-development.json", "genesis-development.json"} {
		t.Run(file, func(t *testing.T) {
			var g genesisFile
			loadVector(t, file, &g)
			v, ok := VersionByName(g.Version)
			if !ok {
				t.Fatalf("unknown version %s", g.Version)
			}
			if v.Code != g.VersionCode || v.GenesisTime != g.GenesisTimeMicros {
				t.Fatalf("version params: code %x time %d, vector %x %d", v.Code, v.GenesisTime, g.VersionCode, g.GenesisTimeMicros)
			}
			if len(g.Headers) != 20 {
				t.Fatalf("%d headers", len(g.Headers))
			}
			for _, r := range g.Headers {
				vec := checkHeaderRecord(t, r)
				built, ok := UpstreamGenesisHeader(v, ChainID(r.ChainID))
				if !ok {
					t.Fatalf("no genesis for chain %d", r.ChainID)
				}
				if !bytes.Equal(built.Bytes(), vec.Bytes()) {
					t.Fatalf("chain %d: built genesis differs from vector", r.ChainID)
				}
				if gh, _ := v.GenesisHeight(ChainID(r.ChainID)); gh != r.Height {
					t.Fatalf("chain %d genesis height %d, vector %d", r.ChainID, gh, r.Height)
				}
				if r.DifficultyDec != "" {
					d := new(big.Int).Div(MaxU256.Big(), vec.Target.Big())
					if d.String() != r.DifficultyDec {
						t.Fatalf("difficulty %s, vector %s", d, r.DifficultyDec)
					}
				}
			}
		})
	}
}

func TestGenesisParentHashes(t *testing.T) {
	var f struct {
		Hashes map[string]map[string]string `json:"hashes"`
	}
	loadVector(t, "genesis-parent-hashes.json", &f)
	n := 0
	for name, chains := range f.Hashes {
		v, ok := VersionByName(name)
		if !ok {
			t.Fatalf("unknown version %s", name)
		}
		for cs, want := range chains {
			c, _ := strconv.Atoi(cs)
			if got := GenesisParentHash(v, ChainID(c)).String(); got != want {
				t.Errorf("%s chain %d: %s, vector %s", name, c, got, want)
			}
			n++
		}
	}
	if n != 80 {
		t.Fatalf("checked %d hashes, want 80", n)
	}
}

type payloadFile struct {
	Module         string `json:"module"`
	MinerData      string `json:"minerData_b64url"`
	CoinbaseOutput string `json:"coinbaseOutput_b64url"`
	Transactions   []struct {
		Tx     string `json:"transaction_b64url"`
		Output string `json:"output_b64url"`
	} `json:"transactions"`
	TransactionsHash string `json:"transactionsHash"`
	OutputsHash      string `json:"outputsHash"`
	PayloadHash      string `json:"payloadHash"`
}

var payloadFiles = []string{"payload-Mainnet0Payload.json", "payload-Mainnet10to19Payload.json",
	"payload-Testnet041to19Payload.json", "payload-Development1to19Payload.json"}

func TestPayloadVectors(t *testing.T) {
	for _, file := range payloadFiles {
		t.Run(file, func(t *testing.T) {
			var f payloadFile
			loadVector(t, file, &f)
			var txs []TxWithOutput
			for _, tx := range f.Transactions {
				txs = append(txs, TxWithOutput{Tx: mustB64(t, tx.Tx), Output: mustB64(t, tx.Output)})
			}
			p := NewPayloadWithOutputs(mustB64(t, f.MinerData), mustB64(t, f.CoinbaseOutput), txs)
			if p.TransactionsHash.String() != f.TransactionsHash || p.OutputsHash.String() != f.OutputsHash ||
				p.PayloadHash.String() != f.PayloadHash {
				t.Fatalf("hashes %s %s %s, vector %s %s %s", p.TransactionsHash, p.OutputsHash, p.PayloadHash,
					f.TransactionsHash, f.OutputsHash, f.PayloadHash)
			}
			if err := p.Verify(); err != nil {
				t.Fatal(err)
			}
			if err := p.Data().Verify(); err != nil {
				t.Fatal(err)
			}
			// JSON round trips keep every byte and hash.
			j, _ := json.Marshal(p)
			var back PayloadWithOutputs
			if err := json.Unmarshal(j, &back); err != nil {
				t.Fatal(err)
			}
			if err := back.Verify(); err != nil || back.PayloadHash != p.PayloadHash {
				t.Fatalf("round trip: %v", err)
			}
			var raw map[string]json.RawMessage
			json.Unmarshal(j, &raw)
			for _, k := range []string{"transactions", "minerData", "coinbase", "payloadHash", "transactionsHash", "outputsHash"} {
				if _, ok := raw[k]; !ok {
					t.Fatalf("payload JSON lacks %q", k)
				}
			}
			dj, _ := json.Marshal(p.Data())
			var d PayloadData
			if err := json.Unmarshal(dj, &d); err != nil || d.Verify() != nil {
				t.Fatalf("payload data round trip: %v", err)
			}
			// A flipped byte in any transaction is caught.
			p.Transactions[0].Tx[5] ^= 1
			if p.Verify() == nil {
				t.Fatal("tampered transaction verified")
			}
		})
	}
}

func TestGenesisPayloadHashes(t *testing.T) {
	var f struct {
		Payloads []struct {
			Module, TransactionsHash, OutputsHash, PayloadHash string
		} `json:"payloads"`
	}
	loadVector(t, "genesis-payload-hashes.json", &f)
	if len(f.Payloads) != 28 {
		t.Fatalf("%d entries", len(f.Payloads))
	}
	full := map[string]string{}
	for _, file := range payloadFiles {
		var p payloadFile
		loadVector(t, file, &p)
		full[p.Module] = p.PayloadHash
	}
	checkedFull := 0
	for _, p := range f.Payloads {
		tx, _ := ParseHash(p.TransactionsHash)
		out, _ := ParseHash(p.OutputsHash)
		if got := PayloadHash(tx, out).String(); got != p.PayloadHash {
			t.Errorf("%s: payload hash %s, vector %s", p.Module, got, p.PayloadHash)
		}
		if want, ok := full[p.Module]; ok {
			checkedFull++
			if want != p.PayloadHash {
				t.Errorf("%s: full payload file says %s", p.Module, want)
			}
		}
	}
	if checkedFull != len(payloadFiles) {
		t.Fatalf("matched %d full payload files", checkedFull)
	}
}

func TestRealMainnetHeaders(t *testing.T) {
	var f struct {
		FirstHeaderObject json.RawMessage `json:"firstHeaderObject"`
		Headers           []struct {
			headerRecord
			PowHash string `json:"powHash_b64url"`
			Parent  string `json:"parent_b64url"`
		} `json:"headers"`
	}
	loadVector(t, "mainnet01-chain5-headers.json", &f)
	if len(f.Headers) != 360 {
		t.Fatalf("%d headers", len(f.Headers))
	}
	for i, r := range f.Headers {
		r.ChainID = 5
		h := checkHeaderRecord(t, r.headerRecord)
		if h.Parent.String() != r.Parent {
			t.Fatalf("parent %s, vector %s", h.Parent, r.Parent)
		}
		if i == 0 {
			checkObjectEncoding(t, h, f.FirstHeaderObject)
		}
	}
}

func TestHeaderTriples(t *testing.T) {
	var f struct {
		Triples []struct {
			Header          headerRecord   `json:"header"`
			Parent          headerRecord   `json:"parent"`
			AdjacentParents []headerRecord `json:"adjacentParents"`
		} `json:"triples"`
	}
	loadVector(t, "mainnet01-header-triples.json", &f)
	if len(f.Triples) != 7 {
		t.Fatalf("%d triples", len(f.Triples))
	}
	for _, tr := range f.Triples {
		h := checkHeaderRecord(t, tr.Header)
		p := checkHeaderRecord(t, tr.Parent)
		if h.Parent != p.Hash {
			t.Fatalf("height %d: parent link broken", h.Height)
		}
		for _, a := range tr.AdjacentParents {
			ah := checkHeaderRecord(t, a)
			if got, ok := h.AdjacentHash(ah.ChainID); !ok || got != ah.Hash {
				t.Fatalf("height %d: adjacent %d not referenced", h.Height, ah.ChainID)
			}
		}
		// The graph in force at the parent's height names exactly the adjacent chains.
		g := Mainnet01.HeaderGraph(h.ChainID, h.Height)
		var chains []ChainID
		for _, a := range h.Adjacents {
			chains = append(chains, a.Chain)
		}
		if !slices.Equal(chains, g.Neighbors(h.ChainID)) {
			t.Fatalf("height %d: adjacents %v, graph %s says %v", h.Height, chains, g.Name, g.Neighbors(h.ChainID))
		}
	}
}

func TestObjectEncodedExamples(t *testing.T) {
	var f struct {
		Examples []headerRecord `json:"examples"`
	}
	loadVector(t, "object-encoded-examples.json", &f)
	if len(f.Examples) != 2 {
		t.Fatalf("%d examples", len(f.Examples))
	}
	for _, r := range f.Examples {
		checkHeaderRecord(t, r)
	}
}

func TestMerklePrimitives(t *testing.T) {
	var f struct {
		Empty    string `json:"emptyTreeRoot_hex (SHA512/256 of empty string)"`
		LeafA    string `json:"leaf_of_a_hex"`
		NodeAB   string `json:"node_leafa_leafb_hex"`
		Untagged []struct {
			N      int      `json:"n"`
			Inputs []string `json:"inputs_ascii"`
			Root   string   `json:"root_hex"`
		} `json:"untaggedTrees"`
		Breakdown []struct {
			What    string `json:"what"`
			Entries []struct {
				Entry     string `json:"entry"`
				LeafInput string `json:"leafInput_hex"`
				LeafHash  string `json:"leafHash_hex"`
			} `json:"entries"`
			Root string `json:"root_b64url"`
		} `json:"blockHashBreakdown"`
	}
	loadVector(t, "merkle-primitives.json", &f)
	hexOf := func(h Hash) string { return hex.EncodeToString(h[:]) }
	if got := hexOf(MerkleRoot(nil)); got != f.Empty {
		t.Errorf("empty root %s", got)
	}
	a, b := LeafHash([]byte("a")), LeafHash([]byte("b"))
	if hexOf(a) != f.LeafA || hexOf(NodeHash(a, b)) != f.NodeAB {
		t.Errorf("leaf/node primitives differ")
	}
	if len(f.Untagged) != 9 {
		t.Fatalf("%d trees", len(f.Untagged))
	}
	for _, tree := range f.Untagged {
		var leaves []Hash
		for _, in := range tree.Inputs {
			leaves = append(leaves, LeafHash([]byte(in)))
		}
		if got := hexOf(MerkleRoot(leaves)); got != tree.Root || len(leaves) != tree.N {
			t.Errorf("tree n=%d: root %s, vector %s", tree.N, got, tree.Root)
		}
		if got := hexOf(recursiveRoot(leaves)); got != tree.Root {
			t.Errorf("reference split rule disagrees for n=%d", tree.N)
		}
	}
	for _, bd := range f.Breakdown {
		var leaves []Hash
		for _, e := range bd.Entries {
			want := mustHexBytes(t, e.LeafHash)
			if e.LeafInput != "" {
				got := LeafHash(mustHexBytes(t, e.LeafInput))
				if !bytes.Equal(got[:], want) {
					t.Fatalf("%s %s: leaf hash differs", bd.What, e.Entry)
				}
			}
			leaves = append(leaves, Hash(want))
		}
		if got := MerkleRoot(leaves).String(); got != bd.Root {
			t.Fatalf("%s: root %s, vector %s", bd.What, got, bd.Root)
		}
	}
}

// recursiveRoot is the textbook RFC 6962 split rule, to cross-check the stack algorithm.
func recursiveRoot(leaves []Hash) Hash {
	if len(leaves) == 1 {
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return NodeHash(recursiveRoot(leaves[:k]), recursiveRoot(leaves[k:]))
}

func TestMerkleStackMatchesSplitRule(t *testing.T) {
	var leaves []Hash
	for n := 1; n <= 69; n++ {
		leaves = append(leaves, LeafHash([]byte{byte(n), byte(n >> 8)}))
		if MerkleRoot(leaves) != recursiveRoot(leaves) {
			t.Fatalf("n=%d: stack and split rule differ", n)
		}
	}
}

func TestFinalMainnetCut(t *testing.T) {
	var f struct {
		CutJSON json.RawMessage `json:"cutJSON"`
		Derived struct {
			Order []ChainID `json:"hashMapIterationOrder_20chains"`
		} `json:"derived"`
	}
	loadVector(t, "mainnet01-final-cut.json", &f)
	c, id, err := DecodeCutJSON(f.CutJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Derived.Order, HashMapOrder) {
		t.Fatalf("hash map order %v, vector %v", HashMapOrder, f.Derived.Order)
	}
	if id == nil || c.ID() != *id {
		t.Fatalf("cut id %s, vector %v", c.ID(), id)
	}
	var sum uint64
	for _, e := range c.Entries {
		sum += e.Height
	}
	if sum != c.Height || len(c.Entries) != 20 {
		t.Fatalf("height %d, sum %d", c.Height, sum)
	}
	// Our encoding carries the same values as the upstream JSON.
	var want, got any
	json.Unmarshal(f.CutJSON, &want)
	if err := json.Unmarshal(c.AppendJSON(nil), &got); err != nil {
		t.Fatal(err)
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if !bytes.Equal(wj, gj) {
		t.Fatalf("cut JSON differs:\n got  %s\n want %s", gj, wj)
	}
}

func TestGenesisCuts(t *testing.T) {
	var f map[string]json.RawMessage
	loadVector(t, "genesis-cuts.json", &f)
	for _, name := range []string{"mainnet01", "testnet04", "development"} {
		var g struct {
			JSON  json.RawMessage `json:"genesisCutJSON_withoutId"`
			Order []ChainID       `json:"modelled_HashMap_iteration_order"`
			ID    string          `json:"id_haskell_HashMap_order"`
		}
		if err := json.Unmarshal(f[name], &g); err != nil {
			t.Fatal(err)
		}
		v, _ := VersionByName(name)
		var heads []*Header
		for _, c := range v.Chains() {
			if h, _ := v.GenesisHeight(c); h == 0 {
				gh, _ := UpstreamGenesisHeader(v, c)
				heads = append(heads, gh)
			}
		}
		cut := NewCut(v, heads)
		if cut.ID().String() != g.ID {
			t.Errorf("%s: genesis cut id %s, vector %s", name, cut.ID(), g.ID)
		}
		chains := make([]ChainID, len(cut.Entries))
		for i, e := range cut.Entries {
			chains[i] = e.Chain
		}
		if !slices.Equal(InHashMapOrder(chains), g.Order) {
			t.Errorf("%s: order %v, vector %v", name, InHashMapOrder(chains), g.Order)
		}
		var want, got map[string]any
		json.Unmarshal(g.JSON, &want)
		json.Unmarshal(cut.AppendJSON(nil), &got)
		delete(got, "id")
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if !bytes.Equal(wj, gj) {
			t.Errorf("%s: genesis cut JSON differs:\n got  %s\n want %s", name, gj, wj)
		}
	}
}

func TestGraphs(t *testing.T) {
	var f map[string]json.RawMessage
	loadVector(t, "graphs.json", &f)
	for name, g := range map[string]*Graph{"petersen": PetersenGraph, "twenty": TwentyChainGraph} {
		var adj map[string][]ChainID
		json.Unmarshal(f[name], &adj)
		if len(adj) != g.Order() {
			t.Fatalf("%s: order %d, vector %d", name, g.Order(), len(adj))
		}
		for cs, ns := range adj {
			c, _ := strconv.Atoi(cs)
			slices.Sort(ns)
			if !slices.Equal(g.Neighbors(ChainID(c)), ns) {
				t.Errorf("%s chain %d: %v, vector %v", name, c, g.Neighbors(ChainID(c)), ns)
			}
		}
	}
	if PetersenGraph.Diameter() != 2 || TwentyChainGraph.Diameter() != 3 || TwentyChainGraph.Degree() != 3 {
		t.Errorf("diameters %d %d", PetersenGraph.Diameter(), TwentyChainGraph.Diameter())
	}
	var hist map[string][][2]any
	for k, v := range f {
		if len(k) > 12 && k[:12] == "graphHistory" {
			json.Unmarshal(v, &hist)
		}
	}
	if len(hist) != 4 {
		t.Fatalf("graph history for %d versions", len(hist))
	}
	for name, entries := range hist {
		v, _ := VersionByName(name)
		if len(entries) != len(v.Graphs) {
			t.Fatalf("%s: %d graphs, vector %d", name, len(v.Graphs), len(entries))
		}
		for i, e := range entries {
			if uint64(e[0].(float64)) != v.Graphs[i].Height || e[1].(string) != v.Graphs[i].Graph.Name {
				t.Errorf("%s entry %d: %v, have %d %s", name, i, e, v.Graphs[i].Height, v.Graphs[i].Graph.Name)
			}
		}
	}
	var gh map[string]map[string]uint64
	json.Unmarshal(f["genesisHeights"], &gh)
	for name, ranges := range gh {
		v, _ := VersionByName(name)
		for rng, want := range ranges {
			var lo, hi int
			if _, err := fmtSscanRange(rng, &lo, &hi); err != nil {
				t.Fatal(err)
			}
			for c := lo; c <= hi; c++ {
				if got, _ := v.GenesisHeight(ChainID(c)); got != want {
					t.Errorf("%s chain %d genesis height %d, vector %d", name, c, got, want)
				}
			}
		}
	}
}

func TestVersionParams(t *testing.T) {
	var f map[string]json.RawMessage
	loadVector(t, "version-params.json", &f)
	for _, name := range []string{"mainnet01", "testnet04", "recap-development", "development"} {
		var p struct {
			Code        uint32            `json:"code"`
			BlockDelay  int64             `json:"blockDelayMicros"`
			Window      uint64            `json:"windowWidth"`
			HeaderSize  int               `json:"headerSizeBytes"`
			GenesisTime int64             `json:"genesisTimeMicros"`
			Targets     map[string]string `json:"genesisTarget_BEhex"`
			Forks       json.RawMessage   `json:"headerForkHeights"`
			FakeFirst   bool              `json:"fakeFirstEpochStart"`
		}
		json.Unmarshal(f[name], &p)
		v, _ := VersionByName(name)
		if v.Code != p.Code || v.BlockDelay != p.BlockDelay || v.WindowWidth != p.Window ||
			v.GenesisTime != p.GenesisTime || v.FakeFirstEpochStart != p.FakeFirst ||
			SizeForDegree(v.LatestGraph().Degree()) != p.HeaderSize {
			t.Errorf("%s: parameters differ from vector: %+v", name, p)
		}
		for rng, hexT := range p.Targets {
			var lo, hi int
			fmtSscanRange(rng, &lo, &hi)
			for c := lo; c <= hi; c++ {
				if v.GenesisTarget(ChainID(c)) != beHexU256(t, hexT) {
					t.Errorf("%s chain %d: genesis target differs", name, c)
				}
			}
		}
		var forks map[string]any
		if json.Unmarshal(p.Forks, &forks) == nil {
			fh := map[string]uint64{"OldTargetGuard": v.Forks.OldTargetGuard,
				"SkipFeatureFlagValidation": v.Forks.SkipFeatureFlagValidation, "OldDAGuard": v.Forks.OldDAGuard}
			for k, val := range forks {
				want, isNum := val.(float64)
				if !isNum { // "genesis (...)": the guard is never active
					want = 0
				}
				if k == "SlowEpoch" || k == "SlowEpoch(before=>emergencyDA allowed)" {
					if v.Forks.SlowEpoch != uint64(want) {
						t.Errorf("%s SlowEpoch %d, vector %v", name, v.Forks.SlowEpoch, val)
					}
					continue
				}
				if fh[k] != uint64(want) {
					t.Errorf("%s %s %d, vector %v", name, k, fh[k], val)
				}
			}
		} else if v.Forks != (ForkHeights{}) { // "all forks at genesis"
			t.Errorf("%s: forks %+v, vector says all at genesis", name, v.Forks)
		}
	}
}

// fmtSscanRange parses "lo-hi".
func fmtSscanRange(s string, lo, hi *int) (int, error) {
	i := bytes.IndexByte([]byte(s), '-')
	var err error
	if *lo, err = strconv.Atoi(s[:i]); err != nil {
		return 0, err
	}
	*hi, err = strconv.Atoi(s[i+1:])
	return 2, err
}

// TestEveryVectorFileIsChecked fails when a vector file appears that no test in the repository
// reads, so "every vector is checked" stays true as the folder grows.
func TestEveryVectorFileIsChecked(t *testing.T) {
	checked := map[string]string{
		"genesis-mainnet01.json": "ledger, pow", "genesis-testnet04.json": "ledger, pow",
		"genesis-recap-development.json": "ledger, pow", "genesis-development.json": "ledger, pow",
		"genesis-parent-hashes.json": "ledger", "genesis-payload-hashes.json": "ledger",
		"payload-Mainnet0Payload.json": "ledger, store", "payload-Mainnet10to19Payload.json": "ledger, store",
		"payload-Testnet041to19Payload.json": "ledger, store", "payload-Development1to19Payload.json": "ledger, store",
		"mainnet01-chain5-headers.json": "ledger, pow, store, transport", "mainnet01-header-triples.json": "ledger, pow",
		"object-encoded-examples.json": "ledger", "mainnet01-final-cut.json": "ledger",
		"genesis-cuts.json": "ledger", "merkle-primitives.json": "ledger", "graphs.json": "ledger",
		"version-params.json": "ledger",
	}
	files, err := filepath.Glob(filepath.Join(vectorDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors found in %s: %v", vectorDir, err)
	}
	for _, f := range files {
		if _, ok := checked[filepath.Base(f)]; !ok {
			t.Errorf("vector %s is not checked by any test", filepath.Base(f))
		}
	}
}
