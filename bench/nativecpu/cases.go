package main

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/eval"
)

// A sweep is one native (or one form of a native) measured over growing
// inputs. Each point defines its inputs as REPL defconsts, built before the
// measurement and free to read, so that the meter sees exactly the
// expression's own charges.
type sweep struct {
	name string // what the row measures, e.g. "(int-to-str 10 X)"
	// flat marks the natives P5 prices without regard to the size the
	// sweep grows (mod, abs, drop, sort by fields, ...): their CPU per gas
	// grows with the input whatever the implementation does.
	flat  bool
	unit  string // what size counts: bits, chars, elems, fields, depth
	sizes []int
	at    func(n int) point
}

// A point is one input size of a sweep.
type point struct {
	size   int
	consts []constDef
	data   eval.Value // message data, for the natives that read it
	expr   string
	fails  bool // the expression fails (after its charges), as P5's does
}

type constDef struct{ name, src string }

func def(name, src string) constDef { return constDef{name, src} }

// Sizes of the sweeps. Integers grow to the 2^20-bit bound the interpreter
// enforces (maxResultBits in pact/eval); strings and lists to sizes a
// transaction's gas can pay for and beyond.
var (
	bitSizes   = []int{256, 1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20}
	halfBits   = []int{256, 1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 19}
	charSizes  = []int{100, 1000, 10_000, 100_000, 1_000_000}
	elemSizes  = []int{100, 1000, 10_000, 100_000, 1_000_000}
	smallElems = []int{100, 300, 1000, 3000}
	fieldSizes = []int{10, 100, 1000, 10_000, 100_000}
	depthSizes = []int{10, 100, 1000, 10_000}
)

var itoa = strconv.Itoa

// intOfBits is Pact source for a positive integer of at most (and about)
// bits bits with irregular digits: a power of 3.
func intOfBits(bits int) string {
	k := int(float64(bits-1) / math.Log2(3))
	return "(^ 3 " + itoa(k) + ")"
}

// otherIntOfBits is another such integer (a power of 5 minus 1), so that
// binary natives see two different operands.
func otherIntOfBits(bits int) string {
	k := int(float64(bits-1) / math.Log2(5))
	return "(- (^ 5 " + itoa(k) + ") 1)"
}

// digits is a decimal string of n digits (n >= 1).
func digits(n int) string {
	return "(concat (make-list " + itoa(n) + " \"7\"))"
}

// asciiOf and uniOf are strings of n characters (n a multiple of 10):
// ASCII, and a mix of 1- to 4-byte UTF-8 characters.
func asciiOf(n int) string {
	return "(concat (make-list " + itoa(n/10) + " \"abcdefghij\"))"
}

func uniOf(n int) string {
	return "(concat (make-list " + itoa(n/10) + " \"aé€😀bcdefg\"))"
}

// shuffled is a list of the integers 0..n-1 in a scrambled order.
func shuffled(n int) string {
	return "(map (lambda (i) (mod (* i 7919) " + itoa(n) + ")) (enumerate 1 " + itoa(n) + "))"
}

// wideObject is an object of n fields k0..k(n-1) holding their index.
func wideObject(n int) *eval.Object {
	fs := make([]eval.Field, n)
	for i := range fs {
		fs[i] = eval.Field{Key: "k" + itoa(i), Val: eval.IntValue(int64(i))}
	}
	return eval.NewObject(fs...)
}

// deepObject nests n objects: {"a": {"a": ... {"a": 1}}}.
func deepObject(n int) *eval.Object {
	var v eval.Value = eval.IntValue(1)
	for range n {
		v = eval.NewObject(eval.Field{Key: "a", Val: v})
	}
	return v.(*eval.Object)
}

// msg is message data holding the given fields.
func msg(fs ...eval.Field) *eval.Object { return eval.NewObject(fs...) }

// intSweep is a sweep over integers of growing bit length: X and X2 are
// two different integers of n bits, Y one of n/2 bits, NX is -X.
func intSweep(name string, sizes []int, expr string) sweep {
	return sweep{name: name, unit: "bits", sizes: sizes, at: func(n int) point {
		return point{size: n, expr: expr, consts: []constDef{
			def("X", intOfBits(n)), def("X2", otherIntOfBits(n)), def("Y", otherIntOfBits(n/2)),
			def("NX", "(- 0 "+intOfBits(n)+")")}}
	}}
}

