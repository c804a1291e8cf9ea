package transport

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/ledgernode/ledger-node/internal/jsontest"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

func TestHealthCheck(t *testing.T) {
	f := newFixture(t)
	r := f.get("/health-check").expect(t, http.StatusOK)
	if string(r.body) != "Health check OK.\n" || r.header.Get("Content-Type") != "text/plain;charset=utf-8" {
		t.Errorf("%q %q", r.body, r.header.Get("Content-Type"))
	}
}

func TestCut(t *testing.T) {
	f := newFixture(t)
	r := f.get("cut").expect(t, http.StatusOK)
	want := ledger.NewCut(f.v, f.heads).AppendJSON(nil)
	if !bytes.Equal(r.body, want) {
		t.Errorf("cut %s, want %s", r.body, want)
	}
	if _, _, err := ledger.DecodeCutJSON(r.body); err != nil {
		t.Error(err)
	}
}

func TestInfoDevelopment(t *testing.T) {
	f := newFixture(t)
	r := f.get("/info").expect(t, http.StatusOK)
	want := []string{"nodeApiVersion", "nodeBlockDelay", "nodeChains", "nodeGenesisHeights", "nodeGraphHistory",
		"nodeHistoricalChains", "nodeLatestBehaviorHeight", "nodeNumberOfChains", "nodePackageVersion",
		"nodeServiceDate", "nodeVersion"}
	if got := jsontest.ObjectKeys(t, r.body); !slices.Equal(got, want) {
		t.Fatalf("keys %v", got)
	}
	var info struct {
		NodeApiVersion           string          `json:"nodeApiVersion"`
		NodeBlockDelay           int64           `json:"nodeBlockDelay"`
		NodeChains               []string        `json:"nodeChains"`
		NodeGenesisHeights       [][2]any        `json:"nodeGenesisHeights"`
		NodeGraphHistory         json.RawMessage `json:"nodeGraphHistory"`
		NodeHistoricalChains     json.RawMessage `json:"nodeHistoricalChains"`
		NodeLatestBehaviorHeight uint64          `json:"nodeLatestBehaviorHeight"`
		NodeNumberOfChains       int             `json:"nodeNumberOfChains"`
		NodePackageVersion       string          `json:"nodePackageVersion"`
		NodeServiceDate          *string         `json:"nodeServiceDate"`
		NodeVersion              string          `json:"nodeVersion"`
	}
	if err := json.Unmarshal(r.body, &info); err != nil {
		t.Fatal(err)
	}
	var chains []string
	for _, c := range ledger.HashMapOrder {
		chains = append(chains, strconv.Itoa(int(c)))
	}
	if info.NodeApiVersion != "0.0" || info.NodeBlockDelay != 30_000_000 || !slices.Equal(info.NodeChains, chains) ||
		info.NodeNumberOfChains != 20 || info.NodePackageVersion != "9.9.9-test" || info.NodeVersion != "development" ||
		info.NodeServiceDate == nil || *info.NodeServiceDate != "2030-01-01T00:00:00Z" ||
		info.NodeLatestBehaviorHeight != ledger.Development.LatestBehaviorHeight || len(info.NodeGenesisHeights) != 20 {
		t.Errorf("info %s", r.body)
	}
	if !bytes.Equal(info.NodeGraphHistory, info.NodeHistoricalChains) {
		t.Errorf("graph history and historical chains differ")
	}
	var hist [][2]json.RawMessage
	if err := json.Unmarshal(info.NodeGraphHistory, &hist); err != nil || len(hist) != 1 || string(hist[0][0]) != "0" {
		t.Errorf("graph history %s (%v)", info.NodeGraphHistory, err)
	}
}

// TestInfoMainnetSyncing compares /info of a mainnet node whose cut is below the 20-chain
// transition with upstream's published response (chainweb-api.md §8.2), field by field where
// upstream's differ by design (package version, latest behavior height, service date).
func TestInfoMainnetSyncing(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	v := ledger.Mainnet01
	var heads []*ledger.Header
	for c := ledger.ChainID(0); c < 10; c++ {
		h, _ := ledger.UpstreamGenesisHeader(v, c)
		heads = append(heads, h)
	}
	f := &fixture{t: t}
	f.start(ServiceConfig{Version: v, Store: db, PackageVersion: "2.30", Cut: func() *ledger.Cut { return ledger.NewCut(v, heads) }})
	r := f.get("/info").expect(t, http.StatusOK)
	const upstream = `{"nodeApiVersion":"0.0","nodeBlockDelay":30000000,"nodeChains":["9","0","6","4","1","2","3","5","8","7"],"nodeGenesisHeights":[["16",852054],["9",0],["0",0],["6",0],["4",0],["1",0],["2",0],["18",852054],["14",852054],["10",852054],["3",0],["12",852054],["5",0],["17",852054],["11",852054],["8",0],["7",0],["15",852054],["13",852054],["19",852054]],"nodeGraphHistory":[[852054,[[16,[1,17,15]],[9,[6,4,7]],[0,[10,5,15]],[6,[9,1,8]],[4,[9,14,19]],[1,[16,6,11]],[2,[12,17,7]],[18,[3,17,19]],[14,[4,15,13]],[10,[0,11,19]],[3,[18,8,13]],[12,[2,11,13]],[5,[0,8,7]],[17,[16,2,18]],[11,[1,10,12]],[8,[6,3,5]],[7,[9,2,5]],[15,[16,0,14]],[13,[14,3,12]],[19,[4,18,10]]]],[0,[[9,[4,5,8]],[0,[2,3,5]],[6,[1,5,7]],[4,[9,1,2]],[1,[6,4,3]],[2,[0,4,7]],[3,[0,1,8]],[5,[9,0,6]],[8,[9,3,7]],[7,[6,2,8]]]]]`
	if !bytes.HasPrefix(r.body, []byte(upstream)) {
		t.Fatalf("differs from upstream:\n got %s\nwant %s…", r.body, upstream)
	}
	var info map[string]any
	json.Unmarshal(r.body, &info)
	if info["nodeNumberOfChains"] != 10.0 || info["nodeServiceDate"] != nil || info["nodeLatestBehaviorHeight"] != 6269345.0 {
		t.Errorf("info %s", r.body)
	}
	// Without a cut the route is absent.
	f2 := &fixture{t: t}
	f2.start(ServiceConfig{Version: v, Store: db, PackageVersion: "x"})
	f2.get("cut").expect(t, http.StatusNotFound)
}
