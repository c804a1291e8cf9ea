package store

import (
	"testing"
)

// FuzzRecords feeds arbitrary bytes to every record decoder: each must return (an error or a
// value), never panic and never allocate what a length prefix merely claims.
func FuzzRecords(f *testing.F) {
	seeds := []msgpRecord{
		&schemaRecord{Version: 1},
		&networkRecord{Name: "mainnet01"},
		&headsRecord{Heads: []headEntry{{Chain: 0, Hash: [32]byte{1}}, {Chain: 19, Hash: [32]byte{2}}}},
		&payloadRecord{Transactions: [][]byte{[]byte("tx")}, MinerData: []byte("md"), TransactionsHash: [32]byte{3}},
		&outputsRecord{Outputs: [][]byte{[]byte("out")}, Coinbase: []byte("cb")},
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
		targets := []msgpRecord{&schemaRecord{}, &networkRecord{}, &headsRecord{}, &payloadRecord{}, &outputsRecord{}}
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
