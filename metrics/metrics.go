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
	"github.com/ledgernode/ledger-node/transport"
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
	Backups  *store.Backups
	// Mining says whether the node mines: the mining families are only there if so.
	Mining bool
	// Listeners are the APIs' guarded listeners, by API name ("service", "peer").
	Listeners map[string]*transport.GuardedListener
}

// New builds the registry: the node's collector, and client_golang's Go runtime and process
// collectors.
func New(src Sources) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(src), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
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
