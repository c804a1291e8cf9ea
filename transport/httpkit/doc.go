// Package httpkit is the HTTP plumbing the node's APIs (package transport) and `pact -s`'s
// server (transport/contracthttp) share, over fasthttp: writing answers (content types, JSON,
// text, the 413 and 415 texts), answering requests fasthttp could not read, reading raw request
// paths as Warp does (each segment percent-decoded on its own) and echoing them in reasons,
// query parameters and JSON request bodies, and the servers' read limits.
//
// It knows no route, chain or store: it imports fasthttp and nothing of the node, so pact
// links it without the node.
package httpkit
