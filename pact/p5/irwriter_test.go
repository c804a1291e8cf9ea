package p5

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ledgernode/ledger-node/pact/value"
)

// Integers are written as cborg's encodeInteger writes them: the shortest
// head within 64 bits (major type 0, or 1 for -1-n), a bignum tag (0xc2,
// 0xc3) with the magnitude's bytes beyond. The size estimate is the bit
// length in bytes, at least 8, whether or not CBOR is written.
func TestWriterIntegers(t *testing.T) {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	cases := []struct {
		i    value.Integer
		cbor []byte
		size uint64
	}{
		{value.NewInt(0), []byte{0x00}, 8},
		{value.NewInt(23), []byte{0x17}, 8},
		{value.NewInt(24), []byte{0x18, 24}, 8},
		{value.NewInt(256), []byte{0x19, 1, 0}, 8},
		{value.NewInt(-1), []byte{0x20}, 8},
		{value.NewInt(-25), []byte{0x38, 24}, 8},
		{value.NewInt(1 << 32), []byte{0x1b, 0, 0, 0, 1, 0, 0, 0, 0}, 8},
		{value.NewIntBig(two64), []byte{0xc2, 0x49, 1, 0, 0, 0, 0, 0, 0, 0, 0}, 8},
		{value.NewIntBig(new(big.Int).Neg(new(big.Int).Add(two64, big.NewInt(1)))),
			[]byte{0xc3, 0x49, 1, 0, 0, 0, 0, 0, 0, 0, 0}, 8},
		{value.NewIntBig(new(big.Int).Lsh(big.NewInt(1), 100)),
			append([]byte{0xc2, 0x4d, 0x10}, make([]byte, 12)...), 12},
	}
	for _, c := range cases {
		w := Writer{CBOR: true}
		w.Integer(c.i)
		if !bytes.Equal(w.Buf, c.cbor) {
			t.Errorf("%s: CBOR % x, want % x", c.i.Text(), w.Buf, c.cbor)
		}
		if w.Size != c.size {
			t.Errorf("%s: size %d, want %d", c.i.Text(), w.Size, c.size)
		}
		var sized Writer
		sized.Integer(c.i)
		if len(sized.Buf) != 0 || sized.Size != c.size {
			t.Errorf("%s, size only: %d bytes written, size %d", c.i.Text(), len(sized.Buf), sized.Size)
		}
	}
}

// cborHeadLen, which measures an image's document without writing it,
// agrees with the heads the writer writes.
func TestHeadLengthAgreesWithWriter(t *testing.T) {
	for _, n := range []uint64{0, 23, 24, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		w := Writer{CBOR: true}
		w.Word(n, 0)
		if got := cborHeadLen(n); got != len(w.Buf) {
			t.Errorf("head of %d: cborHeadLen %d, written %d bytes", n, got, len(w.Buf))
		}
	}
}

// DefKey's order is P5's derived Ord on FullyQualifiedName: module name
// first, then namespace with none before any, then member, then hash.
func TestDefKeyOrder(t *testing.T) {
	ordered := []DefKey{
		{Module: value.ModuleName{Name: "a"}, Name: "z"},
		{Module: value.ModuleName{Name: "b"}, Name: "a"},
		{Module: value.ModuleName{Name: "b", Namespace: "free"}, Name: "a"},
		{Module: value.ModuleName{Name: "b", Namespace: "user"}, Name: "a"},
		{Module: value.ModuleName{Name: "b", Namespace: "user"}, Name: "b"},
		{Module: value.ModuleName{Name: "b", Namespace: "user"}, Name: "b", Hash: "h"},
	}
	for i := range ordered {
		for j := range ordered {
			if got, want := ordered[i].Less(ordered[j]), i < j; got != want {
				t.Errorf("%v < %v = %v, want %v", ordered[i], ordered[j], got, want)
			}
		}
	}
}
