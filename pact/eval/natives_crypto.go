package eval

// cryptoNatives are the natives over pact/crypto (keccak, poseidon, BN254,
// hyperlane); registered once their cores land.
func cryptoNatives() []*Native { return nil }
