package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ObjectMediaType is the media type of the object encoding of headers.
const ObjectMediaType = "application/json;blockheader-encoding=object"

// AppendObjectJSON appends the object encoding of h: the 13 upstream fields in upstream order,
// with the network name both as "chainwebVersion" (what upstream clients read) and as
// "ledgerVersion" (the interface's name), per DECISIONS.md.
func (h *Header) AppendObjectJSON(dst []byte) []byte {
	name := "unknown"
	if v, ok := VersionByCode(h.Version); ok {
		name = v.Name
	}
	dst = append(dst, `{"nonce":"`...)
	dst = strconv.AppendUint(dst, h.Nonce, 10)
	dst = append(dst, `","creationTime":`...)
	dst = strconv.AppendInt(dst, h.CreationTime, 10)
	dst = append(dst, `,"parent":"`...)
	dst = h.Parent.AppendText(dst)
	dst = append(dst, `","adjacents":{`...)
	for i, a := range h.Adjacents {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = strconv.AppendUint(dst, uint64(a.Chain), 10)
		dst = append(dst, `":"`...)
		dst = a.Hash.AppendText(dst)
		dst = append(dst, '"')
	}
	dst = append(dst, `},"target":"`...)
	t := h.Target.LE()
	dst = AppendB64(dst, t[:])
	dst = append(dst, `","payloadHash":"`...)
	dst = h.PayloadHash.AppendText(dst)
	dst = append(dst, `","chainId":`...)
	dst = strconv.AppendUint(dst, uint64(h.ChainID), 10)
	dst = append(dst, `,"weight":"`...)
	w := h.Weight.LE()
	dst = AppendB64(dst, w[:])
	dst = append(dst, `","height":`...)
	dst = strconv.AppendUint(dst, h.Height, 10)
	dst = append(dst, `,"chainwebVersion":"`...)
	dst = append(dst, name...)
	dst = append(dst, `","ledgerVersion":"`...)
	dst = append(dst, name...)
	dst = append(dst, `","epochStart":`...)
	dst = strconv.AppendInt(dst, h.EpochStart, 10)
	dst = append(dst, `,"featureFlags":`...)
	dst = strconv.AppendUint(dst, h.FeatureFlags, 10)
	dst = append(dst, `,"hash":"`...)
	dst = h.Hash.AppendText(dst)
	return append(dst, `"}`...)
}

// ObjectJSON returns the object encoding of h.
func (h *Header) ObjectJSON() []byte { return h.AppendObjectJSON(make([]byte, 0, 700)) }

// headerObject is the decoding shape of the object encoding. Numbers are kept as json.Number so
// that 64-bit values (feature flags, nonces in old headers) survive exactly.
type headerObject struct {
	Nonce           *string          `json:"nonce"`
	CreationTime    *json.Number     `json:"creationTime"`
	Parent          *Hash            `json:"parent"`
	Adjacents       map[string]*Hash `json:"adjacents"`
	Target          *string          `json:"target"`
	PayloadHash     *Hash            `json:"payloadHash"`
	ChainID         *json.Number     `json:"chainId"`
	Weight          *string          `json:"weight"`
	Height          *json.Number     `json:"height"`
	ChainwebVersion *string          `json:"chainwebVersion"`
	LedgerVersion   *string          `json:"ledgerVersion"`
	EpochStart      *json.Number     `json:"epochStart"`
	FeatureFlags    *json.Number     `json:"featureFlags"`
	Hash            *Hash            `json:"hash"`
}

