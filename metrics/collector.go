package metrics

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/actors/peersync"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/metrics/hist"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport"
)

// collector is the node's families, each read from Sources when Prometheus collects.
type collector struct {
	src Sources
	// chainLabels are the chain ids as label values, made once.
	chainLabels []string
	// build is build_info's sample, made once.
	build prometheus.Metric
	// now is the clock of the ages (time.Now; tests set it).
	now func() time.Time
}

func newCollector(src Sources) *collector {
	c := &collector{src: src, now: time.Now}
	c.build = prometheus.MustNewConstMetric(buildInfo, prometheus.GaugeValue, 1, src.Build, runtime.Version(), revision())
	if src.Version != nil {
		for _, id := range src.Version.Chains() {
			for int(id) >= len(c.chainLabels) {
				c.chainLabels = append(c.chainLabels, "")
			}
			c.chainLabels[id] = strconv.Itoa(int(id))
		}
	}
	return c
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(Prefix+name, help, labels, nil)
}

// The families. Names follow Prometheus' conventions: base units (seconds, bytes), counters end
// in _total.
var (
	chainHeight = desc("chain_height", "Height of each chain's block in the best cut.", "chain")
	cutHeight   = desc("cut_height", "Height of the best cut: the sum of its chains' heights.")

	blocksInserted = desc("blocks_inserted_total", "Blocks validated and stored (mined here or fetched from peers).")
	blocksEntered  = desc("blocks_entered_cut_total", "Blocks that entered the best cut.")
	blocksOrphaned = desc("blocks_orphaned_total", "Blocks that left the best cut when it switched to a heavier fork.")
	ruleFailures   = desc("header_validation_failures_total", "Blocks that failed a validation rule, by rule (chainweb's names).", "rule")

	buildInfo     = desc("build_info", "The node's release, the Go version it was built with and its source revision; always 1.", "version", "goversion", "revision")
	headTime      = desc("chain_head_timestamp_seconds", "Creation time of each chain's block in the best cut, in seconds since the Unix epoch.", "chain")
	headAge       = desc("chain_head_age_seconds", "Seconds since the creation time of each chain's block in the best cut.", "chain")
	chainBlocks   = desc("chain_blocks_total", "Blocks that entered the best cut, by chain.", "chain")
	difficulty    = desc("chain_difficulty", "Difficulty of each chain's block in the best cut: the hashes a block of its target takes on average.", "chain")
	syncLag       = desc("sync_lag_blocks", "How far the best cut a known peer offered is above this node's, in cut height (blocks); 0 when not above or none known.")
	peerCutHeight = desc("sync_peer_cut_height", "Height of the best cut a known peer offered last; 0 when none.")
	diskFreeBytes = desc("data_dir_free_bytes", "Bytes available to the node on the file system of its data directory.")
	txOutcomes    = desc("transaction_outcomes_total", "Transactions of the blocks applied to each chain's Pact state, by outcome (success, failure).", "chain", "outcome")
	mempoolBytes  = desc("mempool_pending_bytes", "Size of the transactions waiting in each chain's mempool (their cmd strings and signatures).", "chain")
	mempoolOldest = desc("mempool_oldest_pending_age_seconds", "Seconds the transaction waiting longest in each chain's mempool has waited; 0 when none waits.", "chain")

	reorgs       = desc("reorgs_total", "Switches of the best cut to a heavier fork that left blocks behind.")
	reorgDeepest = desc("reorg_depth_max_blocks", "The most blocks one chain lost in one switch to a heavier fork.")

	minedBlocks  = desc("mined_blocks_total", "Blocks this node mined that were stored.")
	minedHashes  = desc("mining_hashes_total", "Nonces the miner tried; its rate is the hash rate.")
	txsExecuted  = desc("transactions_executed_total", "Transactions of the blocks applied to each chain's Pact state.", "chain")
	gasUsed      = desc("gas_used_total", "Gas used by the transactions of the blocks applied to each chain's Pact state.", "chain")
	buildSeconds = desc("executor_build_seconds", "Time to build a block's payload (a payload handed back unchanged is not counted).")
	applySeconds = desc("executor_apply_seconds", "Time to apply a block to its chain's Pact state.")
	executions   = desc("block_executions_total", "Blocks the executors ran or applied, by kind: validate (a block executed to validate it), "+
		"replay (a block executed again), reapply (a block applied again from its kept writes, after a reorg).", "kind")

	mempoolPending   = desc("mempool_pending", "Transactions waiting in each chain's mempool.", "chain")
	mempoolBadlisted = desc("mempool_badlisted", "Request keys each chain's mempool refuses until they expire.", "chain")
	mempoolAdmitted  = desc("mempool_admitted_total", "Transactions /send put in each chain's mempool.", "chain")
	mempoolRejected  = desc("mempool_rejected_total", "Transactions /send refused, by chain and the check they failed.", "chain", "reason")

	httpRequests = desc("http_requests_total", "HTTP requests by API, route class and status code (\"other\": a code without a counter of its own).",
		"api", "method", "route", "code")
	httpSeconds = desc("http_request_duration_seconds", "Time from reading an HTTP request to its handler's return, by route class.",
		"api", "method", "route")

	sseSubscribers = desc("sse_subscribers", "Clients of the header and block update streams.")
	sseDropped     = desc("sse_dropped_subscribers_total", "Update-stream clients dropped for falling too far behind.")
	ssePublished   = desc("sse_events_published_total", "Block events published to the update streams.")

	peers       = desc("peers", "Known peers.")
	peersBanned = desc("peers_banned", "Peers ignored for a while for serving an invalid block.")

	connsOpen    = desc("connections_open", "Connections each API holds open now.", "api")
	connsLimit   = desc("connections_limit", "Most connections each API holds open at once.", "api")
	connsRefused = desc("connections_refused_total", "Connections each API closed at once for its connection limits.", "api")
	acceptErrors = desc("accept_errors_total", "Accepts that failed for want of descriptors or buffers and were retried.", "api")
	syncing      = desc("sync_active", "1 while the node fetches the blocks of a heavier cut from a peer.")
	syncFetched  = desc("sync_blocks_fetched_total", "Blocks fetched from peers and inserted.")
	writesFailed = desc("store_writes_failing", "1 while the data directory cannot be written (mining and sync pause).")

	backupJobs    = desc("backup_jobs_total", "Backup jobs by outcome (started, done, failed).", "outcome")
	backupRunning = desc("backup_running", "1 while a backup job runs.")
	backupRows    = desc("backup_rows_copied_total", "Database rows the backup jobs copied.")
	backupBytes   = desc("backup_bytes_copied_total", "Bytes the backup jobs copied (rows and header log).")

	ldbWriteDelays    = desc("leveldb_write_delays_total", "Writes goleveldb delayed for compaction.")
	ldbWriteDelaySecs = desc("leveldb_write_delay_seconds_total", "Time writes spent delayed by goleveldb.")
	ldbWritePaused    = desc("leveldb_write_paused", "1 while goleveldb pauses writes (level 0 full).")
	ldbSnapshots      = desc("leveldb_alive_snapshots", "Open goleveldb snapshots.")
	ldbIterators      = desc("leveldb_alive_iterators", "Open goleveldb iterators.")
	ldbIORead         = desc("leveldb_io_read_bytes_total", "Bytes goleveldb read from its files.")
	ldbIOWrite        = desc("leveldb_io_write_bytes_total", "Bytes goleveldb wrote to its files.")
	ldbBlockCache     = desc("leveldb_block_cache_bytes", "Bytes in goleveldb's block cache.")
	ldbOpenTables     = desc("leveldb_open_tables", "Table files goleveldb holds open.")
	ldbLevelTables    = desc("leveldb_level_tables", "Table files per level.", "level")
	ldbLevelBytes     = desc("leveldb_level_size_bytes", "Bytes of the tables of each level.", "level")
	ldbCompactions    = desc("leveldb_compactions_total", "Compactions by kind (memtable, level0, nonlevel0, seek).", "kind")
)

