package eval

import "github.com/ledgernode/ledger-node/pact/value"

// cryptoNatives are the natives over pact/crypto: keccak, poseidon, BN254
// and hyperlane (their cores are in crypto.go).
func cryptoNatives() []*Native {
	return []*Native{
		pure1("hash-keccak256", value.HashKeccak256),
		ranged("hash-poseidon", 1, 8, func(c Call, a []value.Value) (value.Value, error) { return value.HashPoseidon(a...) }),
		ranged("poseidon-hash-hack-a-chain", 1, 8, func(c Call, a []value.Value) (value.Value, error) { return value.PoseidonHashHackAChain(a...) }),
		fixed("pairing-check", 2, func(c Call, a []value.Value) (value.Value, error) {
			if c.in.Flags["DisablePact54"] {
				return value.PairingCheckPre54(a[0], a[1])
			}
			return value.PairingCheck(a[0], a[1])
		}),
		fixed("scalar-mult", 3, func(c Call, a []value.Value) (value.Value, error) { return value.ScalarMult(a[0], a[1], a[2]) }),
		fixed("point-add", 3, func(c Call, a []value.Value) (value.Value, error) { return value.PointAdd(a[0], a[1], a[2]) }),
		fixed("hyperlane-message-id", 1, func(c Call, a []value.Value) (value.Value, error) {
			return chargedResultLength(c, a, value.HyperlaneMessageID, c.in.chargeHyperlaneID)
		}),
		pure1("hyperlane-decode-token-message", value.HyperlaneDecodeTokenMessage),
		fixed("hyperlane-encode-token-message", 1, func(c Call, a []value.Value) (value.Value, error) {
			return chargedResultLength(c, a, value.HyperlaneEncodeTokenMessage, c.in.chargeHyperlaneToken)
		}),
	}
}

// chargedResultLength runs a native whose cost is the length of the text it
// returns (P5 charges it once the text is made).
func chargedResultLength(c Call, a []value.Value, f func(value.Value) (value.Value, error), charge func(int) error) (value.Value, error) {
	v, err := f(a[0])
	if err != nil {
		return nil, err
	}
	if s, ok := v.(value.String); ok {
		if err := charge(value.CharCount(string(s))); err != nil {
			return nil, err
		}
	}
	return v, nil
}
