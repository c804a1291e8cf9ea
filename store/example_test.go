package store_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
)

// A data directory holds headers (an append-only, checksummed log with its index) and payloads
// and Pact state (goleveldb). Headers written are there after a restart, looked up by block hash
// or walked chain by chain; a hash never written is ErrNotFound, not a zero header.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "store-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	genesis, _ := ledger.UpstreamGenesisHeader(ledger.Mainnet01, 0)
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := db.PutHeaders(genesis); err != nil {
		fmt.Println(err)
		return
	}
	db.Close()

	db, err = store.Open(dir, store.Options{}) // a restart
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	h, err := db.Header(genesis.Hash)
	fmt.Println(h.ChainID, h.Height, h.Hash, err)

	_, err = db.Header(ledger.Hash{})
	fmt.Println(errors.Is(err, store.ErrNotFound))

	height, ok, _ := db.MaxHeight(0)
	fmt.Println(height, ok)
	// Output:
	// 0 0 SNAMXHBvZtAbeS19x12bZV2p5d1E4BaxrggceNdUxbw <nil>
	// true
	// 0 true
}
