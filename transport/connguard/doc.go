// Package connguard stands between a listener and an HTTP server: GuardListener keeps the
// connections under a global and a per-address limit (AutoConnLimits derives them from the
// descriptor limit, DescriptorLimit), retries accepts that fail for want of descriptors
// instead of ending the server, answers a bare-LF request line at once, and puts TLS on top
// for the peer API (SetTLS: a plain-HTTP request is told the port speaks HTTPS). Its
// connections, and those of LazyDeadlineListener, keep fasthttp's read deadlines lazily (a
// timer re-armed about once per timeout instead of twice per request) and carry their
// X-Peer-Addr text, formatted once (AppendPeerAddr).
//
// The node's APIs (package transport) and `pact -s` (cmd/pact) serve through it; it imports
// nothing of the node.
package connguard