// families lists every desc, for Describe.
var families = []*prometheus.Desc{buildInfo, headTime, headAge, chainBlocks, difficulty, syncLag, peerCutHeight, diskFreeBytes,
	txOutcomes, mempoolBytes, mempoolOldest, chainHeight, cutHeight, blocksInserted, blocksEntered, blocksOrphaned, ruleFailures,
	reorgs, reorgDeepest, executions, minedBlocks, minedHashes, txsExecuted, gasUsed, buildSeconds, applySeconds, mempoolPending, mempoolBadlisted,
	mempoolAdmitted, mempoolRejected, httpRequests, httpSeconds, sseSubscribers, sseDropped, ssePublished, peers,
	peersBanned, connsOpen, connsLimit, connsRefused, acceptErrors, syncing, syncFetched, writesFailed, backupJobs, backupRunning, backupRows, backupBytes,
	ldbWriteDelays, ldbWriteDelaySecs, ldbWritePaused, ldbSnapshots, ldbIterators, ldbIORead, ldbIOWrite,
	ldbBlockCache, ldbOpenTables, ldbLevelTables, ldbLevelBytes, ldbCompactions}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range families {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ch <- c.build
	if c.src.DataDir != "" {
		if free, ok := diskFree(c.src.DataDir); ok {
			gauge(ch, diskFreeBytes, free)
		}
	}
	if c.src.Runtime != nil {
		c.collectRuntime(ch)
	}
	if c.src.Requests != nil {
		collectRequests(ch, c.src.Requests.Snapshot())
	}
	if h := c.src.Updates; h != nil {
		st := h.Stats()
		gauge(ch, sseSubscribers, float64(st.Subscribers))
		counter(ch, sseDropped, float64(st.Dropped))
		counter(ch, ssePublished, float64(st.Published))
	}
	if s := c.syncer(); s != nil {
		st := s.Stats()
		gauge(ch, peers, float64(st.Peers))
		gauge(ch, peersBanned, float64(st.Banned))
		gauge(ch, syncing, boolValue(st.Syncing))
		counter(ch, syncFetched, float64(st.Fetched))
		var lag, best uint64
		if h, ok := s.BestPeerCut(); ok {
			best = h
			if own := c.src.Runtime.Cut().Height; h > own {
				lag = h - own
			}
		}
		gauge(ch, syncLag, float64(lag))
		gauge(ch, peerCutHeight, float64(best))
	}
	for api, l := range c.src.Listeners {
		st := l.Stats()
		gauge(ch, connsOpen, float64(st.Open), api)
		gauge(ch, connsLimit, float64(l.Limits().Max), api)
		counter(ch, connsRefused, float64(st.Refused), api)
		counter(ch, acceptErrors, float64(st.AcceptErrors), api)
	}
	if b := c.src.Backups; b != nil {
		st := b.Stats()
		counter(ch, backupJobs, float64(st.Started), "started")
		counter(ch, backupJobs, float64(st.Done), "done")
		counter(ch, backupJobs, float64(st.Failed), "failed")
		gauge(ch, backupRunning, boolValue(st.Running))
		counter(ch, backupRows, float64(st.Rows))
		counter(ch, backupBytes, float64(st.Bytes))
	}
	if c.src.Store != nil {
		collectLevelDB(ch, c.src)
	}
}

