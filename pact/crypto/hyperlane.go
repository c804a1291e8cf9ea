package crypto

import (
	"encoding/binary"
	"errors"
	"math/big"
)

// Hyperlane messages as P5's Pact.Crypto.Hyperlane packs them (Solidity's
// abi.encodePacked: fixed-width big-endian integers and raw bytes, no
// length prefixes or padding).

// HyperlaneMessage is a Hyperlane mailbox message. Sender and Recipient
// are 32 bytes in valid messages; the adapter checks that, Pack does not.
type HyperlaneMessage struct {
	Version           uint8
	Nonce             uint32
	OriginDomain      uint32
	Sender            []byte
	DestinationDomain uint32
	Recipient         []byte
	Body              []byte
}

// Pack is packHyperlaneMessage: version (1 byte), nonce, origin domain
// (4 bytes each), sender, destination domain (4), recipient, body.
func (m *HyperlaneMessage) Pack() []byte {
	b := make([]byte, 0, 1+4+4+len(m.Sender)+4+len(m.Recipient)+len(m.Body))
	b = append(b, m.Version)
	b = binary.BigEndian.AppendUint32(b, m.Nonce)
	b = binary.BigEndian.AppendUint32(b, m.OriginDomain)
	b = append(b, m.Sender...)
	b = binary.BigEndian.AppendUint32(b, m.DestinationDomain)
	b = append(b, m.Recipient...)
	return append(b, m.Body...)
}

// HyperlaneMessageID is getHyperlaneMessageId: the unpadded base64url of
// the Keccak-256 of the packed message.
func HyperlaneMessageID(m *HyperlaneMessage) string {
	id := Keccak256(m.Pack())
	return EncodeBase64URL(id[:])
}

// TokenMessage is an ERC20 token message: amount (uint256), chain id
// (uint16), then the recipient bytes to the end of the message.
type TokenMessage struct {
	// Amount is stored modulo 2^256, as the Haskell Word256 conversion
	// wraps; a negative amount wraps to its two's complement.
	Amount    *big.Int
	ChainID   uint16
	Recipient []byte
}

const tokenMessageHeader = 32 + 2

var two256 = new(big.Int).Lsh(big.NewInt(1), 256)

// EncodeTokenMessage is packTokenMessageERC20.
func EncodeTokenMessage(t *TokenMessage) []byte {
	b := make([]byte, tokenMessageHeader, tokenMessageHeader+len(t.Recipient))
	amount := new(big.Int)
	if t.Amount != nil {
		amount.Mod(t.Amount, two256)
	}
	amount.FillBytes(b[:32])
	binary.BigEndian.PutUint16(b[32:], t.ChainID)
	return append(b, t.Recipient...)
}

// ErrTokenMessageShort is the only way the binary decoding of a token
// message fails: fewer than 34 bytes (P5's "binary decoding failed").
var ErrTokenMessageShort = errors.New("token message shorter than 34 bytes")

// DecodeTokenMessage is unpackTokenMessageERC20: every input of at least
// 34 bytes decodes, the recipient taking whatever follows the header.
func DecodeTokenMessage(b []byte) (TokenMessage, error) {
	if len(b) < tokenMessageHeader {
		return TokenMessage{}, ErrTokenMessageShort
	}
	return TokenMessage{
		Amount:    new(big.Int).SetBytes(b[:32]),
		ChainID:   binary.BigEndian.Uint16(b[32:34]),
		Recipient: append([]byte(nil), b[tokenMessageHeader:]...),
	}, nil
}