// decSweep is a sweep over decimals of 255 places whose mantissas grow: D
// and D2 have n-bit mantissas, E an n/2-bit one. They come from message
// data, built in Go: Pact has no exact way to write 255 places of a huge
// mantissa short of a literal.
func decSweep(name string, sizes []int, expr string) sweep {
	return sweep{name: name, unit: "bits", sizes: sizes, at: func(n int) point {
		dec := func(base int64, bits int) eval.Value {
			k := int64(float64(bits-1) / math.Log2(float64(base)))
			m := new(big.Int).Exp(big.NewInt(base), big.NewInt(k), nil)
			return eval.NewDecimal(eval.NewIntBig(m.Sub(m, big.NewInt(1))), eval.MaxPlaces)
		}
		return point{size: n, expr: expr,
			data: msg(eval.Field{Key: "d", Val: dec(3, n)}, eval.Field{Key: "d2", Val: dec(5, n)},
				eval.Field{Key: "e", Val: dec(7, n/2)}),
			consts: []constDef{def("D", "(read-msg \"d\")"), def("D2", "(read-msg \"d2\")"), def("E", "(read-msg \"e\")")}}
	}}
}

// strSweep is a sweep over strings of n characters: S and S2 ASCII (equal
// text, two values), U mixed UTF-8, B the base64url of S, N n decimal
// digits, M n base-7 digits, A n base64url digits, C1 a list of n one-character strings, T a
// template of n/10 holes and L a list of n/10 integers to fill them.
func strSweep(name string, sizes []int, expr string) sweep {
	return sweep{name: name, unit: "chars", sizes: sizes, at: func(n int) point {
		return point{size: n, expr: expr, consts: []constDef{
			def("S", asciiOf(n)), def("S2", asciiOf(n)), def("U", uniOf(n)),
			def("B", "(base64-encode "+asciiOf(n)+")"), def("N", digits(n)),
			def("M", "(concat (make-list "+itoa(n)+" \"6\"))"),
			def("A", "(concat (make-list "+itoa(n)+" \"A\"))"),
			def("C1", "(make-list "+itoa(n)+" \"x\")"),
			def("T", "(concat (make-list "+itoa(n/10)+" \"{}:abcdefg\"))"),
			def("L", "(enumerate 1 "+itoa(n/10)+")"),
			def("HALF", itoa(n/2))}}
	}}
}

// listSweep is a sweep over lists of n elements: L scrambled integers, L2
// an equal list, A the integers in order, Z zeros, LS their decimal
// strings, LO objects {"a": i}, HALF n/2.
func listSweep(name string, sizes []int, expr string) sweep {
	return sweep{name: name, unit: "elems", sizes: sizes, at: func(n int) point {
		return point{size: n, expr: expr, consts: []constDef{
			def("L", shuffled(n)), def("L2", shuffled(n)), def("A", "(enumerate 1 "+itoa(n)+")"),
			def("Z", "(make-list "+itoa(n)+" 0)"),
			def("LS", "(map (int-to-str 10) "+shuffled(n)+")"),
			def("LO", "(map (lambda (i) {'a: i, 'b: \"x\"}) "+shuffled(n)+")"),
			def("HALF", itoa(n/2))}}
	}}
}

// objSweep is a sweep over objects: O and O2 equal objects of n fields.
func objSweep(name string, sizes []int, expr string) sweep {
	return sweep{name: name, unit: "fields", sizes: sizes, at: func(n int) point {
		return point{size: n, expr: expr, data: msg(eval.Field{Key: "o", Val: wideObject(n)}),
			consts: []constDef{def("O", "(read-msg \"o\")"), def("O2", "(read-msg \"o\")"),
				def("K", "\"k"+itoa(n/2)+"\"")}}
	}}
}

