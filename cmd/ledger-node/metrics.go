package main

import (
	"fmt"
	"strings"

	"github.com/ledgernode/ledger-node/metrics"
	"github.com/ledgernode/ledger-node/transport"
	"github.com/ledgernode/ledger-node/transport/connguard"
)

// wireMetrics serves the Prometheus metrics at serviceApi.metricsPath (none when it is empty)
// and has the service API count its requests for them. Without metrics nothing is counted.
func (n *node) wireMetrics(scfg *transport.ServiceConfig) {
	path := n.cfg.ServiceAPI.MetricsPath
	if path == "" {
		return
	}
	n.requests = transport.NewRequestStats()
	listeners := map[string]*connguard.GuardedListener{}
	for _, g := range n.guarded {
		listeners[g.api] = g.ln
	}
	reg := metrics.New(metrics.Sources{Version: n.version, Runtime: n.rt, Updates: n.hub, Requests: n.requests,
		Store: n.db, Backups: n.backups, Mining: n.cfg.Mining.Mode != "off", Listeners: listeners,
		Build: packageVersion, DataDir: n.cfg.DataDir})
	scfg.Metrics, scfg.MetricsPath, scfg.Requests = metrics.Handler(reg, n.log), path, n.requests
}

// checkMetricsPath accepts "" (no metrics) or a rooted path of plain segments that no route of
// the service API has.
func checkMetricsPath(p string) error {
	if p == "" {
		return nil
	}
	bad := func(why string) error {
		return fmt.Errorf("serviceApi.metricsPath (--metrics-path) %q: %s", p, why)
	}
	if !strings.HasPrefix(p, "/") || p == "/" {
		return bad("want a path such as /metrics, or empty for none")
	}
	segs := strings.Split(p[1:], "/")
	if len(segs) > 8 {
		return bad("at most 8 segments")
	}
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "{}%?#") || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
			return bad("segments must be non-empty printable ASCII, without . .. { } % ? #")
		}
	}
	switch {
	case segs[0] == "chainweb":
		return bad("/chainweb/… is the API's")
	case p == "/info" || p == "/health-check" || p == "/make-blocks":
		return bad("the service API serves that path already")
	}
	return nil
}
