// Package transport is the node's HTTP layer: the chainweb-compatible service API (block
// hashes, headers, blocks, payloads, cut, node info), served with fasthttp straight from the
// store.
//
// It is built from small shared pieces, which the service API, the peer API (on its own port),
// the contract endpoints and the backups share:
//
//	router.go      route table: literal segments and parsed {chain}/{…Hash}/{account} captures, matched
//	               against the raw path with each segment percent-decoded on its own (no
//	               normalization: %2F, //, . and .. never lead to another route);
//	               fastpath.go matches the hottest route (GET header/{hash}) on the raw path
//	               first, answering exactly as the general lookup would
//	middleware.go  common headers, panic guard, CORS preflight, routing failures (each 4xx
//	               with a text/plain reason; servant's are empty)
//	respond.go     the common headers and the not-found bodies (answers are written with
//	               transport/httpkit, which pact -s's server shares)
//	limits.go      requests fasthttp refuses (413 and friends), with the common headers
//	negotiate.go   Accept and Content-Type handling
//	query.go       paging parameters; cursor.go the `next` cursor
//	paging.go      page assembly; items.go the item encoders of each list kind
//	lists.go       GET lists and POST branch queries; branch.go the branch body and walk
//	headers.go     header by hash (b64.go: its base64url encoder and the fast path's hash
//	               decoder); payloads.go payloads; node.go /info, /health-check, /cut
//	sse.go         the header update streams (server-sent events from an actors.UpdatesHub)
//	backup.go      the backup endpoints, over a BackupAPI (backup.Jobs)
//	mining.go      the mining API for external miners (work, solved, updates) over an
//	               mining.Coordinator, and its byte codec (work bytes, solved header, chain id)
//	peer.go        the peer API (cut gossip, peer list with checked host names and peer ids,
//	               mempools, /config), served over HTTPS (PeerConfig.TLS);
//	               peerclient.go its client (HTTPS with kept connections and resumed sessions,
//	               the peer id checked at each handshake, deadlines, bounded answers,
//	               classified failures); peercert.go the certificate (upstream's shape, made at
//	               the first start and kept in the data directory, or configured), peer ids
//	               (base64url SHA-256 of the certificate) and peer infos [ID@]HOST:PORT;
//	               peeraddr.go which addresses may be peers (AddressPolicy) and its dialer
//	makeblocks.go  POST /make-blocks (on-demand mining), on the service API or its own port
//	explorer.go    the explorer page (package explorer) at / and its status
//	accounts.go    GET …/account/{account}/transfers: an account's transfers across chains,
//	               newest first, paged with per-chain cursors, over a TransferIndex
//	               (actors.Runtime reading chain/transfers.go's index)
//	service.go     the service API's routes; the contract endpoints are transport/contracthttp's
//	               handlers (which pact -s serves too), mounted per chain, over the
//	               ServiceConfig.Contract backends; transport/contractapi the API's types
//	damaged.go     the 503s for what the node cannot serve now: damaged data, busy evaluation
//	               slots, a stopping node (unavailable, the contract endpoints' mapping)
//	continuations.go GET …/chain/{chain}/pact/{pactIdHash}/continuations: where a pact was
//	               continued on a chain (the other end of a cross-chain transfer), over a
//	               ContinuationIndex (chain/continuations.go's index)
//	requests.go    RequestStats: requests counted by route class and status, with latency
//	               histograms (metrics/hist), for the metrics; the handler of GET /metrics
//	               itself comes from package metrics through ServiceConfig.Metrics
//	store.go       the read interface the handlers use over store.DB
//
// Connections come in through transport/connguard (the connection limits, lazy read deadlines
// and TLS of the peer API), which pact -s uses too.
package transport
