// Package hist is the histogram the node's hot paths observe into: a fixed set of buckets of
// atomic counters, so an observation is a bucket search and three atomic adds, with no lock and
// no allocation, and nothing is built for Prometheus until someone scrapes (package metrics
// reads a Snapshot then). It imports nothing of the module, so that actors and transport can
// keep one without depending on the metrics library.
//
//	hist.go  Histogram, its bucket bounds and Snapshot
package hist
