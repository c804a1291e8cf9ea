// Package keyorder reproduces the order in which Pact writes the keys of a JSON object: the
// iteration order of the Haskell HashMap that holds them ("legacy" order). Hashes, request keys
// and signatures depend on the bytes, so the order is reproduced bit for bit (keyorder.go says
// how). It is used by the interpreter's JSON encoder (pact/eval), SigData (pact/api) and the
// contract endpoints' poll response (transport), and imports nothing of this module.
package keyorder
