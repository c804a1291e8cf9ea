// Package metrics is the node's Prometheus metrics: a registry whose collectors read, at scrape
// time, the counters the node's packages keep anyway (the runtime's atomics, the mempools'
// counts, the update hub's, peer sync's, the backup jobs', the HTTP route classes', goleveldb's
// statistics) and the Go runtime's. Nothing is pushed into a Prometheus object on a hot path, so
// a node nobody scrapes pays only for the atomic adds its packages do; where a hot path needs a
// histogram it observes into a metrics/hist.Histogram, which this package reads.
//
// A scrape must stay quick on a node whose miner keeps a search goroutine on every core, where
// any goroutine that gives up its processor waits for a search goroutine's chunk of nonces
// (about 4 ms) to get one back. So the scrape does not give it up: the collectors are
// registered as one (client_golang's Registry.Gather calls runtime.Gosched for each collector
// past the first), and the process figures are read with one system call each instead of
// client_golang's five /proc files (process_linux.go).
//
// It uses github.com/prometheus/client_golang: it is the Prometheus project's own Go client, so
// its names, types and text exposition are what Prometheus parses by definition; it is the most
// used and best kept Go metrics library (releases every few months, API stable since 1.0); it
// brings the Go runtime and process collectors; and the node already compiles it in (protoactor-
// go's actor package depends on it), so it adds no module of substance. Its custom Collector
// interface is exactly the "read at scrape time" shape wanted here; the exposition is written
// with prometheus/common's expfmt straight into the fasthttp response, without net/http.
//
//	metrics.go    Sources (what the node hands over), New (the registry), Handler (GET /metrics)
//	collector.go  the node's collector: every ledger_node_ family, built from Sources on Collect
//	process_*.go  the process_ families (Linux; client_golang's collector elsewhere), and the
//	              data directory's free space
//
// It imports ledger, pow, store, actors and transport (for the types of their counters) and
// metrics/hist; nothing imports it but the command that wires the node.
package metrics