// syncer is the runtime's peer sync, nil without one.
func (c *collector) syncer() *peersync.Syncer {
	if c.src.Runtime == nil {
		return nil
	}
	return peersync.Of(c.src.Runtime)
}

func (c *collector) collectRuntime(ch chan<- prometheus.Metric) {
	rt := c.src.Runtime
	view := rt.View()
	gauge(ch, cutHeight, float64(view.Cut.Height))
	now := c.now().UnixMicro()
	for _, e := range view.Cut.Entries {
		chain := c.chain(int(e.Chain))
		gauge(ch, chainHeight, float64(e.Height), chain)
		if h := view.Heads.At(e.Chain); h != nil {
			gauge(ch, headTime, float64(h.CreationTime)/1e6, chain)
			gauge(ch, headAge, float64(max(now-h.CreationTime, 0))/1e6, chain)
			if d, err := pow.Difficulty(h.Target); err == nil {
				gauge(ch, difficulty, u256Float(d), chain)
			}
		}
	}
	for id, n := range rt.ChainBlocks() {
		if c.isChain(id) {
			counter(ch, chainBlocks, float64(n), c.chain(id))
		}
	}
	st := rt.Stats()
	inserted, orphaned := rt.Blocks()
	counter(ch, blocksInserted, float64(inserted))
	counter(ch, blocksEntered, float64(st.Entered))
	counter(ch, blocksOrphaned, float64(orphaned))
	// Every rule from the start, at zero until a block fails it, so that an alert on its rate
	// has a series to compare with.
	failed := map[pow.Rule]uint64{}
	for _, f := range rt.RuleFailures() {
		failed[f.Rule] = f.Count
	}
	for _, r := range rules {
		counter(ch, ruleFailures, float64(failed[r]), string(r))
		delete(failed, r)
	}
	for r, n := range failed { // a rule not in the list
		counter(ch, ruleFailures, float64(n), string(r))
	}
	nReorgs, deepest := rt.Reorgs()
	counter(ch, reorgs, float64(nReorgs))
	gauge(ch, reorgDeepest, float64(deepest))
	if c.src.Mining {
		counter(ch, minedBlocks, float64(st.Mined))
		counter(ch, minedHashes, float64(st.Hashes))
	}
	gauge(ch, writesFailed, boolValue(rt.WriteHealth().Failing))
	counts := rt.ChainCounts()
	if len(counts) == 0 {
		return // no Pact execution: no transactions, mempools or executors
	}
	for _, cc := range counts {
		chain := c.chain(int(cc.Chain))
		counter(ch, txsExecuted, float64(cc.Transactions), chain)
		counter(ch, txOutcomes, float64(cc.Transactions-min(cc.Failed, cc.Transactions)), chain, "success")
		counter(ch, txOutcomes, float64(cc.Failed), chain, "failure")
		counter(ch, gasUsed, float64(cc.Gas), chain)
		gauge(ch, mempoolPending, float64(cc.Pending), chain)
		gauge(ch, mempoolBytes, float64(cc.PendingBytes), chain)
		var oldest float64
		if !cc.Oldest.IsZero() {
			oldest = max(float64(now-cc.Oldest.UnixMicro())/1e6, 0)
		}
		gauge(ch, mempoolOldest, oldest, chain)
		gauge(ch, mempoolBadlisted, float64(cc.Badlisted), chain)
		counter(ch, mempoolAdmitted, float64(cc.Admitted), chain)
		for i, n := range cc.Rejected {
			counter(ch, mempoolRejected, float64(n), chain, actors.MempoolRejectReasons[i])
		}
	}
	validated, replayed, reapplied := rt.Executions()
	counter(ch, executions, float64(validated), "validate")
	counter(ch, executions, float64(replayed), "replay")
	counter(ch, executions, float64(reapplied), "reapply")
	build, apply := rt.ExecTimes()
	histogram(ch, buildSeconds, build)
	histogram(ch, applySeconds, apply)
}