// deepSweep is a sweep over objects nested n deep: V and V2 equal.
func deepSweep(name string, sizes []int, expr string) sweep {
	return sweep{name: name, unit: "depth", sizes: sizes, at: func(n int) point {
		return point{size: n, expr: expr, data: msg(eval.Field{Key: "v", Val: deepObject(n)}),
			consts: []constDef{def("V", "(read-msg \"v\")"), def("V2", "(read-msg \"v\")")}}
	}}
}

// msgSweep reads a message-data string of n digits.
func msgSweep(name string, sizes []int, expr string, text func(n int) string) sweep {
	return sweep{name: name, unit: "chars", sizes: sizes, at: func(n int) point {
		return point{size: n, expr: expr, data: msg(eval.Field{Key: "k", Val: eval.String(text(n))})}
	}}
}

func flat(s sweep) sweep { s.flat = true; return s }

func failing(s sweep, from int) sweep {
	at := s.at
	s.at = func(n int) point {
		p := at(n)
		p.fails = n >= from
		return p
	}
	return s
}

// sweeps are every sweep, in the order the table prints them.
var sweeps = []sweep{
	// Integers.
	intSweep("(+ X X2)", bitSizes, "(+ X X2)"),
	intSweep("(- X X2)", bitSizes, "(- X X2)"),
	intSweep("(* X Y)", halfBits, "(* X Y)"),
	intSweep("(* X X2)", halfBits, "(* X X2)"),
	intSweep("(/ X Y)", bitSizes, "(/ X Y)"),
	intSweep("(< X X2)", bitSizes, "(< X X2)"),
	intSweep("(= X X2)", bitSizes, "(= X X2)"),
	{name: "(^ 3 k)", unit: "bits", sizes: bitSizes, at: func(n int) point {
		return point{size: n, expr: intOfBits(n)}
	}},
	{name: "(shift 1 k)", unit: "bits", sizes: bitSizes, at: func(n int) point {
		return point{size: n, expr: "(shift 1 " + itoa(n-1) + ")"}
	}},
	flat(intSweep("(shift X -7)", bitSizes, "(shift X -7)")),
	intSweep("(int-to-str 2 X)", bitSizes, "(int-to-str 2 X)"),
	intSweep("(int-to-str 3 X)", bitSizes, "(int-to-str 3 X)"),
	intSweep("(int-to-str 7 X)", bitSizes, "(int-to-str 7 X)"),
	intSweep("(int-to-str 10 X)", bitSizes, "(int-to-str 10 X)"),
	intSweep("(int-to-str 16 X)", bitSizes, "(int-to-str 16 X)"),
	intSweep("(int-to-str 64 X)", bitSizes, "(int-to-str 64 X)"),
	intSweep("(show X)", bitSizes, "(show X)"),
	intSweep("(format \"{}\" [X])", bitSizes, "(format \"{}\" [X])"),
	intSweep("(hash X)", bitSizes, "(hash X)"),
	intSweep("(sqrt X)", bitSizes, "(sqrt X)"),
	intSweep("(ln X)", bitSizes, "(ln X)"),
	intSweep("(log 3 X)", bitSizes, "(log 3 X)"),
	{name: "(exp k)", unit: "k", sizes: []int{16, 256, 4096, 65536, 500_000}, at: func(n int) point {
		return point{size: n, expr: "(exp " + itoa(n) + ")"}
	}},
	failing(strSweep("(str-to-int N)", []int{10, 100, 500, 10_000, 200_000}, "(str-to-int N)"), 501),
	failing(strSweep("(str-to-int 16 N)", []int{10, 100, 500, 10_000, 200_000}, "(str-to-int 16 N)"), 501),
	failing(strSweep("(str-to-int 7 M)", []int{10, 100, 500, 10_000, 200_000}, "(str-to-int 7 M)"), 501),
	failing(strSweep("(str-to-int 64 A)", []int{12, 100, 500, 10_000, 200_000}, "(str-to-int 64 A)"), 501),
	msgSweep("(read-integer \"k\")", []int{100, 1000, 10_000, 100_000, 300_000}, "(read-integer \"k\")",
		func(n int) string { return strings.Repeat("7", n) }),
	msgSweep("(read-decimal \"k\")", []int{100, 1000, 10_000, 100_000, 300_000}, "(read-decimal \"k\")",
		func(n int) string { return strings.Repeat("7", n-51) + "." + strings.Repeat("3", 50) }),

	// Decimals with 255 places.
	decSweep("(+ D D2)", bitSizes, "(+ D D2)"),
	decSweep("(* D E)", halfBits, "(* D E)"),
	decSweep("(/ D E)", bitSizes, "(/ D E)"),
	decSweep("(< D D2)", bitSizes, "(< D D2)"),
	decSweep("(show D)", bitSizes, "(show D)"),
	decSweep("(sqrt D)", bitSizes, "(sqrt D)"),
	decSweep("(ln D)", bitSizes, "(ln D)"),

	// Strings.
	strSweep("(length S)", charSizes, "(length S)"),
	strSweep("(length U)", charSizes, "(length U)"),
	strSweep("(take 5 S)", charSizes, "(take 5 S)"),
	strSweep("(take HALF U)", charSizes, "(take HALF U)"),
	strSweep("(take -5 U)", charSizes, "(take -5 U)"),
	strSweep("(reverse U)", charSizes, "(reverse U)"),
	strSweep("(+ S S2)", charSizes, "(+ S S2)"),
	strSweep("(concat [S U])", charSizes, "(concat [S U])"),
	strSweep("(concat C1)", charSizes, "(concat C1)"),
	strSweep("(str-to-list U)", charSizes, "(str-to-list U)"),
	strSweep("(hash U)", charSizes, "(hash U)"),
	strSweep("(hash-keccak256 [B])", charSizes, "(hash-keccak256 [B])"),
	strSweep("(base64-encode U)", charSizes, "(base64-encode U)"),
	strSweep("(base64-decode B)", charSizes, "(base64-decode B)"),
	strSweep("(is-charset 1 U)", charSizes, "(is-charset 1 U)"),
	strSweep("(contains \"zz\" U)", charSizes, "(contains \"zz\" U)"),
	strSweep("(< S S2)", charSizes, "(< S S2)"),
	strSweep("(= S S2)", charSizes, "(= S S2)"),
	strSweep("(show U)", charSizes, "(show U)"),
	strSweep("(format \"{}\" [U])", charSizes, "(format \"{}\" [U])"),
	strSweep("(format T L)", charSizes, "(format T L)"),
	strSweep("(format S [])", charSizes, "(format S [])"),

	// Lists.
	listSweep("(sort L)", elemSizes, "(sort L)"),
	listSweep("(sort A)", elemSizes, "(sort A)"),
	listSweep("(sort LS)", elemSizes, "(sort LS)"),
	listSweep("(reverse L)", elemSizes, "(reverse L)"),
	listSweep("(take HALF L)", elemSizes, "(take HALF L)"),
	listSweep("(+ L L2)", elemSizes, "(+ L L2)"),
	listSweep("(distinct L)", smallElems, "(distinct L)"),
	listSweep("(distinct Z)", elemSizes, "(distinct Z)"),
	listSweep("(fold (+) 0 L)", elemSizes, "(fold (+) 0 L)"),
	listSweep("(map (+ 1) L)", elemSizes, "(map (+ 1) L)"),
	listSweep("(filter (< 5) L)", elemSizes, "(filter (< 5) L)"),
	listSweep("(zip (+) L L2)", elemSizes, "(zip (+) L L2)"),
	listSweep("(contains -1 L)", elemSizes, "(contains -1 L)"),
	listSweep("(= L L2)", elemSizes, "(= L L2)"),
	listSweep("(show L)", elemSizes, "(show L)"),
	listSweep("(hash L)", elemSizes, "(hash L)"),
	listSweep("(format \"{}\" [LS])", elemSizes, "(format \"{}\" [LS])"),
	listSweep("(concat LS)", elemSizes, "(concat LS)"),
	listSweep("(make-list n 1)", elemSizes, "(make-list (* 2 HALF) 1)"),
	listSweep("(enumerate 1 n)", elemSizes, "(enumerate 1 (* 2 HALF))"),

	// Objects, wide and deep.
	objSweep("(at K O)", fieldSizes, "(at K O)"),
	objSweep("(remove K O)", fieldSizes, "(remove K O)"),
	objSweep("(take [K] O)", fieldSizes, "(take [K] O)"),
	objSweep("(+ O O2)", fieldSizes, "(+ O O2)"),
	objSweep("(= O O2)", fieldSizes, "(= O O2)"),
	objSweep("(contains K O)", fieldSizes, "(contains K O)"),
	objSweep("(show O)", fieldSizes, "(show O)"),
	objSweep("(hash O)", fieldSizes, "(hash O)"),
	deepSweep("(show V)", depthSizes, "(show V)"),
	deepSweep("(hash V)", depthSizes, "(hash V)"),
	deepSweep("(= V V2)", depthSizes, "(= V V2)"),

	// Elliptic curves (BN254): sized by the number of pairs checked.
	zkSweep("(pairing-check G1s G2s)", []int{1, 2, 4, 8, 16}, "(pairing-check G1s G2s)"),
	zkSweep("(scalar-mult 'g1 P1 K)", []int{1}, "(scalar-mult 'g1 P1 K)"),
	zkSweep("(scalar-mult 'g2 P2 K)", []int{1}, "(scalar-mult 'g2 P2 K)"),
	zkSweep("(point-add 'g1 P1 P1)", []int{1}, "(point-add 'g1 P1 P1)"),
	zkSweep("(point-add 'g2 P2 P2)", []int{1}, "(point-add 'g2 P2 P2)"),

	// Natives whose P5 price ignores the size swept.
	flat(intSweep("(mod X Y)", bitSizes, "(mod X Y)")),
	flat(intSweep("(abs NX)", bitSizes, "(abs NX)")),
	flat(intSweep("(negate X)", bitSizes, "(negate X)")),
	flat(intSweep("(+ 1 NX)", bitSizes, "(+ 1 NX)")),
	flat(intSweep("(* -1 NX)", halfBits, "(* -1 NX)")),
	flat(intSweep("(/ NX 3)", bitSizes, "(/ NX 3)")),
	flat(intSweep("(& X X2)", bitSizes, "(& X X2)")),
	flat(intSweep("(dec X)", bitSizes, "(dec X)")),
	flat(decSweep("(round D 2)", bitSizes, "(round D 2)")),
	flat(strSweep("(drop 5 U)", charSizes, "(drop 5 U)")),
	flat(strSweep("(drop -5 U)", charSizes, "(drop -5 U)")),
	flat(strSweep("(drop HALF U)", charSizes, "(drop HALF U)")),
	flat(listSweep("(drop HALF L)", elemSizes, "(drop HALF L)")),
	flat(listSweep("(sort ['a] LO)", elemSizes, "(sort ['a] LO)")),
	flat(objSweep("(drop [K] O)", fieldSizes, "(drop [K] O)")),
}

