package ledger

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
)

// CutEntry is the block of one chain in a cut.
type CutEntry struct {
	Chain  ChainID
	Height uint64
	Hash   Hash
}

// Cut is one block per chain, pairwise braided. Height is the sum of the block heights and
// Weight the sum of their weights.
type Cut struct {
	Version *Version
	Entries []CutEntry // ascending by chain id
	Weight  U256
	Height  uint64
}

// NewCut builds a cut from one header per chain.
func NewCut(v *Version, heads []*Header) *Cut {
	c := &Cut{Version: v, Entries: make([]CutEntry, 0, len(heads))}
	w := new(big.Int)
	for _, h := range heads {
		c.Entries = append(c.Entries, CutEntry{Chain: h.ChainID, Height: h.Height, Hash: h.Hash})
		c.Height += h.Height
		w.Add(w, h.Weight.Big())
	}
	slices.SortFunc(c.Entries, func(a, b CutEntry) int { return int(a.Chain) - int(b.Chain) })
	// A sum of 20 weights cannot overflow 256 bits in practice; saturate rather than wrap.
	if u, ok := U256FromBig(w); ok {
		c.Weight = u
	} else {
		c.Weight = MaxU256
	}
	return c
}

// Entry returns the entry of chain ch.
func (c *Cut) Entry(ch ChainID) (CutEntry, bool) {
	for _, e := range c.Entries {
		if e.Chain == ch {
			return e, true
		}
	}
	return CutEntry{}, false
}

// ID is SHA-512/256 over the concatenated block hashes in upstream hash-map order. It is only
// informational (de-duplication and logs), but matching it lets cuts be compared with upstream.
func (c *Cut) ID() Hash {
	chains := make([]ChainID, len(c.Entries))
	byChain := make(map[ChainID]Hash, len(c.Entries))
	for i, e := range c.Entries {
		chains[i] = e.Chain
		byChain[e.Chain] = e.Hash
	}
	d := sha512.New512_256()
	for _, ch := range InHashMapOrder(chains) {
		h := byChain[ch]
		d.Write(h[:])
	}
	var id Hash
	d.Sum(id[:0])
	return id
}

// AppendJSON appends the GET /cut JSON: hashes (by chain, in hash-map order like upstream),
// origin null, weight, height, instance and id.
func (c *Cut) AppendJSON(dst []byte) []byte {
	byChain := make(map[ChainID]CutEntry, len(c.Entries))
	chains := make([]ChainID, len(c.Entries))
	for i, e := range c.Entries {
		byChain[e.Chain] = e
		chains[i] = e.Chain
	}
	dst = append(dst, `{"hashes":{`...)
	for i, ch := range InHashMapOrder(chains) {
		e := byChain[ch]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = strconv.AppendUint(dst, uint64(ch), 10)
		dst = append(dst, `":{"height":`...)
		dst = strconv.AppendUint(dst, e.Height, 10)
		dst = append(dst, `,"hash":"`...)
		dst = e.Hash.AppendText(dst)
		dst = append(dst, `"}`...)
	}
	dst = append(dst, `},"origin":null,"weight":"`...)
	w := c.Weight.LE()
	dst = AppendB64(dst, w[:])
	dst = append(dst, `","height":`...)
	dst = strconv.AppendUint(dst, c.Height, 10)
	dst = append(dst, `,"instance":"`...)
	dst = append(dst, c.Version.Name...)
	dst = append(dst, `","id":"`...)
	dst = c.ID().AppendText(dst)
	return append(dst, `"}`...)
}

// cutJSON is the decoding shape of a cut.
type cutJSON struct {
	Hashes map[string]struct {
		Height *uint64 `json:"height"`
		Hash   *Hash   `json:"hash"`
	} `json:"hashes"`
	Weight   *string `json:"weight"`
	Height   *uint64 `json:"height"`
	Instance *string `json:"instance"`
	ID       *Hash   `json:"id"`
}

// DecodeCutJSON decodes a cut. The id, if present, is returned as given (receivers never
// recompute it); the caller may compare it with ID().
func DecodeCutJSON(data []byte) (*Cut, *Hash, error) {
	var j cutJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, nil, fmt.Errorf("decode cut: %w", err)
	}
	if j.Hashes == nil || j.Weight == nil || j.Height == nil || j.Instance == nil {
		return nil, nil, fmt.Errorf("decode cut: hashes, weight, height and instance are required")
	}
	v, ok := VersionByName(*j.Instance)
	if !ok {
		return nil, nil, fmt.Errorf("decode cut: unknown network %q", *j.Instance)
	}
	c := &Cut{Version: v, Height: *j.Height}
	for k, e := range j.Hashes {
		ch, err := strconv.ParseUint(k, 10, 32)
		if err != nil || strconv.FormatUint(ch, 10) != k || e.Height == nil || e.Hash == nil {
			return nil, nil, fmt.Errorf("decode cut: bad entry %q", k)
		}
		c.Entries = append(c.Entries, CutEntry{Chain: ChainID(ch), Height: *e.Height, Hash: *e.Hash})
	}
	slices.SortFunc(c.Entries, func(a, b CutEntry) int { return int(a.Chain) - int(b.Chain) })
	w, err := DecodeB64(*j.Weight)
	if err != nil || len(w) != 32 {
		return nil, nil, fmt.Errorf("decode cut: weight is not 32 bytes of unpadded base64url")
	}
	c.Weight = U256FromLE(w)
	return c, j.ID, nil
}
