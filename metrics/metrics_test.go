package metrics

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/metrics/hist"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport"
)

// serve runs h on a GET and parses the answer with Prometheus' text parser.
func serve(t *testing.T, h fasthttp.RequestHandler) map[string]*dto.MetricFamily {
	t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(fasthttp.MethodGet)
	h(&ctx)
	if ctx.Response.StatusCode() != 200 || !strings.HasPrefix(string(ctx.Response.Header.ContentType()), "text/plain; version=0.0.4") {
		t.Fatalf("%d %q", ctx.Response.StatusCode(), ctx.Response.Header.ContentType())
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(ctx.Response.Body()))
	if err != nil {
		t.Fatalf("not the text format: %v\n%s", err, ctx.Response.Body())
	}
	return mfs
}

// A registry of a store and an HTTP server without a runtime: the families of what it has
// (goleveldb, HTTP, Go), none of what it lacks, and the request histograms as hist kept them.
func TestRegistryOfWhatTheNodeHas(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs := transport.NewRequestStats()
	svc := transport.NewService(transport.ServiceConfig{Version: ledger.Development, Store: db, Requests: rs})
	for _, path := range []string{"/info", "/info", "/nowhere"} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI(path)
		svc.Handler()(&ctx)
	}
	mfs := serve(t, Handler(New(Sources{Version: ledger.Development, Store: db, Requests: rs}), nil))

	for _, name := range []string{"ledger_node_leveldb_io_write_bytes_total", "ledger_node_leveldb_level_tables",
		"ledger_node_http_requests_total", "ledger_node_http_request_duration_seconds", "go_goroutines"} {
		if mfs[name] == nil {
			t.Errorf("no family %s", name)
		}
	}
	for _, name := range []string{"ledger_node_cut_height", "ledger_node_mined_blocks_total", "ledger_node_sse_subscribers",
		"ledger_node_backup_jobs_total", "ledger_node_peers"} {
		if mfs[name] != nil {
			t.Errorf("family %s without its source", name)
		}
	}
	got := map[string]float64{}
	for _, m := range mfs["ledger_node_http_requests_total"].Metric {
		labels := ""
		for _, l := range m.Label {
			labels += l.GetName() + "=" + l.GetValue() + " "
		}
		got[labels] = m.Counter.GetValue()
	}
	want := map[string]float64{
		"api=service code=200 method=GET route=/info ":  2,
		"api=service code=404 method= route=unmatched ": 1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	// Every other route class is there from the first scrape, at zero, with its 200 series
	// only: an alert on a route's rate sees the series before its first request.
	zeros := 0
	for k, v := range got {
		if _, ok := want[k]; ok {
			continue
		}
		if v != 0 || !strings.Contains(k, "code=200 ") {
			t.Errorf("unexpected request series %s = %v", k, v)
		}
		zeros++
	}
	if v, ok := got["api=service code=200 method=GET route=chain/{chain}/header "]; !ok || v != 0 || zeros < 10 {
		t.Errorf("route classes not served yet: %d zero series, GET header %v %v (all: %v)", zeros, v, ok, got)
	}
	for k := range got {
		if _, ok := want[k]; !ok && (strings.Contains(k, "route=unmatched") || strings.Contains(k, "route=refused") || strings.Contains(k, "route=preflight")) {
			t.Errorf("a zero 200 series for a class that never answers 200: %s", k)
		}
	}
	for _, m := range mfs["ledger_node_http_request_duration_seconds"].Metric {
		h := m.Histogram
		if len(h.Bucket) != len(hist.Bounds)+1 || // and +Inf
			h.Bucket[len(h.Bucket)-1].GetCumulativeCount() != h.GetSampleCount() {
			t.Errorf("histogram %v: %d buckets, last %d of %d", m.Label, len(h.Bucket), h.Bucket[len(h.Bucket)-1].GetCumulativeCount(), h.GetSampleCount())
		}
	}
}

// The collector's histograms are hist's snapshots, bucket for bucket.
func TestHistogramKeepsBuckets(t *testing.T) {
	var h hist.Histogram
	h.Observe(200 * time.Microsecond)
	h.Observe(2 * time.Second)
	h.Observe(20 * time.Second)
	c := make(chan prometheus.Metric, 1)
	histogram(c, buildSeconds, h.Snapshot())
	var m dto.Metric
	if err := (<-c).Write(&m); err != nil {
		t.Fatal(err)
	}
	if m.Histogram.GetSampleCount() != 3 || m.Histogram.GetSampleSum() < 22.0002-1e-9 || m.Histogram.GetSampleSum() > 22.0002+1e-9 {
		t.Fatalf("count %d sum %v", m.Histogram.GetSampleCount(), m.Histogram.GetSampleSum())
	}
	for _, b := range m.Histogram.Bucket {
		want := uint64(0)
		switch {
		case b.GetUpperBound() >= 2.5:
			want = 2
		case b.GetUpperBound() >= 0.00025:
			want = 1
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}