// DecodeHeaderObject decodes the object encoding. All 13 fields are required; the network may be
// named by "ledgerVersion" or "chainwebVersion" (if both are present they must agree). The stored
// hash is taken as given: validation is pow's business.
func DecodeHeaderObject(data []byte) (*Header, error) {
	var o headerObject
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("decode header object: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decode header object: trailing data after the object")
	}
	missing := func(k string) error { return fmt.Errorf("decode header object: key %q not found", k) }
	switch {
	case o.Nonce == nil:
		return nil, missing("nonce")
	case o.CreationTime == nil:
		return nil, missing("creationTime")
	case o.Parent == nil:
		return nil, missing("parent")
	case o.Adjacents == nil:
		return nil, missing("adjacents")
	case o.Target == nil:
		return nil, missing("target")
	case o.PayloadHash == nil:
		return nil, missing("payloadHash")
	case o.ChainID == nil:
		return nil, missing("chainId")
	case o.Weight == nil:
		return nil, missing("weight")
	case o.Height == nil:
		return nil, missing("height")
	case o.ChainwebVersion == nil && o.LedgerVersion == nil:
		return nil, missing("ledgerVersion")
	case o.EpochStart == nil:
		return nil, missing("epochStart")
	case o.FeatureFlags == nil:
		return nil, missing("featureFlags")
	case o.Hash == nil:
		return nil, missing("hash")
	}
	name := ""
	if o.LedgerVersion != nil {
		name = *o.LedgerVersion
	}
	if o.ChainwebVersion != nil {
		if name != "" && name != *o.ChainwebVersion {
			return nil, fmt.Errorf("decode header object: ledgerVersion %q and chainwebVersion %q disagree", name, *o.ChainwebVersion)
		}
		name = *o.ChainwebVersion
	}
	v, ok := VersionByName(name)
	if !ok {
		return nil, fmt.Errorf("decode header object: unknown network %q", name)
	}
	h := &Header{Version: v.Code, Parent: *o.Parent, PayloadHash: *o.PayloadHash, Hash: *o.Hash}
	var err error
	if h.Nonce, err = strconv.ParseUint(*o.Nonce, 10, 64); err != nil {
		return nil, fmt.Errorf("decode header object: nonce: %w", err)
	}
	if h.CreationTime, err = o.CreationTime.Int64(); err != nil {
		return nil, fmt.Errorf("decode header object: creationTime: %w", err)
	}
	if h.EpochStart, err = o.EpochStart.Int64(); err != nil {
		return nil, fmt.Errorf("decode header object: epochStart: %w", err)
	}
	if h.Height, err = strconv.ParseUint(o.Height.String(), 10, 64); err != nil {
		return nil, fmt.Errorf("decode header object: height: %w", err)
	}
	if h.FeatureFlags, err = strconv.ParseUint(o.FeatureFlags.String(), 10, 64); err != nil {
		return nil, fmt.Errorf("decode header object: featureFlags: %w", err)
	}
	cid, err := strconv.ParseUint(o.ChainID.String(), 10, 32)
	if err != nil {
		return nil, fmt.Errorf("decode header object: chainId: %w", err)
	}
	h.ChainID = ChainID(cid)
	if h.Target, err = decodeU256Text("target", *o.Target); err != nil {
		return nil, err
	}
	if h.Weight, err = decodeU256Text("weight", *o.Weight); err != nil {
		return nil, err
	}
	if len(o.Adjacents) > MaxAdjacents {
		return nil, fmt.Errorf("decode header object: %d adjacents (at most %d)", len(o.Adjacents), MaxAdjacents)
	}
	for k, hash := range o.Adjacents {
		c, err := strconv.ParseUint(k, 10, 32)
		if err != nil || strconv.FormatUint(c, 10) != k {
			return nil, fmt.Errorf("decode header object: adjacent key %q is not a chain id", k)
		}
		if hash == nil {
			return nil, fmt.Errorf("decode header object: adjacent %q is null", k)
		}
		h.Adjacents = append(h.Adjacents, Adjacent{Chain: ChainID(c), Hash: *hash})
	}
	sortAdjacents(h.Adjacents)
	return h, nil
}

func decodeU256Text(field, s string) (U256, error) {
	b, err := DecodeB64(s)
	if err != nil || len(b) != 32 {
		return U256{}, fmt.Errorf("decode header object: %s is not 32 bytes of unpadded base64url", field)
	}
	return U256FromLE(b), nil
}

func sortAdjacents(a []Adjacent) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].Chain < a[j-1].Chain; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
