// Package crypto holds the pure cores of Pact 5's cryptographic natives:
// hash-keccak256, hash-poseidon, the BN254 point-add / scalar-mult /
// pairing-check natives, and the Hyperlane message natives.
//
// Everything here works on plain Go values (byte slices, *big.Int); the
// adapters that take and return Pact values, and that render P5's error
// texts, live in pact/value (crypto.go). Behaviour follows kadena-io/pact-5:
// crypto/Pact/Core/Crypto/{Hash/Keccak256,Hash/Poseidon,Pairing}.hs,
// pact/Pact/Crypto/Hyperlane.hs and the natives in
// pact/Pact/Core/IR/Eval/CEK/CoreBuiltin.hs.
package crypto