// isChain reports whether id is a chain of the network.
func (c *collector) isChain(id int) bool { return id < len(c.chainLabels) && c.chainLabels[id] != "" }

// rules are the validation rules header_validation_failures_total has a series for from the
// start: every verdict on a block (pow/validate.go).
var rules = []pow.Rule{pow.MissingParent, pow.MissingAdjacentParent, pow.CreatedBeforeParent, pow.VersionMismatch,
	pow.ChainMismatch, pow.AdjacentChainMismatch, pow.AdjacentParentChainMismatch, pow.IncorrectHash, pow.IncorrectPow,
	pow.IncorrectHeight, pow.IncorrectWeight, pow.IncorrectTarget, pow.IncorrectEpoch, pow.IncorrectGenesisParent,
	pow.IncorrectGenesisTarget, pow.BlockInTheFuture, pow.IncorrectPayloadHash, pow.MissingPayload, pow.InvalidFeatureFlags,
	pow.InvalidBraiding, pow.InvalidAdjacentVersion, pow.IncorrectForkNumber, pow.InvalidForkVotes, pow.InvalidPayload}

// u256Float is u as a float64 (rounded).
func u256Float(u ledger.U256) float64 {
	const two64 = 1 << 64
	return ((float64(u[3])*two64+float64(u[2]))*two64+float64(u[1]))*two64 + float64(u[0])
}

