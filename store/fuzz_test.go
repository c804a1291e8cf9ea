package store

import (
	"testing"

	"github.com/ledgernode/ledger-node/store/internal/records"
)

// FuzzRecords feeds arbitrary bytes to every record decoder: each must return (an error or a
// value), never panic and never allocate what a length prefix merely claims.
func FuzzRecords(f *testing.F) {
	seeds := []msgpRecord{
		&records.Schema{Version: 1},
		&records.Network{Name: "mainnet01"},
		&records.Heads{Heads: []records.HeadEntry{{Chain: 0, Hash: [32]byte{1}}, {Chain: 19, Hash: [32]byte{2}}}},
		&records.Payload{Transactions: [][]byte{[]byte("tx")}, MinerData: []byte("md"), TransactionsHash: [32]byte{3}},
		&records.Outputs{Outputs: [][]byte{[]byte("out")}, Coinbase: []byte("cb")},
	}
	for _, r := range seeds {
		b, err := r.MarshalMsg(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(hugeArray)
	f.Fuzz(func(t *testing.T, b []byte) {
		targets := []msgpRecord{&records.Schema{}, &records.Network{}, &records.Heads{}, &records.Payload{}, &records.Outputs{}}
		for _, r := range targets {
			if unmarshalRecord("fuzz", b, r) != nil {
				continue
			}
			// What decodes must re-encode to something that decodes to the same thing.
			again, err := r.MarshalMsg(nil)
			if err != nil {
				t.Fatalf("%T: re-encode: %v", r, err)
			}
			if _, err := r.UnmarshalMsg(again); err != nil {
				t.Fatalf("%T: re-decode: %v", r, err)
			}
		}
	})
}
