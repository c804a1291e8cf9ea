package ledger_test

import (
	"errors"
	"fmt"

	"github.com/ledgernode/ledger-node/ledger"
)

// mainnetGenesis0 is mainnet01's chain 0 genesis header in chainweb's base64url binary form, as
// chainweb-node 2.32 serves it (testdata/vectors/genesis-mainnet01.json).
const mainnetGenesis0 = "AAAAAAAAAAAAJ41tFZYFAMCen1Rev76833pqkLFgepws36zMM522bHJ-d_tA6QHCAwACAAAAfJB-vS9h7ByxNHY19W" +
	"qM8icji9CcATiXn48uouHAMzsDAAAAUsNRCUkMKQBRDVIv0JLDfDllYNg2QO0EXaWcRfMQ6g0FAAAAdTLm0UrocvMN" +
	"jjz_TMUbWqpZhuBBht_JoNqZpCliaS___________________________________________5NR9w7CJwD7ydFv8z" +
	"8Z66ZHkjXT1E9EvVPG6gyxu9_aAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFAAAA" +
	"ACeNbRWWBQAAAAAAAAAAAEjQDFxwb2bQG3ktfcddm2VdqeXdROAWsa4IHHjXVMW8"

// A header as it comes from the wire: decode it, read its fields, and recompute its block hash,
// the merkle root over its fields. The hash printed is upstream's
// (test/golden/mainnet01-block-hashes-expected.txt).
func ExampleDecodeHeaderB64() {
	h, err := ledger.DecodeHeaderB64(mainnetGenesis0)
	if err != nil {
		fmt.Println("decode:", err)
		return
	}
	fmt.Println("chain", h.ChainID, "height", h.Height, "adjacents", len(h.Adjacents))
	fmt.Println(h.ComputeHash())
	fmt.Println(h.ComputeHash() == h.Hash)
	// Output:
	// chain 0 height 0 adjacents 3
	// SNAMXHBvZtAbeS19x12bZV2p5d1E4BaxrggceNdUxbw
	// true
}

// Genesis headers are not stored anywhere: they follow from the network's parameters.
func ExampleUpstreamGenesisHeader() {
	h, ok := ledger.UpstreamGenesisHeader(ledger.Mainnet01, 0)
	fmt.Println(ok, h.Hash)
	// Output: true SNAMXHBvZtAbeS19x12bZV2p5d1E4BaxrggceNdUxbw
}

// Hashes travel as 43 characters of unpadded base64url; anything else is refused.
func ExampleParseHash() {
	h, err := ledger.ParseHash("SNAMXHBvZtAbeS19x12bZV2p5d1E4BaxrggceNdUxbw")
	fmt.Println(h, err)
	_, err = ledger.ParseHash("not a hash")
	fmt.Println(errors.Is(err, ledger.ErrHashSyntax))
	// Output:
	// SNAMXHBvZtAbeS19x12bZV2p5d1E4BaxrggceNdUxbw <nil>
	// true
}
