package crypto

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"testing"
)

func bigInt(t testing.TB, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 0)
	if !ok {
		t.Fatalf("bad integer %q", s)
	}
	return v
}

func TestKeccak256(t *testing.T) {
	// Vectors from P5 pact-tests/pact-tests/hash.repl ("keccak hash256 test
	// vector: ..."), which hashes the UTF-8 bytes of each string.
	cases := []struct{ in, want string }{
		{"", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
		{"abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
		{"The quick brown fox jumps over the lazy dog", "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"},
	}
	for _, c := range cases {
		got := Keccak256([]byte(c.in))
		if hex.EncodeToString(got[:]) != c.want {
			t.Errorf("Keccak256(%q) = %x, want %s", c.in, got, c.want)
		}
		// Chunking must not matter: the chunks share one context.
		var chunks [][]byte
		for s := c.in; len(s) > 0; s = s[min(len(s), 4):] {
			chunks = append(chunks, []byte(s[:min(len(s), 4)]))
		}
		if got2 := Keccak256(chunks...); got2 != got {
			t.Errorf("Keccak256 of %q in chunks = %x, want %x", c.in, got2, got)
		}
	}
}

func TestDecodeBase64URL(t *testing.T) {
	// Expected behaviour and texts are base64-bytestring 1.2.1.0's
	// Data.ByteString.Base64.URL.decode, which P5 uses.
	cases := []struct {
		in, want, err string
	}{
		{in: "", want: ""},
		{in: "YWJj", want: "abc"},
		{in: "YQ", want: "a"},
		{in: "YQ==", want: "a"},
		{in: "YWI", want: "ab"},
		{in: "YWI=", want: "ab"},
		{in: "-_8", want: "\xfb\xff"},
		{in: "Y", err: "Base64-encoded bytestring has invalid size"},
		{in: "YWJjY", err: "Base64-encoded bytestring has invalid size"},
		{in: "YQ=", err: "Base64-encoded bytestring has invalid padding"},
		{in: "YR", err: "non-canonical encoding detected at offset: 1"},
		{in: "YWJ", err: "non-canonical encoding detected at offset: 2"},
		{in: "YW!j", err: "invalid character at offset: 2"},
		{in: "YWJj+A", err: "invalid character at offset: 4"}, // '+' is not base64url
		{in: "YW=j", err: "invalid character at offset: 3"},   // pad followed by data
		{in: "Y=JjYWJj", err: "invalid padding at offset: 1"}, // pad in an inner quad
		{in: "YQ==YWJj", err: "invalid padding at offset: 2"}, // pad in an inner quad
		{in: "YWJj!=Jj", err: "invalid padding at offset: 5"}, // pads are checked before characters
		{in: "YWJj=", err: "Base64-encoded bytestring has invalid size"},
		{in: "\u00e9", err: "invalid character at offset: 0"}, // 2 UTF-8 bytes, completed with "=="
	}
	for _, c := range cases {
		got, err := DecodeBase64URL([]byte(c.in))
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("DecodeBase64URL(%q) error = %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || string(got) != c.want):
			t.Errorf("DecodeBase64URL(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if s := EncodeBase64URL([]byte("\xfb\xff")); s != "-_8" {
		t.Errorf("EncodeBase64URL = %q", s)
	}
}

func TestPoseidon(t *testing.T) {
	// Vectors from P5 pact-tests/pact-tests/poseidon-hash.repl:
	// (hash-poseidon 1), (hash-poseidon 1 2), ... (hash-poseidon 1 ... 8).
	want := []string{
		"18586133768512220936620570745912940619677854269274689475585506675881198879027",
		"7853200120776062878684798364095072458815029376092732009249414926327459813530",
		"6542985608222806190361240322586112750744169038454362455181422643027100751666",
		"18821383157269793795438455681495246036402687001665670618754263018637548127333",
		"6183221330272524995739186171720101788151706631170188140075976616310159254464",
		"20400040500897583745843009878988256314335038853985262692600694741116813247201",
		"12748163991115452309045839028154629052133952896122405799815156419278439301912",
		"18604317144381847857886385684060986177838410221561136253933256952257712543953",
	}
	for n := 1; n <= 8; n++ {
		in := make([]*big.Int, n)
		for i := range in {
			in[i] = big.NewInt(int64(i + 1))
		}
		got, err := Poseidon(in)
		if err != nil || got.String() != want[n-1] {
			t.Errorf("Poseidon(1..%d) = %v, %v; want %s", n, got, err, want[n-1])
		}
	}

	// Inputs are reduced modulo r, negative ones included.
	r := ScalarFieldOrder()
	h1, _ := Poseidon([]*big.Int{big.NewInt(1)})
	hr, _ := Poseidon([]*big.Int{new(big.Int).Add(r, big.NewInt(1))})
	hn, _ := Poseidon([]*big.Int{new(big.Int).Sub(big.NewInt(1), r)})
	if hr.Cmp(h1) != 0 || hn.Cmp(h1) != 0 {
		t.Errorf("Poseidon does not reduce its inputs: %v %v %v", h1, hr, hn)
	}

	for _, n := range []int{0, 9} {
		if _, err := Poseidon(make([]*big.Int, n)); err != ErrPoseidonArity {
			t.Errorf("Poseidon with %d inputs: err = %v", n, err)
		}
	}
}

// G1 and G2 generators, as in P5's Pairing.hs (g1, g2) and pairing.repl.
var (
	g1Gen = G1Point{big.NewInt(1), big.NewInt(2)}
	g2Gen = G2Point{
		X: [2]*big.Int{
			mustBig("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
			mustBig("11559732032986387107991004021392285783925812861821192530917403151452391805634")},
		Y: [2]*big.Int{
			mustBig("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
			mustBig("4082367875863433681332203403145435568316851327593401208105741076214120093531")},
	}
	// From pairing.repl's pairing-attack: a point on the twist outside the
	// order-r subgroup, and its negation.
	g2Bad = G2Point{
		X: [2]*big.Int{
			mustBig("714174525384625698196324342448018602778427756125896575268723443112276201656"),
			mustBig("15184454992471448023977227688880154059606923890779081526591309460240767144611")},
		Y: [2]*big.Int{
			mustBig("4059636884310975796046572204287767311531424242221074206827231494834828442687"),
			mustBig("20034115350295064288606382530926850307740152462130073457110526227453661700402")},
	}
	g2BadNeg = G2Point{
		X: g2Bad.X,
		Y: [2]*big.Int{
			mustBig("17828605987528299426199833540969507777164886915076749455861806399810397765896"),
			mustBig("1854127521544210933640023214330424780956158695167750205578511667191564508181")},
	}
)

func mustBig(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

func g1Eq(a, b G1Point) bool { return a.X.Cmp(b.X) == 0 && a.Y.Cmp(b.Y) == 0 }
func g2Eq(a, b G2Point) bool {
	return a.X[0].Cmp(b.X[0]) == 0 && a.X[1].Cmp(b.X[1]) == 0 &&
		a.Y[0].Cmp(b.Y[0]) == 0 && a.Y[1].Cmp(b.Y[1]) == 0
}

func TestG1(t *testing.T) {
	// 2·G1, as Ethereum's ecAdd(G, G) precompile test vector gives it.
	two := G1Point{
		bigInt(t, "0x030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3"),
		bigInt(t, "0x15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4"),
	}
	q := BaseFieldOrder()
	r := ScalarFieldOrder()
	inf := G1Point{new(big.Int), new(big.Int)}
	neg := G1Point{big.NewInt(1), new(big.Int).Sub(q, big.NewInt(2))}

	if s, err := G1Add(g1Gen, g1Gen); err != nil || !g1Eq(s, two) {
		t.Errorf("G+G = %v, %v", s, err)
	}
	if s, err := G1ScalarMul(g1Gen, big.NewInt(2)); err != nil || !g1Eq(s, two) {
		t.Errorf("2G = %v, %v", s, err)
	}
	// Coordinates are reduced modulo q: (1, -2) is -G, (1+q, 2) is G.
	if s, err := G1Add(g1Gen, G1Point{big.NewInt(1), big.NewInt(-2)}); err != nil || !g1Eq(s, inf) {
		t.Errorf("G+(1,-2) = %v, %v", s, err)
	}
	if s, err := G1Add(G1Point{new(big.Int).Add(q, big.NewInt(1)), big.NewInt(2)}, inf); err != nil || !g1Eq(s, g1Gen) {
		t.Errorf("(1+q,2)+O = %v, %v", s, err)
	}
	for _, c := range []struct {
		k    *big.Int
		want G1Point
	}{
		{big.NewInt(0), inf},
		{r, inf},
		{big.NewInt(-1), neg},
		{new(big.Int).Add(r, big.NewInt(2)), two},
	} {
		if s, err := G1ScalarMul(g1Gen, c.k); err != nil || !g1Eq(s, c.want) {
			t.Errorf("[%v]G = %v, %v; want %v", c.k, s, err, c.want)
		}
	}
	if s, err := G1ScalarMul(inf, big.NewInt(5)); err != nil || !g1Eq(s, inf) {
		t.Errorf("[5]O = %v, %v", s, err)
	}
	bad := G1Point{big.NewInt(1), big.NewInt(3)}
	if _, err := G1Add(g1Gen, bad); err != ErrNotOnCurve {
		t.Errorf("G1Add off curve: %v", err)
	}
	if _, err := G1ScalarMul(bad, big.NewInt(1)); err != ErrNotOnCurve {
		t.Errorf("G1ScalarMul off curve: %v", err)
	}
}

func TestG2(t *testing.T) {
	r := ScalarFieldOrder()
	inf := G2Point{X: [2]*big.Int{new(big.Int), new(big.Int)}, Y: [2]*big.Int{new(big.Int), new(big.Int)}}
	two, err := G2Add(g2Gen, g2Gen)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := G2ScalarMul(g2Gen, big.NewInt(2)); err != nil || !g2Eq(s, two) {
		t.Errorf("2·G2 = %v, %v; want %v", s, err, two)
	}
	// Cross-check the double-and-add against gnark's own multiplication
	// (valid in the subgroup) for a large scalar.
	k := bigInt(t, "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef")
	got, _ := G2ScalarMul(g2Gen, k)
	ga := g2Gen.affine()
	var want = ga
	want.ScalarMultiplication(&ga, new(big.Int).Mod(k, r))
	if !g2Eq(got, g2Point(&want)) {
		t.Errorf("[k]G2 = %v, gnark gives %v", got, g2Point(&want))
	}
	if s, err := G2ScalarMul(g2Gen, r); err != nil || !g2Eq(s, inf) {
		t.Errorf("[r]G2 = %v, %v", s, err)
	}
	if s, err := G2Add(g2Bad, g2BadNeg); err != nil || !g2Eq(s, inf) {
		t.Errorf("bad + -bad = %v, %v", s, err)
	}
	// Outside the subgroup the scalar is still reduced modulo r first, so
	// [r+1]P is P although [r]P is not the identity.
	if s, err := G2ScalarMul(g2Bad, new(big.Int).Add(r, big.NewInt(1))); err != nil || !g2Eq(s, g2Bad) {
		t.Errorf("[r+1]bad = %v, %v", s, err)
	}
	if ga := g2Bad.affine(); ga.IsInSubGroup() {
		t.Errorf("pairing.repl's bad point is in the subgroup")
	}
	off := G2Point{X: g2Gen.X, Y: [2]*big.Int{big.NewInt(1), big.NewInt(2)}}
	if _, err := G2Add(g2Gen, off); err != ErrNotOnCurve {
		t.Errorf("G2Add off curve: %v", err)
	}
	if _, err := G2ScalarMul(off, big.NewInt(3)); err != ErrNotOnCurve {
		t.Errorf("G2ScalarMul off curve: %v", err)
	}
}

func TestPairingCheck(t *testing.T) {
	negG1 := G1Point{big.NewInt(1), big.NewInt(-2)}
	a, b := big.NewInt(12345), big.NewInt(67890)
	aG1, _ := G1ScalarMul(g1Gen, a)
	bG2, _ := G2ScalarMul(g2Gen, b)
	abG1, _ := G1ScalarMul(g1Gen, new(big.Int).Mul(a, b))
	negAbG1, _ := G1ScalarMul(abG1, big.NewInt(-1))
	inf1 := G1Point{new(big.Int), new(big.Int)}
	off1 := G1Point{big.NewInt(1), big.NewInt(3)}

	cases := []struct {
		name     string
		g1       []G1Point
		g2       []G2Point
		subgroup bool
		want     bool
		err      error
	}{
		{"empty", nil, nil, true, true, nil},
		{"e(G,H)", []G1Point{g1Gen}, []G2Point{g2Gen}, true, false, nil},
		{"e(G,H)e(-G,H)", []G1Point{g1Gen, negG1}, []G2Point{g2Gen, g2Gen}, true, true, nil},
		{"e(aG,bH)e(-abG,H)", []G1Point{aG1, negAbG1}, []G2Point{bG2, g2Gen}, true, true, nil},
		{"e(aG,bH)e(abG,H)", []G1Point{aG1, abG1}, []G2Point{bG2, g2Gen}, true, false, nil},
		{"infinity skipped", []G1Point{inf1}, []G2Point{g2Gen}, true, true, nil},
		// zip: the extra G1 point is validated but not paired.
		{"zip shorter", []G1Point{g1Gen, negG1, g1Gen}, []G2Point{g2Gen, g2Gen}, true, true, nil},
		{"unpaired point still checked", []G1Point{g1Gen, negG1, off1}, []G2Point{g2Gen, g2Gen}, true, false, ErrNotOnCurve},
		{"g1 off curve", []G1Point{off1}, []G2Point{g2Gen}, true, false, ErrNotOnCurve},
		// pairing.repl's pairing-attack: passes before Pact 5.4, fails after.
		{"attack pre-5.4", []G1Point{g1Gen, g1Gen}, []G2Point{g2Bad, g2BadNeg}, false, true, nil},
		{"attack 5.4", []G1Point{g1Gen, g1Gen}, []G2Point{g2Bad, g2BadNeg}, true, false, ErrNotOnCurve},
	}
	for _, c := range cases {
		got, err := PairingCheck(c.g1, c.g2, c.subgroup)
		if got != c.want || err != c.err {
			t.Errorf("%s: PairingCheck = %v, %v; want %v, %v", c.name, got, err, c.want, c.err)
		}
	}
}

func TestHyperlaneMessageID(t *testing.T) {
	// From P5 pact-tests/pact-tests/hyperlane.repl ("computes the correct
	// message id").
	dec := func(s string) []byte {
		b, err := DecodeBase64URL([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	m := &HyperlaneMessage{
		Version:           1,
		Nonce:             325,
		OriginDomain:      626,
		Sender:            dec("AAAAAAAAAAAAAAAAf6k4W-ECrD6sKXSD3WIz1is-FJY"),
		DestinationDomain: 1,
		Recipient:         dec("AAAAAAAAAADpgrOqkM0BOY-FQnNzkDXuYlsVcf50GRU"),
		Body:              dec(hyperlaneTokenMsg),
	}
	if got, want := HyperlaneMessageID(m), "9lxextceVw0b18kUdfwSze-3Iw7OE-Z5Kq9I8HTDKGE"; got != want {
		t.Errorf("HyperlaneMessageID = %s, want %s", got, want)
	}
}

// hyperlaneTokenMsg is the token message of hyperlane.repl ("decodes the
// correct TokenMessage"): amount 123 (0.000000000000000123 tokens), chain
// 4, recipient a keys-all keyset as JSON.
const hyperlaneTokenMsg = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAHsABHsicHJlZCI6ICJrZXlzLWFsbCIsICJrZXlzIjpbImRhMWEzMzliZDgyZDJjMmU5MTgwNjI2YTAwZGMwNDMyNzVkZWIzYWJhYmIyN2I1NzM4YWJmNmI5ZGNlZThkYjYiXX0"

func TestTokenMessage(t *testing.T) {
	raw, err := DecodeBase64URL([]byte(hyperlaneTokenMsg))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := DecodeTokenMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	wantRecipient := `{"pred": "keys-all", "keys":["da1a339bd82d2c2e9180626a00dc043275deb3ababb27b5738abf6b9dcee8db6"]}`
	if tm.Amount.Int64() != 123 || tm.ChainID != 4 || string(tm.Recipient) != wantRecipient {
		t.Errorf("DecodeTokenMessage = %v %d %q", tm.Amount, tm.ChainID, tm.Recipient)
	}
	if enc := EncodeTokenMessage(&tm); !bytes.Equal(enc, raw) {
		t.Errorf("EncodeTokenMessage does not round-trip: %x", enc)
	}

	// Amounts wrap modulo 2^256; a header alone is a valid message.
	wrapped := EncodeTokenMessage(&TokenMessage{Amount: big.NewInt(-1), ChainID: 0xffff})
	if want := bytes.Repeat([]byte{0xff}, 34); !bytes.Equal(wrapped, want) {
		t.Errorf("EncodeTokenMessage(-1) = %x", wrapped)
	}
	if tm, err := DecodeTokenMessage(wrapped); err != nil || tm.ChainID != 0xffff || len(tm.Recipient) != 0 {
		t.Errorf("DecodeTokenMessage(header only) = %v, %v", tm, err)
	}
	if _, err := DecodeTokenMessage(raw[:33]); err != ErrTokenMessageShort {
		t.Errorf("DecodeTokenMessage(33 bytes) err = %v", err)
	}
}
