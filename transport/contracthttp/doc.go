// Package contracthttp serves the contract command endpoints over HTTP (interface.md,
// "Contract command endpoints": send, poll, listen, local, private, verify, spv): the handler
// set over an API backend (contract.go), which the node mounts per chain (package transport)
// and `pact -s` serves at /api/v1/<op> with GET /version (ContractServer, server.go, with its
// route table in routes.go), and the delivery of private envelopes to other servers
// (PrivateDeliverer).
//
// It imports the API's vocabulary (transport/contractapi), the HTTP plumbing it shares with
// transport (transport/httpkit) and nothing of the node: which backend errors mean "cannot serve
// now" (busy, stopping, damaged data) the server that mounts it says (ContractConfig.Unavailable).
package contracthttp
