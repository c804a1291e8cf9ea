package txexec

import (
	"bytes"
	"sync"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/result"
)

// A result is encoded into a scratch buffer kept from one command to the
// next: grown from nothing, a transfer's (about 900 bytes with its events)
// was reallocated four or five times, and measuring a result against
// MaxResultBytes needs no copy at all.
var resultScratch = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// maxScratch is the largest buffer kept for the next command: a huge result
// leaves its memory to the collector.
const maxScratch = 64 << 10

// encodeResult is result.Append(nil, rk, o), in a slice of its own length.
func encodeResult(rk api.Hash, o *result.Outcome) []byte {
	bp := resultScratch.Get().(*[]byte)
	b := result.Append((*bp)[:0], rk, o)
	out := bytes.Clone(b)
	putScratch(bp, b)
	return out
}

// resultLen is len(result.Append(nil, rk, o)).
func resultLen(rk api.Hash, o *result.Outcome) int {
	bp := resultScratch.Get().(*[]byte)
	b := result.Append((*bp)[:0], rk, o)
	n := len(b)
	putScratch(bp, b)
	return n
}

func putScratch(bp *[]byte, b []byte) {
	if cap(b) > maxScratch {
		return
	}
	*bp = b[:0]
	resultScratch.Put(bp)
}
