package p5

import (
	"math/big"

	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Writer writes Pact 5's IR of a module as two measures at once: its CBOR, as
// Pact.Core.Serialise.CBOR_V1 (cborg) writes it, which is what module
// hashes are taken over and what a module read is charged by the length
// of; and its byte-size estimate, Pact.Core.SizeOf (SizeOfV0), which is
// what desugaring, hashing and writing a module are charged by. Both follow
// the shape of P5's Haskell types, so the encoder calls say what each piece
// is: a constructor of a sum type (con), a record (rec), a Haskell list
// (hlist), a Maybe, a text, a hash...
//
// Infos (source positions) are where the measures differ by use: a module
// is hashed and its desugaring charged with every info erased, and written
// with them, as a REPL span (FileLocSpanInfo) or a chainweb line (LineInfo).
type Writer struct {
	// cbor says the CBOR is wanted; without it only the size is counted.
	CBOR bool
	Buf  []byte
	Size uint64
	// infos is how infos are written: erased, REPL spans or lines.
	Infos infoMode
	// builtinSize is a native's estimated size: 2 for chainweb's
	// CoreBuiltin, 4 for the REPL's ReplBuiltin wrapping it.
	BuiltinSize uint64
}

type infoMode uint8

const (
	infoErased infoMode = iota // () : nothing to size, CBOR null
	InfoSpan                   // FileLocSpanInfo: file and span, 21 bytes estimated
	InfoLine                   // LineInfo: the start line, 5 bytes estimated
)

func (w *Writer) head(major byte, n uint64) {
	if !w.CBOR {
		return
	}
	m := major << 5
	switch {
	case n < 24:
		w.Buf = append(w.Buf, m|byte(n))
	case n <= 0xff:
		w.Buf = append(w.Buf, m|24, byte(n))
	case n <= 0xffff:
		w.Buf = append(w.Buf, m|25, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		w.Buf = append(w.Buf, m|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	default:
		w.Buf = append(w.Buf, m|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32),
			byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

func (w *Writer) Raw(b ...byte) {
	if w.CBOR {
		w.Buf = append(w.Buf, b...)
	}
}

// Con starts a constructor of a type with several: CBOR's list of the tag
// and the fields; sized as a tag and a word.
func (w *Writer) Con(tag uint64, fields int) {
	w.head(4, uint64(fields+1))
	w.head(0, tag)
	w.Size += SizeADT
}

// Rec starts a record (a type of one constructor): CBOR's list of the
// fields written (cborFields; the size estimate counts every field, the
// CBOR may leave some out); sized as one tag.
func (w *Writer) Rec(cborFields int) {
	w.head(4, uint64(cborFields))
	w.Size += SizeTag
}

// Text is a Text (and its newtypes: Field, NamespaceName, BareName...).
func (w *Writer) Text(s string) {
	w.head(3, uint64(len(s)))
	if w.CBOR {
		w.Buf = append(w.Buf, s...)
	}
	w.Size += uint64(len(s)) + SizeText
}

// Hash is a ModuleHash or Hash: a ShortByteString.
func (w *Writer) Hash(b []byte) {
	w.head(2, uint64(len(b)))
	if w.CBOR {
		w.Buf = append(w.Buf, b...)
	}
	w.Size += uint64(len(b)) + SizeText
}

// Array starts a definite CBOR array of n elements: a Vector or a Set,
// sized as a CBOR array (5 + its elements).
func (w *Writer) Array(n int) {
	w.head(4, uint64(n))
	w.Size += SizeArray
}

// MapHead starts a Map of n entries; each entry is a pair (entry).
func (w *Writer) MapHead(n int) {
	w.head(5, uint64(n))
	w.Size += SizeArray
}

// Entry is one key/value pair of a Map: nothing in CBOR, a pair's tag in
// the estimate.
func (w *Writer) Entry() { w.Size += SizeTag }

// hlist writes a Haskell list (serialise's defaultEncodeList): an
// indefinite array, or an empty definite one.
func (w *Writer) HList(n int, item func(i int) error) error {
	w.Size += SizeArray
	if n == 0 {
		w.head(4, 0)
		return nil
	}
	w.Raw(0x9f)
	for i := 0; i < n; i++ {
		if err := item(i); err != nil {
			return err
		}
	}
	w.Raw(0xff)
	return nil
}

// Maybe writes a Haskell Maybe: [] or [x].
func (w *Writer) Maybe(present bool, item func()) {
	w.Size += SizeADT
	if !present {
		w.head(4, 0)
		return
	}
	w.head(4, 1)
	item()
}

// Word is a CBOR word with a given size estimate (a PrimType's 1, a
// Word8's 1, a DeBruijn index's 9).
func (w *Writer) Word(n uint64, size uint64) {
	w.head(0, n)
	w.Size += size
}

// Builtin is a native, by its P5 enumeration index.
func (w *Writer) Builtin(idx uint64) {
	w.head(0, idx)
	w.Size += w.BuiltinSize
}

// Int is a Haskell Int.
func (w *Writer) Int(n int64) {
	w.int64(n)
	w.Size += SizeInt
}

func (w *Writer) int64(n int64) {
	if n >= 0 {
		w.head(0, uint64(n))
	} else {
		w.head(1, uint64(-1-n))
	}
}

// Integer is an Integer: cborg's encodeInteger (a plain head within 64
// bits, a bignum beyond), sized by its bit length.
func (w *Writer) Integer(i value.Integer) {
	w.Size += IntSize(i)
	if !w.CBOR {
		return
	}
	b := i.Big()
	if b.Sign() >= 0 {
		if b.IsUint64() {
			w.head(0, b.Uint64())
			return
		}
		w.Raw(0xc2)
		w.rawBytes(b.Bytes())
		return
	}
	m := new(big.Int).Neg(b)
	m.Sub(m, big.NewInt(1))
	if m.IsUint64() {
		w.head(1, m.Uint64())
		return
	}
	w.Raw(0xc3)
	w.rawBytes(m.Bytes())
}

func (w *Writer) rawBytes(b []byte) {
	w.head(2, uint64(len(b)))
	w.Raw(b...)
}

func (w *Writer) Boolean(b bool) {
	if b {
		w.Raw(0xf5)
	} else {
		w.Raw(0xf4)
	}
	w.Size += SizeTag
}

// Time is a UTCTime: its microseconds since the MJD epoch.
func (w *Writer) Time(mjdMicros int64) {
	w.int64(mjdMicros)
	w.Size += SizeTime
}

// Extra adds to the estimate alone: the hand-written SizeOf instances of
// FQNameRef and TableSchema count a tag the CBOR does not write.
func (w *Writer) Extra(n uint64) { w.Size += n }

// Info writes a term's, argument's or definition's info.
func (w *Writer) Info(s syntax.Span) {
	switch w.Infos {
	case infoErased:
		w.Raw(0xf6) // ()
	case InfoLine:
		w.int64(int64(max(s.Start.Line-1, 0)))
		w.Size += SizeInt
	case InfoSpan:
		w.head(4, 2)
		w.head(3, uint64(len(s.File)))
		w.Raw([]byte(s.File)...)
		w.head(4, 4)
		w.int64(int64(max(s.Start.Line-1, 0)))
		w.int64(int64(s.Start.Col))
		w.int64(int64(max(s.End.Line-1, 0)))
		w.int64(int64(s.End.Col))
		w.Size += SizeTag + 4*SizeInt
	}
}

// ModuleName is a ModuleName record: a name and a Maybe namespace.
func (w *Writer) ModuleName(m value.ModuleName) {
	w.Rec(2)
	w.Text(m.Name)
	w.Maybe(m.Namespace != "", func() { w.Text(m.Namespace) })
}

func (w *Writer) ModuleNames(ms []value.ModuleName) {
	_ = w.HList(len(ms), func(i int) error { w.ModuleName(ms[i]); return nil })
}

func (w *Writer) QualName(q value.QualifiedName) {
	w.Rec(2)
	w.Text(q.Name)
	w.ModuleName(q.Module)
}

func (w *Writer) FQN(m value.ModuleName, name string, hash []byte) {
	w.Rec(3)
	w.ModuleName(m)
	w.Text(name)
	w.Hash(hash)
}
