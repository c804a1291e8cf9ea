package transport

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/ledgernode/ledger-node/ledger"
)

// cursor is a page cursor: "inclusive:HASH" starts a page at the block HASH, "exclusive:HASH"
// right after it (chainweb-api.md §2.4). Pages this service writes only ever hand out inclusive
// cursors (DECISIONS.md: next is the first item of the next page); exclusive ones are accepted
// for clients that saved upstream's tip cursors.
type cursor struct {
	inclusive bool
	hash      ledger.Hash
}

var (
	prefixInclusive = []byte("inclusive")
	prefixExclusive = []byte("exclusive")
)

// parseCursor parses the text of a `next` parameter. The messages follow upstream's, which
// quote the offending text.
func parseCursor(b []byte) (cursor, error) {
	i := bytes.IndexByte(b, ':')
	if i < 0 {
		return cursor{}, errors.New("missing ':' in next item: " + strconv.Quote(string(b)) + ".")
	}
	var c cursor
	switch {
	case bytes.Equal(b[:i], prefixInclusive):
		c.inclusive = true
	case bytes.Equal(b[:i], prefixExclusive):
	default:
		return cursor{}, errors.New("unrecognized next item: " + strconv.Quote(string(b)) +
			` (expected "inclusive:<hash>" or "exclusive:<hash>")`)
	}
	h, err := ledger.ParseHashBytes(b[i+1:])
	if err != nil {
		return cursor{}, errors.New("invalid hash in next item " + strconv.Quote(string(b)) + ": " + err.Error())
	}
	c.hash = h
	return c, nil
}

// appendText appends the cursor's wire form.
func (c cursor) appendText(dst []byte) []byte {
	if c.inclusive {
		dst = append(dst, prefixInclusive...)
	} else {
		dst = append(dst, prefixExclusive...)
	}
	dst = append(dst, ':')
	return c.hash.AppendText(dst)
}
