// Package interop checks `pact -s` against Kadena's JavaScript client
// libraries, pinned in package.json and package-lock.json:
// @kadena/client builds and signs commands (Pact.builder,
// createSignWithKeypair) and sends them to our server, which must accept
// them and compute the same request keys; @kadena/cryptography-utils
// (hash, verifySig) must accept a command signed by `pact -a`.
//
// The tests start the server in process on a free port and run
// `node client.js`. `make test` installs the npm packages first (`npm ci`
// in this directory, the interop-deps target); the tests also run it when
// node_modules is missing. Without node the tests skip.
package interop
