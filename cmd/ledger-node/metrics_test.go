package main

import (
	"bufio"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pow"
)

// scrape reads GET path on the node and parses it with Prometheus' own text-format parser,
// which fails on anything a Prometheus server would refuse (bad names, types, label syntax).
func scrape(t *testing.T, base, path string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("GET %s: Content-Type %q, want the text exposition format's", path, ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: not the text exposition format: %v", path, err)
	}
	return mfs
}

// sample returns the value of family name's sample whose labels include want (a counter's,
// gauge's or histogram's count), and whether there is one.
func sample(mfs map[string]*dto.MetricFamily, name string, want ...string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, m := range mf.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if have[want[i]] != want[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// sum adds up every sample of a counter or gauge family.
func sum(mfs map[string]*dto.MetricFamily, name string) float64 {
	var s float64
	if mf := mfs[name]; mf != nil {
		for _, m := range mf.Metric {
			s += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return s
}

// The metrics of a mining development node: every family is there with its type, and they move
// as the node works: heights and the miner's counts rise, a rejected /send counts under its
// check, an admitted one as admitted and then executed with its gas, an HTTP request counts
// under its route class and status, an update stream's client shows.
func TestMetricsOfAMiningNode(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 1)
	before := scrape(t, n.url, "/metrics")

	types := map[string]dto.MetricType{
		"ledger_node_chain_height": dto.MetricType_GAUGE, "ledger_node_cut_height": dto.MetricType_GAUGE,
		"ledger_node_blocks_inserted_total": dto.MetricType_COUNTER, "ledger_node_blocks_entered_cut_total": dto.MetricType_COUNTER,
		"ledger_node_blocks_orphaned_total": dto.MetricType_COUNTER, "ledger_node_reorgs_total": dto.MetricType_COUNTER,
		"ledger_node_reorg_depth_max_blocks": dto.MetricType_GAUGE, "ledger_node_block_executions_total": dto.MetricType_COUNTER,
		"ledger_node_mined_blocks_total": dto.MetricType_COUNTER, "ledger_node_mining_hashes_total": dto.MetricType_COUNTER,
		"ledger_node_transactions_executed_total": dto.MetricType_COUNTER, "ledger_node_gas_used_total": dto.MetricType_COUNTER,
		"ledger_node_executor_build_seconds": dto.MetricType_HISTOGRAM, "ledger_node_executor_apply_seconds": dto.MetricType_HISTOGRAM,
		"ledger_node_mempool_pending": dto.MetricType_GAUGE, "ledger_node_mempool_badlisted": dto.MetricType_GAUGE,
		"ledger_node_mempool_admitted_total": dto.MetricType_COUNTER, "ledger_node_mempool_rejected_total": dto.MetricType_COUNTER,
		"ledger_node_http_requests_total": dto.MetricType_COUNTER, "ledger_node_http_request_duration_seconds": dto.MetricType_HISTOGRAM,
		"ledger_node_sse_subscribers": dto.MetricType_GAUGE, "ledger_node_sse_dropped_subscribers_total": dto.MetricType_COUNTER,
		"ledger_node_sse_events_published_total": dto.MetricType_COUNTER,
		"ledger_node_peers":                      dto.MetricType_GAUGE, "ledger_node_sync_active": dto.MetricType_GAUGE,
		"ledger_node_sync_blocks_fetched_total": dto.MetricType_COUNTER, "ledger_node_store_writes_failing": dto.MetricType_GAUGE,
		"ledger_node_leveldb_io_write_bytes_total": dto.MetricType_COUNTER, "ledger_node_leveldb_level_tables": dto.MetricType_GAUGE,
		"ledger_node_leveldb_compactions_total": dto.MetricType_COUNTER,
		"go_goroutines":                         dto.MetricType_GAUGE, "go_memstats_heap_alloc_bytes": dto.MetricType_GAUGE,
		"process_cpu_seconds_total": dto.MetricType_COUNTER,
	}
	for name, typ := range types {
		mf := before[name]
		if mf == nil {
			t.Errorf("no family %s", name)
			continue
		}
		if mf.GetType() != typ {
			t.Errorf("%s is a %v, want a %v", name, mf.GetType(), typ)
		}
	}
	if got := len(before["ledger_node_chain_height"].GetMetric()); got != 20 {
		t.Errorf("ledger_node_chain_height has %d chains, want 20", got)
	}
	// No backup API on this node, so no backup families.
	if before["ledger_node_backup_jobs_total"] != nil {
		t.Error("backup families on a node without the backup API")
	}

	// A /send refused for its time-to-live, one for its signature, one admitted.
	expired := devtx.Transfer("sender00", "sender01", "1.0", "0")
	expired.CreationTime, expired.TTL = time.Now().Add(-2*time.Hour).Unix(), 60
	badSig := devtx.Transfer("sender00", "sender01", "1.0", "0").Build()
	badSig.Sigs[0] = devtx.Key("sender01").SignHash(badSig.Hash)
	for _, cmd := range []*api.Command{expired.Build(), badSig} {
		if status, body := post(t, pactURL(n.url, 0, "send"), (&api.SubmitBatch{Cmds: []*api.Command{cmd}}).AppendJSON(nil)); status != 400 {
			t.Fatalf("send: %d %s, want 400", status, body)
		}
	}
	send(t, n.url, 0, devtx.Transfer("sender00", "sender01", "1.0", "0").Build())

	// An update stream's client.
	stream, err := http.Get(n.url + "/chainweb/0.0/development/header/updates")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if _, err := bufio.NewReader(stream.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}

	fetchCut(t, n.url) // a GET to count

	// Wait for the admitted transfer to be executed (and more blocks mined). The genesis
	// transactions count already.
	executed, _ := sample(before, "ledger_node_transactions_executed_total", "chain", "0")
	var after map[string]*dto.MetricFamily
	for deadline := hangguard.Deadline(); ; {
		after = scrape(t, n.url, "/metrics")
		if v, _ := sample(after, "ledger_node_transactions_executed_total", "chain", "0"); v == executed+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the admitted transfer was never counted as executed")
		}
		time.Sleep(50 * time.Millisecond)
	}

	rises := func(name string, labels ...string) {
		t.Helper()
		b, _ := sample(before, name, labels...)
		a, ok := sample(after, name, labels...)
		if !ok || a <= b {
			t.Errorf("%s%v: %v then %v, want it to rise", name, labels, b, a)
		}
	}
	rises("ledger_node_cut_height")
	rises("ledger_node_chain_height", "chain", "0")
	rises("ledger_node_blocks_inserted_total")
	rises("ledger_node_blocks_entered_cut_total")
	rises("ledger_node_mined_blocks_total")
	rises("ledger_node_mining_hashes_total")
	rises("ledger_node_gas_used_total", "chain", "0")
	rises("ledger_node_executor_build_seconds")
	rises("ledger_node_executor_apply_seconds")
	rises("ledger_node_sse_events_published_total")
	rises("ledger_node_leveldb_io_write_bytes_total")
	for _, reason := range []string{"time", "pact"} {
		b, _ := sample(before, "ledger_node_mempool_rejected_total", "chain", "0", "reason", reason)
		if a, _ := sample(after, "ledger_node_mempool_rejected_total", "chain", "0", "reason", reason); a != b+1 {
			t.Errorf("mempool_rejected_total{chain=0,reason=%s}: %v then %v, want one more", reason, b, a)
		}
	}
	if a, _ := sample(after, "ledger_node_mempool_admitted_total", "chain", "0"); a != 1 {
		t.Errorf("mempool_admitted_total{chain=0} = %v, want 1", a)
	}
	if a := sum(after, "ledger_node_mempool_rejected_total"); a != sum(before, "ledger_node_mempool_rejected_total")+2 {
		t.Errorf("%v rejections in all after two rejected sends", a)
	}
	sendRoute := []string{"api", "service", "method", "POST", "route", "chain/{chain}/pact/api/v1/send"}
	if a, _ := sample(after, "ledger_node_http_requests_total", append(sendRoute, "code", "400")...); a != 2 {
		t.Errorf("http_requests_total for the two refused sends: %v, want 2", a)
	}
	if a, _ := sample(after, "ledger_node_http_request_duration_seconds", sendRoute...); a != 3 {
		t.Errorf("http_request_duration_seconds for /send: %v observations, want 3", a)
	}
	rises("ledger_node_http_requests_total", "api", "service", "route", "cut", "code", "200")
	rises("ledger_node_http_requests_total", "method", "GET", "route", "/metrics", "code", "200") // the scrapes
	if a, _ := sample(after, "ledger_node_sse_subscribers"); a != 1 {
		t.Errorf("sse_subscribers = %v with one stream open", a)
	}
	if a, _ := sample(after, "ledger_node_http_requests_total", "route", "unmatched"); a != 0 {
		t.Errorf("%v unmatched requests counted; the test made none", a)
	}
}

// --metrics-path moves the metrics, "" turns them off, and the peer API's requests count under
// api="peer".
func TestMetricsPath(t *testing.T) {
	off := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off", "--metrics-path", "")
	if resp, err := http.Get(off.url + "/metrics"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("GET /metrics with --metrics-path \"\": %v %v, want 404", resp.StatusCode, err)
	}
	off.stop()

	moved := startNodeArgs(t, "--data-dir", t.TempDir(), "--mining", "off", "--metrics-path", "/debug/metrics")
	if resp, err := http.Get(moved.url + "/metrics"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("GET /metrics with the metrics moved: %v %v, want 404", resp.StatusCode, err)
	}
	get(t, "https://"+moved.p2p+"/chainweb/0.0/development/cut", "")
	mfs := scrape(t, moved.url, "/debug/metrics")
	if v, _ := sample(mfs, "ledger_node_http_requests_total", "route", "unmatched", "code", "404"); v != 1 {
		t.Errorf("the 404 of /metrics counted %v times as unmatched, want 1", v)
	}
	if v, _ := sample(mfs, "ledger_node_http_requests_total", "api", "peer", "route", "cut", "code", "200"); v != 1 {
		t.Errorf("the peer API's GET cut counted %v times, want 1", v)
	}
	if mfs["ledger_node_mined_blocks_total"] != nil {
		t.Error("mining families on a node that does not mine")
	}
}

func TestCheckMetricsPath(t *testing.T) {
	for _, p := range []string{"", "/metrics", "/debug/metrics", "/a.b/c-d_e"} {
		if err := checkMetricsPath(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	for _, p := range []string{"metrics", "/", "/metrics/", "//m", "/a/../m", "/{m}", "/m%20", "/m?x", "/chainweb/m",
		"/info", "/health-check", "/make-blocks", "/a/b/c/d/e/f/g/h/i", "/m n"} {
		if err := checkMetricsPath(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
}

// The families an operator alerts on (issue 36): each has its HELP and TYPE; the counters are
// there at zero before anything happened (a failed transaction, a validation failure); the head
// ages and block counts move as the node mines; a failed transaction counts as a failure.
func TestAlertingMetrics(t *testing.T) {
	n := startMiningNode(t, t.TempDir())
	waitCut(t, n.url, 2)
	before := scrape(t, n.url, "/metrics")
	types := map[string]dto.MetricType{
		"ledger_node_build_info": dto.MetricType_GAUGE, "ledger_node_chain_head_timestamp_seconds": dto.MetricType_GAUGE,
		"ledger_node_chain_head_age_seconds": dto.MetricType_GAUGE, "ledger_node_chain_blocks_total": dto.MetricType_COUNTER,
		"ledger_node_chain_difficulty": dto.MetricType_GAUGE, "ledger_node_data_dir_free_bytes": dto.MetricType_GAUGE,
		"ledger_node_transaction_outcomes_total": dto.MetricType_COUNTER, "ledger_node_mempool_pending_bytes": dto.MetricType_GAUGE,
		"ledger_node_mempool_oldest_pending_age_seconds": dto.MetricType_GAUGE,
		"ledger_node_header_validation_failures_total":   dto.MetricType_COUNTER,
		"process_resident_memory_bytes":                  dto.MetricType_GAUGE, "process_open_fds": dto.MetricType_GAUGE,
		"process_max_fds": dto.MetricType_GAUGE, "process_start_time_seconds": dto.MetricType_GAUGE,
	}
	for name, typ := range types {
		mf := before[name]
		switch {
		case mf == nil:
			t.Errorf("no family %s", name)
		case mf.GetType() != typ || mf.GetHelp() == "":
			t.Errorf("%s: TYPE %v, HELP %q; want a %v with a HELP", name, mf.GetType(), mf.GetHelp(), typ)
		}
	}
	for _, name := range []string{"ledger_node_chain_head_timestamp_seconds", "ledger_node_chain_head_age_seconds",
		"ledger_node_chain_blocks_total", "ledger_node_chain_difficulty", "ledger_node_mempool_pending_bytes"} {
		if got := len(before[name].GetMetric()); got != 20 {
			t.Errorf("%s has %d series, want one per chain (20)", name, got)
		}
	}
	if v, ok := sample(before, "ledger_node_build_info", "version", packageVersion, "goversion", runtime.Version()); !ok || v != 1 {
		t.Errorf("build_info{version=%s,goversion=%s} = %v (present %v), want 1", packageVersion, runtime.Version(), v, ok)
	}
	if v, _ := sample(before, "ledger_node_data_dir_free_bytes"); v <= 0 {
		t.Errorf("data_dir_free_bytes = %v", v)
	}
	if v, _ := sample(before, "ledger_node_chain_difficulty", "chain", "7"); v < 1 {
		t.Errorf("chain_difficulty{chain=7} = %v", v)
	}
	// Counters at zero before their first event.
	for _, rule := range []string{"IncorrectPow", "MissingParent", "InvalidPayload", "BlockInTheFuture"} {
		if v, ok := sample(before, "ledger_node_header_validation_failures_total", "rule", rule); !ok || v != 0 {
			t.Errorf("header_validation_failures_total{rule=%s} = %v (present %v), want 0", rule, v, ok)
		}
	}
	if v, ok := sample(before, "ledger_node_transaction_outcomes_total", "chain", "0", "outcome", "failure"); !ok || v != 0 {
		t.Errorf("transaction_outcomes_total{chain=0,outcome=failure} = %v (present %v), want 0", v, ok)
	}

	// A transaction that fails in its block.
	bad := devtx.Cmd{Code: `(namespace "free") (module outcome "" (defun f () 1))`, GasLimit: 100_000,
		Signers: []*api.KeyPair{devtx.Key("sender00")}, Nonce: "outcome-failure"}.Build()
	send(t, n.url, 0, bad)
	if r := waitMined(t, n.url, 0, bad); r.Result.Status != "failure" {
		t.Fatalf("the transaction meant to fail: %s", r.Result.Status)
	}
	var after map[string]*dto.MetricFamily
	for deadline := hangguard.Deadline(); ; {
		after = scrape(t, n.url, "/metrics")
		if v, _ := sample(after, "ledger_node_transaction_outcomes_total", "chain", "0", "outcome", "failure"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(hangguard.Failure("the failed transaction counted as a failure"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	succeeded, _ := sample(after, "ledger_node_transaction_outcomes_total", "chain", "0", "outcome", "success")
	executed, _ := sample(after, "ledger_node_transactions_executed_total", "chain", "0")
	if succeeded+1 != executed {
		t.Errorf("chain 0: %v successes and 1 failure of %v transactions executed", succeeded, executed)
	}
	// The node mined meanwhile: chain 0's head is newer and its block count higher.
	for _, name := range []string{"ledger_node_chain_head_timestamp_seconds", "ledger_node_chain_blocks_total"} {
		b, _ := sample(before, name, "chain", "0")
		if a, _ := sample(after, name, "chain", "0"); a <= b {
			t.Errorf("%s{chain=0}: %v then %v, want it to rise", name, b, a)
		}
	}
	headTime, _ := sample(after, "ledger_node_chain_head_timestamp_seconds", "chain", "0")
	age, _ := sample(after, "ledger_node_chain_head_age_seconds", "chain", "0")
	if age < 0 || headTime <= 0 {
		t.Errorf("chain 0's head: created %v, %v s old", headTime, age)
	}
}

// A node syncing from a peer reports the peer's cut height, and no lag once it has its blocks;
// a node without peers reports both at 0.
func TestSyncLagMetrics(t *testing.T) {
	t.Parallel() // waits on a peer
	tg, err := pow.TargetFromDifficulty(ledger.U256{1 << 17})
	if err != nil {
		t.Fatal(err)
	}
	opts := nodeOptions{genesisTarget: &tg, workers: 1}
	dirA := t.TempDir()
	a := startNodeOpts(t, opts, "--data-dir", dirA, "--miner-key", devMinerKey)
	waitCut(t, a.url, 4)
	a.stop()
	a = startNodeOpts(t, opts, "--data-dir", dirA, "--mining", "off")
	alone := scrape(t, a.url, "/metrics")
	for _, name := range []string{"ledger_node_sync_lag_blocks", "ledger_node_sync_peer_cut_height"} {
		if v, ok := sample(alone, name); !ok || v != 0 || alone[name].GetHelp() == "" || alone[name].GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s on a node without peers: %v (present %v), want a gauge at 0", name, v, ok)
		}
	}
	height := float64(fetchCut(t, a.url).Height)

	b := startNodeOpts(t, opts, "--data-dir", t.TempDir(), "--mining", "off", "--peer", a.p2p)
	var mfs map[string]*dto.MetricFamily
	if !hangguard.Wait(func() bool {
		mfs = scrape(t, b.url, "/metrics")
		peer, _ := sample(mfs, "ledger_node_sync_peer_cut_height")
		own, _ := sample(mfs, "ledger_node_cut_height")
		return peer == height && own == height
	}) {
		peer, _ := sample(mfs, "ledger_node_sync_peer_cut_height")
		own, _ := sample(mfs, "ledger_node_cut_height")
		t.Fatalf("%s: peer cut height %v, own %v", hangguard.Failure(fmt.Sprintf("the peer's cut height %v seen and reached", height)), peer, own)
	}
	if lag, _ := sample(mfs, "ledger_node_sync_lag_blocks"); lag != 0 {
		t.Errorf("sync_lag_blocks = %v at the peer's cut", lag)
	}
}
