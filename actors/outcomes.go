package actors

import (
	"bytes"

	"github.com/ledgernode/ledger-node/ledger"
)

// A transaction's outcome, for the metrics' success and failure counts, is read from its
// output without decoding it: pact/result writes every CommandResult as {"gas":N,"result":
// {"status":"success"|"failure",…}, so the status is at a fixed place after the gas. (A
// string value cannot hold those bytes unescaped, and the data comes after the status.)

var (
	outputGas    = []byte(`{"gas":`)
	outputFailed = []byte(`,"result":{"status":"failure"`)
)

// txFailed reports whether out, a transaction's output, says it failed.
func txFailed(out []byte) bool {
	rest, ok := bytes.CutPrefix(out, outputGas)
	if !ok {
		return false
	}
	i := 0
	if i < len(rest) && rest[i] == '-' {
		i++
	}
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return bytes.HasPrefix(rest[i:], outputFailed)
}

// failedTxs counts the transactions of p whose output says they failed.
func failedTxs(p *ledger.PayloadWithOutputs) uint64 {
	var n uint64
	for _, t := range p.Transactions {
		if txFailed(t.Output) {
			n++
		}
	}
	return n
}