// revision is the source revision the binary was built from ("unknown" without one), with
// "+modified" when the tree had changes.
func revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, modified := "unknown", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && rev != "unknown" {
		rev += "+modified"
	}
	return rev
}

// chain is the label value of chain id.
func (c *collector) chain(id int) string {
	if id < len(c.chainLabels) && c.chainLabels[id] != "" {
		return c.chainLabels[id]
	}
	return strconv.Itoa(id)
}

// collectRequests reports every route class: its 200 series from the first scrape (at zero
// until a request comes, so that rates and alerts see the series), each other status once a
// request got it (every status of every route at zero would be thousands of series), and the
// latency histogram once there is a request to measure.
func collectRequests(ch chan<- prometheus.Metric, rcs []transport.RouteCounts) {
	for _, rc := range rcs {
		ok := false
		for _, s := range rc.Statuses {
			code := "other"
			if s.Status != transport.StatusOther {
				code = strconv.Itoa(s.Status)
			}
			ok = ok || s.Status == 200
			counter(ch, httpRequests, float64(s.Count), rc.API, rc.Method, rc.Route, code)
		}
		// The classes that never answer 200 (unmatched, refused, CORS preflights) get no zero.
		if !ok && rc.Method != "" && rc.Route != "preflight" {
			counter(ch, httpRequests, 0, rc.API, rc.Method, rc.Route, "200")
		}
		if rc.Latency.Count > 0 {
			histogram(ch, httpSeconds, rc.Latency, rc.API, rc.Method, rc.Route)
		}
	}
}

// levelNames are the label values of goleveldb's levels (opt.DefaultNumLevel of them).
var levelNames = [...]string{"0", "1", "2", "3", "4", "5", "6"}

func collectLevelDB(ch chan<- prometheus.Metric, src Sources) {
	var st store.LevelStats
	if err := src.Store.LevelStats(&st); err != nil {
		return // a closed store: nothing to report
	}
	counter(ch, ldbWriteDelays, float64(st.WriteDelayCount))
	counter(ch, ldbWriteDelaySecs, st.WriteDelayDuration.Seconds())
	gauge(ch, ldbWritePaused, boolValue(st.WritePaused))
	gauge(ch, ldbSnapshots, float64(st.AliveSnapshots))
	gauge(ch, ldbIterators, float64(st.AliveIterators))
	counter(ch, ldbIORead, float64(st.IORead))
	counter(ch, ldbIOWrite, float64(st.IOWrite))
	gauge(ch, ldbBlockCache, float64(st.BlockCacheSize))
	gauge(ch, ldbOpenTables, float64(st.OpenedTablesCount))
	// Every level, also those with no table yet, so that each series exists from the start.
	for i, level := range levelNames {
		var tables int
		var size int64
		if i < len(st.LevelTablesCounts) {
			tables = st.LevelTablesCounts[i]
		}
		if i < len(st.LevelSizes) {
			size = st.LevelSizes[i]
		}
		gauge(ch, ldbLevelTables, float64(tables), level)
		gauge(ch, ldbLevelBytes, float64(size), level)
	}
	counter(ch, ldbCompactions, float64(st.MemComp), "memtable")
	counter(ch, ldbCompactions, float64(st.Level0Comp), "level0")
	counter(ch, ldbCompactions, float64(st.NonLevel0Comp), "nonlevel0")
	counter(ch, ldbCompactions, float64(st.SeekComp), "seek")
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

// histogram reports a hist.Snapshot, whose buckets are cumulative already.
func histogram(ch chan<- prometheus.Metric, d *prometheus.Desc, s hist.Snapshot, labels ...string) {
	buckets := make(map[float64]uint64, len(hist.Bounds))
	for i, b := range hist.Bounds {
		buckets[b] = s.Cumulative[i]
	}
	ch <- prometheus.MustNewConstHistogram(d, s.Count, s.Sum, buckets, labels...)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
