package eval

import (
	"math/big"

	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// irW writes Pact 5's IR of a module as two measures at once: its CBOR, as
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
type irW struct {
	// cbor says the CBOR is wanted; without it only the size is counted.
	cbor bool
	b    []byte
	size uint64
	// infos is how infos are written: erased, REPL spans or lines.
	infos infoMode
	// builtinSize is a native's estimated size: 2 for chainweb's
	// CoreBuiltin, 4 for the REPL's ReplBuiltin wrapping it.
	builtinSize uint64
}

type infoMode uint8

const (
	infoErased infoMode = iota // () : nothing to size, CBOR null
	infoSpan                   // FileLocSpanInfo: file and span, 21 bytes estimated
	infoLine                   // LineInfo: the start line, 5 bytes estimated
)

func (w *irW) head(major byte, n uint64) {
	if !w.cbor {
		return
	}
	m := major << 5
	switch {
	case n < 24:
		w.b = append(w.b, m|byte(n))
	case n <= 0xff:
		w.b = append(w.b, m|24, byte(n))
	case n <= 0xffff:
		w.b = append(w.b, m|25, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		w.b = append(w.b, m|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	default:
		w.b = append(w.b, m|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32),
			byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

func (w *irW) raw(b ...byte) {
	if w.cbor {
		w.b = append(w.b, b...)
	}
}

// con starts a constructor of a type with several: CBOR's list of the tag
// and the fields; sized as a tag and a word.
func (w *irW) con(tag uint64, fields int) {
	w.head(4, uint64(fields+1))
	w.head(0, tag)
	w.size += szADT
}

// rec starts a record (a type of one constructor): CBOR's list of the
// fields written (cborFields; the size estimate counts every field, the
// CBOR may leave some out); sized as one tag.
func (w *irW) rec(cborFields int) {
	w.head(4, uint64(cborFields))
	w.size += szTag
}

// text is a Text (and its newtypes: Field, NamespaceName, BareName...).
func (w *irW) text(s string) {
	w.head(3, uint64(len(s)))
	if w.cbor {
		w.b = append(w.b, s...)
	}
	w.size += uint64(len(s)) + szText
}

// hash is a ModuleHash or Hash: a ShortByteString.
func (w *irW) hash(b []byte) {
	w.head(2, uint64(len(b)))
	if w.cbor {
		w.b = append(w.b, b...)
	}
	w.size += uint64(len(b)) + szText
}

// array starts a definite CBOR array of n elements: a Vector or a Set,
// sized as a CBOR array (5 + its elements).
func (w *irW) array(n int) {
	w.head(4, uint64(n))
	w.size += szArray
}

// mapHead starts a Map of n entries; each entry is a pair (entry).
func (w *irW) mapHead(n int) {
	w.head(5, uint64(n))
	w.size += szArray
}

// entry is one key/value pair of a Map: nothing in CBOR, a pair's tag in
// the estimate.
func (w *irW) entry() { w.size += szTag }

// hlist writes a Haskell list (serialise's defaultEncodeList): an
// indefinite array, or an empty definite one.
func (w *irW) hlist(n int, item func(i int) error) error {
	w.size += szArray
	if n == 0 {
		w.head(4, 0)
		return nil
	}
	w.raw(0x9f)
	for i := 0; i < n; i++ {
		if err := item(i); err != nil {
			return err
		}
	}
	w.raw(0xff)
	return nil
}

// maybe writes a Haskell Maybe: [] or [x].
func (w *irW) maybe(present bool, item func()) {
	w.size += szADT
	if !present {
		w.head(4, 0)
		return
	}
	w.head(4, 1)
	item()
}

// word is a CBOR word with a given size estimate (a PrimType's 1, a
// Word8's 1, a DeBruijn index's 9).
func (w *irW) word(n uint64, size uint64) {
	w.head(0, n)
	w.size += size
}

// builtin is a native, by its P5 enumeration index.
func (w *irW) builtin(idx uint64) {
	w.head(0, idx)
	w.size += w.builtinSize
}

// int is a Haskell Int.
func (w *irW) int(n int64) {
	w.int64(n)
	w.size += szInt
}

func (w *irW) int64(n int64) {
	if n >= 0 {
		w.head(0, uint64(n))
	} else {
		w.head(1, uint64(-1-n))
	}
}

// integer is an Integer: cborg's encodeInteger (a plain head within 64
// bits, a bignum beyond), sized by its bit length.
func (w *irW) integer(i value.Integer) {
	w.size += intSize(i)
	if !w.cbor {
		return
	}
	b := i.Big()
	if b.Sign() >= 0 {
		if b.IsUint64() {
			w.head(0, b.Uint64())
			return
		}
		w.raw(0xc2)
		w.rawBytes(b.Bytes())
		return
	}
	m := new(big.Int).Neg(b)
	m.Sub(m, big.NewInt(1))
	if m.IsUint64() {
		w.head(1, m.Uint64())
		return
	}
	w.raw(0xc3)
	w.rawBytes(m.Bytes())
}

func (w *irW) rawBytes(b []byte) {
	w.head(2, uint64(len(b)))
	w.raw(b...)
}

func (w *irW) boolean(b bool) {
	if b {
		w.raw(0xf5)
	} else {
		w.raw(0xf4)
	}
	w.size += szTag
}

// time is a UTCTime: its microseconds since the MJD epoch.
func (w *irW) time(mjdMicros int64) {
	w.int64(mjdMicros)
	w.size += szTime
}

// extra adds to the estimate alone: the hand-written SizeOf instances of
// FQNameRef and TableSchema count a tag the CBOR does not write.
func (w *irW) extra(n uint64) { w.size += n }

// info writes a term's, argument's or definition's info.
func (w *irW) info(s syntax.Span) {
	switch w.infos {
	case infoErased:
		w.raw(0xf6) // ()
	case infoLine:
		w.int64(int64(max(s.Start.Line-1, 0)))
		w.size += szInt
	case infoSpan:
		w.head(4, 2)
		w.head(3, uint64(len(s.File)))
		w.raw([]byte(s.File)...)
		w.head(4, 4)
		w.int64(int64(max(s.Start.Line-1, 0)))
		w.int64(int64(s.Start.Col))
		w.int64(int64(max(s.End.Line-1, 0)))
		w.int64(int64(s.End.Col))
		w.size += szTag + 4*szInt
	}
}

// moduleName is a ModuleName record: a name and a Maybe namespace.
func (w *irW) moduleName(m value.ModuleName) {
	w.rec(2)
	w.text(m.Name)
	w.maybe(m.Namespace != "", func() { w.text(m.Namespace) })
}

func (w *irW) moduleNames(ms []value.ModuleName) {
	_ = w.hlist(len(ms), func(i int) error { w.moduleName(ms[i]); return nil })
}

func (w *irW) qualName(q value.QualifiedName) {
	w.rec(2)
	w.text(q.Name)
	w.moduleName(q.Module)
}

func (w *irW) fqn(m value.ModuleName, name string, hash []byte) {
	w.rec(3)
	w.moduleName(m)
	w.text(name)
	w.hash(hash)
}
