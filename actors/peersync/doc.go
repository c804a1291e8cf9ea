// Package peersync keeps the node's cut in step with its peers' over the peer API: cut gossip
// (an announcer per peer), fetching the headers and payloads of a heavier cut, mempool relay,
// and the peer table. It is a client of the runtime (package actors), as the miner is: the
// blocks it fetches go to the chain actors through Runtime.Insert, which validate them as they
// validate the node's own, and the executors re-execute their payloads.
//
//	node.go        Node, what peer sync needs of the runtime (*actors.Runtime satisfies it),
//	               and Of, the peer sync attached to a runtime.
//	sync.go        Start (attached to the runtime as an actors.Part: told of each new cut and
//	               of /send's transactions, which it relays, and stopped by Runtime.Stop),
//	               cut gossip, the catch-up of a heavier cut, the miner's pause while the node
//	               is behind (CatchingUp), the peer API's mempool calls, and dropping a peer
//	               whose genesis is not ours.
//	peers.go       the peer table: offered peers called back before they count, peer ids (a
//	               peer given with one must present that certificate; one without is listed
//	               with the fingerprint it presents), scores, backoff, bans and eviction,
//	               bounded.
//	syncwindows.go a catch-up by height windows, fetched from the origin and up to two helper
//	               peers side by side and inserted in order; a failing helper is dropped.
package peersync