// bigDigits is a message-data field holding a string of n decimal digits.
func bigDigits(key string, n int) eval.Field {
	return eval.Field{Key: key, Val: eval.String(strings.Repeat("7", n))}
}

// zkSweep is a sweep over n pairs of BN254 generator points: G1s and G2s
// lists of n points, P1 and P2 one point of each group, K a 254-bit scalar.
func zkSweep(name string, sizes []int, expr string) sweep {
	const g1 = "{'x: 1, 'y: 2}"
	const g2 = "{'x: [10857046999023057135944570762232829481370756359578518086990519993285655852781, " +
		"11559732032986387107991004021392285783925812861821192530917403151452391805634], " +
		"'y: [8495653923123431417604973247489272438418190587263600148770280649306958101930, " +
		"4082367875863433681332203403145435568316851327593401208105741076214120093531]}"
	return sweep{name: name, unit: "pairs", sizes: sizes, at: func(n int) point {
		return point{size: n, expr: expr, consts: []constDef{
			def("G1s", "(make-list "+itoa(n)+" "+g1+")"), def("G2s", "(make-list "+itoa(n)+" "+g2+")"),
			def("P1", g1), def("P2", g2),
			def("K", "21888242871839275222246405745257275088548364400416034343698204186575808495616")}}
	}}
}
