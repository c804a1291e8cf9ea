package transport

import (
	"github.com/ledgernode/ledger-node/ledger"
)

// listKind is what a list endpoint returns for each block.
type listKind uint8

const (
	listHashes  listKind = iota // "hash": block hash strings
	listHeaders                 // "header": headers, base64url string or object encoding
	listBlocks                  // "block": {"header": object, "payloadWithOutputs": ...}
)

// listLimits are an API's page-size and branch-bound limits (chainweb-api.md §2.2, §3): the
// service API allows more than the peer API will.
type listLimits struct {
	hashes  int // default = max page size of hash lists
	entries int // default = max page size of header and block lists
	bounds  int // max distinct hashes in each of lower and upper
}

var serviceLimits = listLimits{hashes: 4096, entries: 360, bounds: 32}

func (l listLimits) pageMax(k listKind) int {
	if k == listHashes {
		return l.hashes
	}
	return l.entries
}

// listOffers is the encodings a list of kind k can be sent in: headers also in object form on
// the service API; hashes, blocks and the peer API's headers only as JSON (a block's header is
// always an object). chainweb-api.md §4.2.
func (s *Service) listOffers(k listKind) []encoding {
	if k == listHeaders && s.objectHeaders {
		return offersHeaderList
	}
	return offersJSON
}

// encoder returns the item encoder of a list kind in encoding e.
func (s *Service) encoder(k listKind, e encoding) itemEncoder {
	switch {
	case k == listHashes:
		return encodeHashItem
	case k == listHeaders && e == encJSONObject:
		return encodeHeaderObjectItem
	case k == listHeaders:
		return encodeHeaderB64Item
	default:
		return s.encodeBlockItem
	}
}

func encodeHashItem(dst []byte, h *ledger.Header) ([]byte, bool, error) {
	dst = append(dst, '"')
	dst = h.Hash.AppendText(dst)
	return append(dst, '"'), true, nil
}

// encodeHeaderB64Item writes the default JSON encoding of a header: its binary form as an
// unpadded base64url string.
func encodeHeaderB64Item(dst []byte, h *ledger.Header) ([]byte, bool, error) {
	var bin [ledger.HeaderSize]byte
	return appendHeaderB64(dst, h.AppendBinary(bin[:0])), true, nil
}

func encodeHeaderObjectItem(dst []byte, h *ledger.Header) ([]byte, bool, error) {
	return h.AppendObjectJSON(dst), true, nil
}

// encodeBlockItem writes {"header": <object>, "payloadWithOutputs": <payload>}. A header whose
// payload is not stored is not a block yet and is skipped: upstream answers 500 there, but a
// node that stores a header a moment before its payload should not fail a whole page for it.
func (s *Service) encodeBlockItem(dst []byte, h *ledger.Header) ([]byte, bool, error) {
	p, err := s.db.PayloadWithOutputs(h.PayloadHash)
	if err != nil {
		if isNotFound(err) {
			s.log.Debug("block without payload left out of a block list", "block", h.Hash, "payload", h.PayloadHash)
			return dst, false, nil
		}
		return dst, false, err
	}
	pj, err := p.MarshalJSON()
	if err != nil {
		return dst, false, err
	}
	dst = append(dst, `{"header":`...)
	dst = h.AppendObjectJSON(dst)
	dst = append(dst, `,"payloadWithOutputs":`...)
	dst = append(dst, pj...)
	return append(dst, '}'), true, nil
}

// appendHeaderB64 appends a binary header as a JSON string of its base64url text.
func appendHeaderB64(dst, bin []byte) []byte {
	dst = append(dst, '"')
	dst = appendB64(dst, bin)
	return append(dst, '"')
}
