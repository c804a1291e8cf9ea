package ledger

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Merkle inclusion proofs in merkle-log's format, and chainweb's SPV output proofs built from
// them (chainweb-api.md §6.6).
//
// A proof object is: the number of steps (u32 BE), the position of the subject among the first
// tree's leaves (u64 BE), then per step a side byte and a 32-byte hash. Running it starts from
// the subject's leaf hash; a step with side 0x00 puts its hash on the left,
// H(0x01 || step || current), side 0x01 on the right, H(0x01 || current || step). Proofs through
// nested trees are concatenated: each tree's root is a leaf of the next (a block's outputs tree
// in its payload tree, the payload in the header, a header among the adjacent hashes of a
// header of the next chain), so one object proves the subject against the last root.

// ProofStep is one step of an inclusion proof.
type ProofStep struct {
	// Side is ProofLeft (the step's hash is the left child) or ProofRight.
	Side byte
	Hash Hash
}

// Sides of a proof step.
const (
	ProofLeft  byte = 0x00
	ProofRight byte = 0x01
)

// InclusionPath returns the steps that prove leaves[pos] against MerkleRoot(leaves), innermost
// first.
func InclusionPath(leaves []Hash, pos int) []ProofStep {
	if pos < 0 || pos >= len(leaves) || len(leaves) < 2 {
		return nil
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	if pos < k {
		return append(InclusionPath(leaves[:k], pos), ProofStep{ProofRight, MerkleRoot(leaves[k:])})
	}
	return append(InclusionPath(leaves[k:], pos-k), ProofStep{ProofLeft, MerkleRoot(leaves[:k])})
}

// MerkleProof is a proof object: the subject's position in the first tree and the steps to the
// root of the last.
type MerkleProof struct {
	Position uint64
	Steps    []ProofStep
}

// Root runs the proof from the subject's leaf hash.
func (p *MerkleProof) Root(leaf Hash) Hash {
	cur := leaf
	for _, s := range p.Steps {
		if s.Side == ProofLeft {
			cur = NodeHash(s.Hash, cur)
		} else {
			cur = NodeHash(cur, s.Hash)
		}
	}
	return cur
}

// MarshalBinary encodes the proof object.
func (p *MerkleProof) MarshalBinary() ([]byte, error) {
	b := make([]byte, 12, 12+len(p.Steps)*(1+HashSize))
	binary.BigEndian.PutUint32(b, uint32(len(p.Steps)))
	binary.BigEndian.PutUint64(b[4:], p.Position)
	for _, s := range p.Steps {
		b = append(b, s.Side)
		b = append(b, s.Hash[:]...)
	}
	return b, nil
}

// maxProofSteps bounds a decoded proof: a path through 20 chains of trees of a few thousand
// leaves is well under a thousand steps.
const maxProofSteps = 4096

// ErrProofObject is wrapped by the errors of a malformed proof object.
var ErrProofObject = errors.New("malformed merkle proof object")

// UnmarshalBinary decodes a proof object.
func (p *MerkleProof) UnmarshalBinary(b []byte) error {
	if len(b) < 12 {
		return fmt.Errorf("%w: %d bytes", ErrProofObject, len(b))
	}
	n := binary.BigEndian.Uint32(b)
	if n > maxProofSteps || len(b) != 12+int(n)*(1+HashSize) {
		return fmt.Errorf("%w: %d steps in %d bytes", ErrProofObject, n, len(b))
	}
	p.Position = binary.BigEndian.Uint64(b[4:])
	p.Steps = make([]ProofStep, n)
	for i := range p.Steps {
		off := 12 + i*(1+HashSize)
		if b[off] != ProofLeft && b[off] != ProofRight {
			return fmt.Errorf("%w: step %d has side %#x", ErrProofObject, i, b[off])
		}
		p.Steps[i].Side = b[off]
		copy(p.Steps[i].Hash[:], b[off+1:])
	}
	return nil
}

// OutputPath returns the steps that prove the output of transaction i of p against p's payload
// hash: its outputs tree (whose first leaf is the coinbase output), then the payload tree.
func OutputPath(p *PayloadWithOutputs, i int) []ProofStep {
	leaves := make([]Hash, 0, 1+len(p.Transactions))
	leaves = append(leaves, TaggedLeafHash(TagCoinbaseOutput, p.Coinbase))
	for _, t := range p.Transactions {
		leaves = append(leaves, TaggedLeafHash(TagTransactionOutput, t.Output))
	}
	steps := InclusionPath(leaves, i+1)
	txHash := p.TransactionsHash
	return append(steps, ProofStep{ProofLeft, txHash}) // [transactionsHash, outputsHash]
}

// PayloadPath returns the steps that prove h's payload hash against h's block hash.
func (h *Header) PayloadPath() []ProofStep {
	var buf [headerFixedLeaves + MaxAdjacents]Hash
	return InclusionPath(h.appendLeaves(buf[:0]), headerPayloadLeaf)
}

// AdjacentPath returns the steps that prove the hash of h's adjacent parent on chain c against
// h's block hash; false when h has no adjacent on c.
func (h *Header) AdjacentPath(c ChainID) ([]ProofStep, bool) {
	for i, a := range h.Adjacents {
		if a.Chain == c {
			var buf [headerFixedLeaves + MaxAdjacents]Hash
			return InclusionPath(h.appendLeaves(buf[:0]), headerFixedLeaves+i), true
		}
	}
	return nil, false
}

// SPVAlgorithm is the hash algorithm name of the proofs this node makes and accepts.
const SPVAlgorithm = "SHA512t_256"

// OutputProof is chainweb's SPV proof that a transaction output is in the history of a
// header of chain Chain: the transport form is base64url of the JSON
// {"chain", "object", "subject": {"input"}, "algorithm"}.
type OutputProof struct {
	Chain ChainID
	Proof MerkleProof
	// Output is the transaction output (CommandResult JSON); the subject is the tagged input
	// node 0x0014 || Output.
	Output []byte
}

// Root is the block hash the proof leads to.
func (p *OutputProof) Root() Hash {
	return p.Proof.Root(TaggedLeafHash(TagTransactionOutput, p.Output))
}

// Encode returns the proof in its transport form.
func (p *OutputProof) Encode() string {
	obj, _ := p.Proof.MarshalBinary()
	subject := make([]byte, 2, 2+len(p.Output))
	binary.BigEndian.PutUint16(subject, TagTransactionOutput)
	subject = append(subject, p.Output...)
	var b bytes.Buffer
	b.WriteString(`{"chain":`)
	b.WriteString(strconv.FormatUint(uint64(p.Chain), 10))
	b.WriteString(`,"object":"`)
	b.WriteString(EncodeB64(obj))
	b.WriteString(`","subject":{"input":"`)
	b.WriteString(EncodeB64(subject))
	b.WriteString(`"},"algorithm":"` + SPVAlgorithm + `"}`)
	return EncodeB64(b.Bytes())
}

// ErrSPVProof is wrapped by the errors of a proof that does not decode.
var ErrSPVProof = errors.New("malformed SPV proof")

// maxSPVProofLen bounds a proof's transport form (outputs are bounded by the block size).
const maxSPVProofLen = 4 << 20

// DecodeOutputProof decodes a proof's transport form. Clients may wrap it in JSON quotes.
func DecodeOutputProof(s string) (*OutputProof, error) {
	if len(s) > maxSPVProofLen {
		return nil, fmt.Errorf("%w: %d bytes", ErrSPVProof, len(s))
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64url: %v", ErrSPVProof, err)
	}
	var j struct {
		Chain   *uint32 `json:"chain"`
		Object  *string `json:"object"`
		Subject *struct {
			Input *string `json:"input"`
		} `json:"subject"`
		Algorithm *string `json:"algorithm"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSPVProof, err)
	}
	if j.Chain == nil || j.Object == nil || j.Subject == nil || j.Subject.Input == nil {
		return nil, fmt.Errorf(`%w: "chain", "object" and "subject": {"input"} are required`, ErrSPVProof)
	}
	if j.Algorithm != nil && *j.Algorithm != SPVAlgorithm {
		return nil, fmt.Errorf("%w: algorithm %q, this node verifies %s", ErrSPVProof, *j.Algorithm, SPVAlgorithm)
	}
	p := &OutputProof{Chain: ChainID(*j.Chain)}
	obj, err := DecodeB64(*j.Object)
	if err != nil {
		return nil, fmt.Errorf("%w: object: %v", ErrSPVProof, err)
	}
	if err := p.Proof.UnmarshalBinary(obj); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSPVProof, err)
	}
	subject, err := DecodeB64(*j.Subject.Input)
	if err != nil {
		return nil, fmt.Errorf("%w: subject: %v", ErrSPVProof, err)
	}
	if len(subject) < 2 || binary.BigEndian.Uint16(subject) != TagTransactionOutput {
		return nil, fmt.Errorf("%w: the subject is not a transaction output", ErrSPVProof)
	}
	p.Output = subject[2:]
	return p, nil
}
