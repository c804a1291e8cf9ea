// Package pactsrvtest starts an in-process `pact -s` (the pact/server engine behind transport's
// contract server) on a free port for tests that talk to it over HTTP: the interop tests and the
// node's tests that compare its answers with the node's.
package pactsrvtest
