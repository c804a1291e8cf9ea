package metrics

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/store/backup"
	"github.com/ledgernode/ledger-node/transport"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

// Prefix starts the name of every family of the node's own.
const Prefix = "ledger_node_"

// Sources are what the metrics read. Every field but Version may be nil: its families are then
// left out (a node that does not mine has no miner figures, one without the backup API no
// backup figures, one without peer sync, which the runtime names, no peer figures).
type Sources struct {
	Version  *ledger.Version
	Runtime  *actors.Runtime
	Updates  *actors.UpdatesHub
	Requests *transport.RequestStats
	Store    *store.DB
	Backups  *backup.Jobs
	// Mining says whether the node mines: the mining families are only there if so.
	Mining bool
	// Listeners are the APIs' guarded listeners, by API name ("service", "peer").
	Listeners map[string]*connguard.GuardedListener
	// Build names the node's release (build_info's version label); the revision and the Go
	// version are read from the binary.
	Build string
	// DataDir is the data directory, whose file system's free space is reported; empty: none.
	DataDir string
}

// New builds the registry: the node's collector, client_golang's Go runtime collector and the
// process collector (process_linux.go), registered as one collector (oneCollector says why).
func New(src Sources) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(oneCollector{newCollector(src), collectors.NewGoCollector(), newProcessCollector()})
	return reg
}

// oneCollector runs several collectors as one, one after the other.
//
// For each collector past the first, client_golang's Registry.Gather starts a goroutine and
// calls runtime.Gosched, which puts the scrape's goroutine at the back of the global run queue.
// On a node whose miner keeps a search goroutine on every core, the scrape then waits for a
// search goroutine to finish its chunk of nonces (about 4 ms) each time: a scheduler-latency
// profile of scrapes on a mining node (go tool trace -pprof=sched) put 82% of all the delay
// there, about 7 ms a scrape (bench/RESULTS.md, "Metrics for alerting"). Registered as one, the
// collectors run on the one goroutine Gather starts, with no Gosched.
type oneCollector []prometheus.Collector

func (cs oneCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range cs {
		c.Describe(ch)
	}
}

func (cs oneCollector) Collect(ch chan<- prometheus.Metric) {
	for _, c := range cs {
		c.Collect(ch)
	}
}

// contentType is the text exposition format's (version 0.0.4), which every Prometheus reads.
var contentType = expfmt.NewFormat(expfmt.TypeTextPlain)

// Handler serves the registry's metrics in the text exposition format. A family that fails to
// gather is logged and left out; the others are served.
func Handler(reg prometheus.Gatherer, log *slog.Logger) fasthttp.RequestHandler {
	if log == nil {
		log = slog.Default()
	}
	return func(ctx *fasthttp.RequestCtx) {
		mfs, err := reg.Gather()
		if err != nil {
			log.Warn("metrics: gather", "err", err)
		}
		ctx.SetContentType(string(contentType))
		enc := expfmt.NewEncoder(ctx, contentType) // straight into the response body
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				log.Error("metrics: encode", "family", mf.GetName(), "err", err)
				ctx.Response.ResetBody()
				ctx.Error("metrics: encode failed", fasthttp.StatusInternalServerError)
				return
			}
		}
	}
}
