package transport

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

func TestPayloadByHash(t *testing.T) {
	f := newFixture(t)
	m5 := f.named["m5"]
	p := f.payloads[m5.PayloadHash]
	wantData, _ := p.Data().MarshalJSON()
	wantOut, _ := p.MarshalJSON()
	for _, q := range []string{"", "?height=5", "?height=0"} {
		r := f.get("chain/0/payload/"+m5.PayloadHash.String()+q).expect(t, http.StatusOK)
		if string(r.body) != string(wantData) || r.header.Get("Content-Type") != "application/json;charset=utf-8" {
			t.Errorf("payload%s: %s", q, r.body)
		}
		r = f.get("chain/0/payload/"+m5.PayloadHash.String()+"/outputs"+q).expect(t, http.StatusOK)
		if string(r.body) != string(wantOut) {
			t.Errorf("outputs%s: %s", q, r.body)
		}
	}
	// Payloads are found by hash on any chain of the version.
	f.get("chain/7/payload/"+m5.PayloadHash.String()).expect(t, http.StatusOK)
	for _, path := range []string{"chain/0/payload/" + m5.Hash.String(), "chain/0/payload/" + f.named["m25"].PayloadHash.String() + "/outputs"} {
		key, reason := f.get(path).notFound(t)
		if !strings.Contains(path, key) || reason != "key not found" {
			t.Errorf("%s: %q %q", path, key, reason)
		}
	}
	for _, q := range []string{"height=x", "height=-1", "height="} {
		r := f.get("chain/0/payload/"+m5.PayloadHash.String()+"?"+q).expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(string(r.body), "Error parsing query parameter height failed: ") {
			t.Errorf("%s: %q", q, r.body)
		}
	}
	f.get("chain/0/payload/"+m5.PayloadHash.String(), "Accept", "application/octet-stream").expect(t, http.StatusNotAcceptable)
}

// batchHashes decodes a batch response into the payload hashes it holds.
func batchHashes(t *testing.T, r response) []ledger.Hash {
	t.Helper()
	r.expect(t, http.StatusOK)
	var items []struct {
		PayloadHash ledger.Hash `json:"payloadHash"`
		Coinbase    *string     `json:"coinbase"`
	}
	if err := json.Unmarshal(r.body, &items); err != nil || items == nil {
		t.Fatalf("batch body %s: %v", r.body, err)
	}
	out := make([]ledger.Hash, len(items))
	for i, it := range items {
		out[i] = it.PayloadHash
	}
	return out
}

func TestPayloadBatch(t *testing.T) {
	f := newFixture(t, func(c *ServiceConfig) { c.PayloadBatchLimit = 4 })
	ph := func(names ...string) []ledger.Hash {
		var out []ledger.Hash
		for _, n := range names {
			out = append(out, f.named[n].PayloadHash)
		}
		return out
	}
	unknown := ledger.Hash{77}
	for _, path := range []string{"chain/0/payload/batch", "chain/0/payload/outputs/batch"} {
		for _, c := range []struct {
			name string
			body any
			want []ledger.Hash
		}{
			{"bare array", append(ph("m1", "m2"), unknown), ph("m1", "m2")},
			{"object with heights", map[string]any{"hashes": ph("m1", "m2", "m3"), "heights": []int{1, 2, 3}}, ph("m1", "m2", "m3")},
			{"object without heights", map[string]any{"hashes": ph("m4", "n1")}, ph("m4", "n1")},
			{"heights shorter: zipped", map[string]any{"hashes": ph("m1", "m2", "m3"), "heights": []int{1}}, ph("m1")},
			{"cut to the batch limit", ph("m1", "m2", "m3", "m4", "m5", "m6"), ph("m1", "m2", "m3", "m4")},
			{"duplicates", ph("m1", "m1", "m2"), ph("m1", "m2")},
			{"missing payload omitted", ph("m25", "m24"), ph("m24")},
			{"nothing found", []ledger.Hash{unknown}, []ledger.Hash{}},
			{"empty", []ledger.Hash{}, []ledger.Hash{}},
		} {
			r := f.postJSON(path, c.body)
			if got := batchHashes(t, r); !slices.Equal(got, c.want) {
				t.Errorf("%s %s: got %v want %v", path, c.name, f.names(got), f.names(c.want))
			}
			if strings.Contains(path, "outputs") != strings.Contains(string(r.body), `"coinbase"`) && len(c.want) > 0 {
				t.Errorf("%s %s: outputs and batch kind disagree: %.100s", path, c.name, r.body)
			}
		}
		for _, bad := range []string{`{}`, `"x"`, `[1]`, `["short"]`, `{"hashes":"x"}`, `{"hashes":null}`, `{"heights":[1]}`, `[`, ``, `{"hashes":[],"heights":[-1]}`, `null`} {
			r := f.postJSON(path, []byte(bad)).expect(t, http.StatusBadRequest)
			if string(r.body) != "Invalid payload batch body" {
				t.Errorf("%s %q: %q", path, bad, r.body)
			}
		}
		f.do(http.MethodPost, path, []byte(`[]`)).expect(t, http.StatusUnsupportedMediaType)
	}
}
