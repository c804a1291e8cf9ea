package value

import (
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/crypto"
)

// Vectors are from P5 pact-tests/pact-tests/{hash,poseidon-hash,pairing,
// hyperlane}.repl as noted on each; error texts are P5's (Errors.hs).

func cryptoInt(t testing.TB, s string) Integer {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad integer %q", s)
	}
	return NewIntBig(v)
}

func cryptoB64(s string) String { return String(crypto.EncodeBase64URL([]byte(s))) }

// checkCrypto compares a native's result with want (by Equal), or its
// error text with wantErr when that is set.
func checkCrypto(t *testing.T, what string, got Value, err error, want Value, wantErr string) {
	t.Helper()
	switch {
	case wantErr != "":
		if err == nil || err.Error() != wantErr {
			t.Errorf("%s: got %v, %v; want error %q", what, got, err, wantErr)
		}
	case err != nil:
		t.Errorf("%s: error %v", what, err)
	case !Equal(got, want):
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestCryptoKeccak256(t *testing.T) {
	// hash.repl: (hash-keccak256 [(base64-encode s)]), shown there in hex.
	for _, c := range []struct{ in, hex string }{
		{"", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
		{"abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
		{"The quick brown fox jumps over the lazy dog", "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"},
	} {
		raw, _ := hex.DecodeString(c.hex)
		want := String(crypto.EncodeBase64URL(raw))
		got, err := HashKeccak256(List{cryptoB64(c.in)})
		checkCrypto(t, "hash-keccak256 "+c.in, got, err, want, "")
	}
	abc, _ := HashKeccak256(List{cryptoB64("abc")})
	const typeErr = "Type error: failed to call native function hash-keccak256 with argument(s) of type(s): "
	cases := []struct {
		name    string
		arg     Value
		wantErr string
	}{
		{"chunks", List{String("YQ"), String("YmM")}, ""},    // "a" ++ "bc"
		{"padded", List{String("YQ=="), String("YmM=")}, ""}, // padding is optional
		{"not a list", String("YWJj"), typeErr + "string"},
		{"not strings", List{String("YWJj"), NewInt(1)}, typeErr + "integer"},
		{"bad padding", List{String("YQ=")}, "Base64URL decode failed: Base64-encoded bytestring has invalid padding"},
		{"bad size", List{String("YWJj"), String("Y")}, "Base64URL decode failed: Base64-encoded bytestring has invalid size"},
		{"bad char", List{String("a!")}, "Base64URL decode failed: invalid character at offset: 1"},
		{"standard alphabet", List{String("+/8")}, "Base64URL decode failed: invalid character at offset: 0"},
		{"non-canonical", List{String("YR")}, "Base64URL decode failed: non-canonical encoding detected at offset: 1"},
	}
	for _, c := range cases {
		got, err := HashKeccak256(c.arg)
		checkCrypto(t, "hash-keccak256 "+c.name, got, err, abc, c.wantErr)
	}
}

func TestCryptoPoseidon(t *testing.T) {
	// poseidon-hash.repl: (hash-poseidon 1 ... n) for n = 1..8, and the same
	// through poseidon-hash-hack-a-chain.
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
		args := make([]Value, n)
		for i := range args {
			args[i] = NewInt(int64(i + 1))
		}
		got, err := HashPoseidon(args...)
		checkCrypto(t, "hash-poseidon", got, err, cryptoInt(t, want[n-1]), "")
		got, err = PoseidonHashHackAChain(args...)
		checkCrypto(t, "poseidon-hash-hack-a-chain", got, err, cryptoInt(t, want[n-1]), "")
	}
	nine := make([]Value, 9)
	for i := range nine {
		nine[i] = NewInt(1)
	}
	const typeErr = "Type error: failed to call native function hash-poseidon with argument(s) of type(s): list"
	for _, c := range []struct {
		name string
		args []Value
	}{
		{"no inputs", nil},
		{"nine inputs", nine},
		{"decimal", []Value{NewInt(1), NewDecimal(NewInt(15), 1)}},
		{"string", []Value{String("1")}},
	} {
		got, err := HashPoseidon(c.args...)
		checkCrypto(t, "hash-poseidon "+c.name, got, err, nil, typeErr)
	}
	_, err := PoseidonHashHackAChain()
	checkCrypto(t, "poseidon-hash-hack-a-chain no inputs", nil, err, nil,
		"Type error: failed to call native function poseidon-hash-hack-a-chain with argument(s) of type(s): list")
}

func g1Obj(x, y Value) *Object { return NewObject(Field{"x", x}, Field{"y", y}) }

func g2Obj(t testing.TB, x0, x1, y0, y1 string) *Object {
	return NewObject(
		Field{"x", List{cryptoInt(t, x0), cryptoInt(t, x1)}},
		Field{"y", List{cryptoInt(t, y0), cryptoInt(t, y1)}})
}

// The G2 generator (pairing.repl's g2).
func g2Generator(t testing.TB) *Object {
	return g2Obj(t,
		"10857046999023057135944570762232829481370756359578518086990519993285655852781",
		"11559732032986387107991004021392285783925812861821192530917403151452391805634",
		"8495653923123431417604973247489272438418190587263600148770280649306958101930",
		"4082367875863433681332203403145435568316851327593401208105741076214120093531")
}

func TestCryptoPointAddScalarMult(t *testing.T) {
	gen := g1Obj(NewInt(1), NewInt(2))
	// 2·G1 (Ethereum's ecAdd(G, G) test vector).
	two := g1Obj(
		cryptoInt(t, "1368015179489954701390400359078579693043519447331113978918064868415326638035"),
		cryptoInt(t, "9918110051302171585080402603319702774565515993150576347155970296011118125764"))
	inf1 := g1Obj(NewInt(0), NewInt(0))
	inf2 := NewObject(Field{"x", List{NewInt(0)}}, Field{"y", List{NewInt(0)}})
	g2 := g2Generator(t)
	g2Two, err := PointAdd(String("g2"), g2, g2)
	if err != nil {
		t.Fatal(err)
	}
	offCurve := g1Obj(NewInt(1), NewInt(3))
	const notOnCurve = "Point lies outside of elliptic curve"
	addErr := "Type error: failed to call native function point-add with argument(s) of type(s): "
	mulErr := "Type error: failed to call native function scalar-mult with argument(s) of type(s): "

	adds := []struct {
		name      string
		typ, p, q Value
		want      Value
		wantErr   string
	}{
		{"g1 G+G", String("g1"), gen, gen, two, ""},
		{"type is case-insensitive", String("G1"), gen, gen, two, ""},
		{"g1 G+(-G)", String("g1"), gen, g1Obj(NewInt(1), NewInt(-2)), inf1, ""},
		{"g1 O+G", String("g1"), inf1, gen, gen, ""},
		{"extra fields ignored", String("g1"), gen.Set("z", String("?")), inf1, gen, ""},
		{"g2 O+O", String("g2"), inf2, inf2, inf2, ""},
		{"g2 G+O", String("g2"), g2, inf2, g2, ""},
		{"g1 off curve", String("g1"), gen, offCurve, nil, notOnCurve},
		{"g2 off curve", String("g2"), g2, g2Obj(t, "1", "2", "3", "4"), nil, notOnCurve},
		{"unknown group", String("g3"), gen, gen, nil, addErr + "string, object, object"},
		{"g1 missing y", String("g1"), gen, NewObject(Field{"x", NewInt(1)}), nil, addErr + "string, object, object"},
		{"g1 decimal coordinate", String("g1"), gen, g1Obj(NewInt(1), NewDecimal(NewInt(2), 0)), nil, addErr + "string, object, object"},
		{"g2 point as g1", String("g1"), g2, g2, nil, addErr + "string, object, object"},
		{"g1 point as g2", String("g2"), gen, gen, nil, addErr + "string, object, object"},
		{"not an object", String("g1"), gen, List{NewInt(1), NewInt(2)}, nil, addErr + "string, object, list"},
		{"type not a string", NewInt(1), gen, gen, nil, addErr + "integer, object, object"},
	}
	for _, c := range adds {
		got, err := PointAdd(c.typ, c.p, c.q)
		checkCrypto(t, "point-add "+c.name, got, err, c.want, c.wantErr)
	}

	r := cryptoInt(t, crypto.ScalarFieldOrder().String())
	muls := []struct {
		name    string
		typ, p  Value
		k       Value
		want    Value
		wantErr string
	}{
		{"g1 2G", String("g1"), gen, NewInt(2), two, ""},
		{"g1 (r+2)G", String("g1"), gen, r.Add(NewInt(2)), two, ""},
		{"g1 0G", String("g1"), gen, NewInt(0), inf1, ""},
		{"g1 -G", String("g1"), gen, NewInt(-1), g1Obj(NewInt(1),
			cryptoInt(t, "21888242871839275222246405745257275088696311157297823662689037894645226208581")), ""},
		{"g2 2G", String("g2"), g2, NewInt(2), g2Two, ""},
		{"g2 rG", String("G2"), g2, r, inf2, ""},
		{"g1 off curve", String("g1"), offCurve, NewInt(2), nil, notOnCurve},
		{"decimal scalar", String("g1"), gen, NewDecimal(NewInt(2), 0), nil, mulErr + "string, object, decimal"},
		{"unknown group", String("g12"), gen, NewInt(2), nil, mulErr + "string, object, integer"},
	}
	for _, c := range muls {
		got, err := ScalarMult(c.typ, c.p, c.k)
		checkCrypto(t, "scalar-mult "+c.name, got, err, c.want, c.wantErr)
	}
}

func TestCryptoG2Representation(t *testing.T) {
	// P5 reads G2 coordinates as polynomials in u and prints them without
	// trailing zero coefficients.
	o := NewObject(Field{"x", List{NewInt(1), NewInt(2), NewInt(3), NewInt(4), NewInt(5)}},
		Field{"y", List{}})
	p, ok := g2Arg(o)
	if !ok || p.X[0].Int64() != 1-3+5 || p.X[1].Int64() != 2-4 || p.Y[0].Sign() != 0 || p.Y[1].Sign() != 0 {
		t.Errorf("g2Arg folds to %v", p)
	}
	v := g2Value(crypto.G2Point{X: [2]*big.Int{big.NewInt(5), big.NewInt(0)}, Y: [2]*big.Int{big.NewInt(0), big.NewInt(7)}})
	want := NewObject(Field{"x", List{NewInt(5)}}, Field{"y", List{NewInt(0), NewInt(7)}})
	if !Equal(v, want) {
		t.Errorf("g2Value = %v, want %v", v, want)
	}
}

func TestCryptoPairingCheck(t *testing.T) {
	// pairing.repl's verify-proof on its test proof: a Groth16
	// verification through point-add, scalar-mult and pairing-check.
	p := func(x, y string) *Object { return g1Obj(cryptoInt(t, x), cryptoInt(t, y)) }
	ic := []*Object{
		p("703628372913608924678229163876049246019207425954662225921071872483627421722", "12211995813319149655177018938770234811518560618061207904053494967754185713570"),
		p("245257359888022973124621370122921842349425470670527924595405093609495308747", "16424211039905278739428973076501641419102983596574674938829868639077765818142"),
		p("11110164462478062380497336442107420783806541677398299686522715666379498138472", "11772875621558518653532220728777759671658134704623077088185806874340215959359"),
		p("18074393405015025057791386123633410704735277649988577562824116025859630543119", "6512362579817099053449579131846840340322546772440905776424666285439665971742"),
		p("16324035526312367325456640773935782752062271159753322602146362004262088969135", "1959877669644004327327941905732419844609901799055849407390385762919820073782"),
		p("7958732978061398276873406529212832852529841068044035448997300713023105585033", "17143584956740843297694279539007817220119917091654840292522900244927912727369"),
		p("19790616331302654635046558077934057923437716290995001520546062733967158884432", "3876239317603061711287361903875372717184929107501147494633374979429019396018"),
		p("14590717951490734152256639590507997933809755442616725401381713035954026634761", "3225155507246149008951243692824143870155533409045696678069139586430835695226"),
		p("8650680088861200059927247719422818384661114515347998151694550511594524540419", "9638849577460518420520485529873913372767621068985215869067476349645606505077"),
		p("17562317824746836410714834945198951796768727084595092618069846988441315688042", "19452027031432595136507137552742780122072574021124781097949079775870562190348"),
		p("13182231104070542193327121010898638946743037034726286337778578885258172200370", "757187892995880849330492963674577612574015215504544964795700288326850257327"),
		p("14409932519884296032513716882778643894210345146972579810764887578771580357222", "814882272533738805340475214361663264998713952212684412413716253117631329790"),
		p("12509202143372575765947197406153125630356821791569394199509048702081149394252", "7737627039987972603153686057063377754848525136672116479087023797531609007397"),
		p("8407744049840718757455802166031970590203865445336729285031156887247294225651", "188049909694651097938181392474312752814356026969638293041076738773396096245"),
		p("334110586971536499255771782557320020258112908015957001506636732710862874984", "16580656581000952485971124280378233725304032835996723142898957560222784358519"),
		p("7727226277603419079704813924510379012883865378360151539308685989224075286070", "12912566309035429310049884735227185094569540217854933912859497659097301533657"),
		p("7681998061757907807252614087798324369243677279399770153101699113400315047554", "17481742211680301513436042099326808806059638013948490790089189392596297352637"),
		p("12569417065062182916398142101141299032330235062582799620914438471333638326044", "17523163572024314338870129158401181066960544407476643264775649919375538750903"),
		p("20366720006081427400904331708710783224493502999618856932501475384256136971442", "12984908039677137046692512896720328898650869058550411984382690230037651160819"),
		p("8428544296631560843765157901673529267885840366893744558046063361202851291828", "16289478447662297604149997612134385555472387391722487532370257859531844209269"),
	}
	alfa1 := p("20491192805390485299153009773594534940189261866228447918068658471970481763042", "9383485363053290200918347156157836566562967994039712273449902621266178545958")
	beta2 := g2Obj(t,
		"6375614351688725206403948262868962793625744043794305715222011528459656738731",
		"4252822878758300859123897981450591353533073413197771768651442665752259397132",
		"10505242626370262277552901082094356697409835680220590971873171140371331206856",
		"21847035105528745403288232691147584728191162732299865338377159692350059136679")
	gamma2 := g2Generator(t)
	delta2 := g2Obj(t,
		"16809031008450260338666218659281275370828342486329981864349494337906939571887",
		"14264224196899353800543367999525075765943744025449601386425105981609273614701",
		"11890256881228627469373664690032300678627026600164400771388911741873652827176",
		"19575774426779481952987745556743272872528397589822551825491193352706249147828")
	proofA := p("17899149025429256540670503450603840524526341770363252849540840688855727610005", "6794888886586012478899094699714874747255503821264355877996121220781692052981")
	proofB := g2Obj(t,
		"4555160965165375385578562333880156835913586562443164694386914449127412126755",
		"16845220796436439159658389520454136502557317448502144055381480626643346396453",
		"15740922883530394503972296892303076718862447518810507376564218784428077030254",
		"9794083499477745551885635852864140214811154513402172713835626845455029169909")
	proofC := p("2188339130061078784977610313576641337709587353412678866175084864819379744795", "7363399164077520072321162032202323356331016580445157674442815097597932017402")
	inputs := []string{"293440811465879871736579011234159205259", "82735329187654304797954025540247337640",
		"1125899906842623", "1", "1", "1", "1", "0", "1", "0", "1", "0", "1", "0", "0", "0", "0", "0", "1"}

	// vk_x = ic[0] + Σ inputs[i]·ic[i+1]
	var vkx Value = g1Obj(NewInt(0), NewInt(0))
	for i, in := range inputs {
		term, err := ScalarMult(String("g1"), ic[i+1], cryptoInt(t, in))
		if err != nil {
			t.Fatal(err)
		}
		if vkx, err = PointAdd(String("g1"), vkx, term); err != nil {
			t.Fatal(err)
		}
	}
	vkx, err := PointAdd(String("g1"), vkx, ic[0])
	if err != nil {
		t.Fatal(err)
	}
	y, _ := proofA.Get("y")
	negA := proofA.Set("y", y.(Integer).Neg())
	g1s := List{negA, alfa1, vkx, proofC}
	g2s := List{proofB, beta2, gamma2, delta2}
	got, err := PairingCheck(g1s, g2s)
	checkCrypto(t, "verify-proof", got, err, True, "")
	// Any change to the proof must make it fail.
	got, err = PairingCheck(List{proofA, alfa1, vkx, proofC}, g2s)
	checkCrypto(t, "verify-proof with A not negated", got, err, False, "")

	// pairing.repl's pairing-attack: a G2 point outside the prime-order
	// subgroup passes before Pact 5.4 and is rejected after.
	goodG1 := g1Obj(NewInt(1), NewInt(2))
	badG2 := g2Obj(t,
		"714174525384625698196324342448018602778427756125896575268723443112276201656",
		"15184454992471448023977227688880154059606923890779081526591309460240767144611",
		"4059636884310975796046572204287767311531424242221074206827231494834828442687",
		"20034115350295064288606382530926850307740152462130073457110526227453661700402")
	negBadG2 := g2Obj(t,
		"714174525384625698196324342448018602778427756125896575268723443112276201656",
		"15184454992471448023977227688880154059606923890779081526591309460240767144611",
		"17828605987528299426199833540969507777164886915076749455861806399810397765896",
		"1854127521544210933640023214330424780956158695167750205578511667191564508181")
	got, err = PairingCheckPre54(List{goodG1, goodG1}, List{badG2, negBadG2})
	checkCrypto(t, "pairing-attack pre-5.4", got, err, True, "")
	got, err = PairingCheck(List{goodG1, goodG1}, List{badG2, negBadG2})
	checkCrypto(t, "pairing-attack 5.4", got, err, nil, "Point lies outside of elliptic curve")

	typeErr := "Type error: failed to call native function pairing-check with argument(s) of type(s): "
	for _, c := range []struct {
		name     string
		g1s, g2s Value
		want     Value
		wantErr  string
	}{
		{"empty", List{}, List{}, True, ""},
		{"unequal lengths pair up to the shorter", List{goodG1, goodG1}, List{}, True, ""},
		{"g1 off curve", List{g1Obj(NewInt(1), NewInt(3))}, List{gamma2}, nil, "Point lies outside of elliptic curve"},
		{"g2 element not an object", List{goodG1}, List{NewInt(1)}, nil, typeErr + "list, list"},
		{"g1 element malformed", List{NewObject(Field{"x", NewInt(1)})}, List{gamma2}, nil, typeErr + "list, list"},
		{"not lists", goodG1, List{gamma2}, nil, typeErr + "object, list"},
	} {
		got, err := PairingCheck(c.g1s, c.g2s)
		checkCrypto(t, "pairing-check "+c.name, got, err, c.want, c.wantErr)
	}
}

// hyperlane.repl's token message: amount 123 wei, chain 4, recipient a
// keys-all keyset as JSON.
const hyperlaneTokenMessage = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAHsABHsicHJlZCI6ICJrZXlzLWFsbCIsICJrZXlzIjpbImRhMWEzMzliZDgyZDJjMmU5MTgwNjI2YTAwZGMwNDMyNzVkZWIzYWJhYmIyN2I1NzM4YWJmNmI5ZGNlZThkYjYiXX0"

const hyperlaneTestKey = "da1a339bd82d2c2e9180626a00dc043275deb3ababb27b5738abf6b9dcee8db6"

func TestCryptoHyperlaneMessageID(t *testing.T) {
	// hyperlane.repl: "computes the correct message id".
	msg := NewObject(
		Field{"destinationDomain", NewInt(1)},
		Field{"nonce", NewInt(325)},
		Field{"originDomain", NewInt(626)},
		Field{"recipient", String("AAAAAAAAAADpgrOqkM0BOY-FQnNzkDXuYlsVcf50GRU")},
		Field{"sender", String("AAAAAAAAAAAAAAAAf6k4W-ECrD6sKXSD3WIz1is-FJY")},
		Field{"messageBody", String(hyperlaneTokenMessage)},
		Field{"version", NewInt(1)},
	)
	got, err := HyperlaneMessageID(msg)
	checkCrypto(t, "hyperlane-message-id", got, err, String("9lxextceVw0b18kUdfwSze-3Iw7OE-Z5Kq9I8HTDKGE"), "")

	const pre = "Hyperlane native error: "
	for _, c := range []struct {
		name    string
		msg     *Object
		wantErr string
	}{
		{"version too big", msg.Set("version", NewInt(256)), pre + "Object key version was out of bounds"},
		{"negative nonce", msg.Set("nonce", NewInt(-1)), pre + "Object key nonce was out of bounds"},
		{"domain too big", msg.Set("originDomain", NewInt(1<<32)), pre + "Object key originDomain was out of bounds"},
		{"version a string", msg.Set("version", String("1")), pre + "Failed to find key in object: version"},
		{"no destination", msg.Remove("destinationDomain"), pre + "Failed to find key in object: destinationDomain"},
		{"short sender", msg.Set("sender", cryptoB64(strings.Repeat("a", 20))), pre + "Incorrect binary data size sender. Expected: 32, but got 20"},
		{"bad sender", msg.Set("sender", String("!!")), pre + "Invalid base64 encoding on field sender"},
		{"bad recipient", msg.Set("recipient", String("YQ=")), pre + "Invalid base64 encoding on field recipient"},
		{"no body", msg.Remove("messageBody"), pre + "Failed to find key in object: messageBody"},
	} {
		got, err := HyperlaneMessageID(c.msg)
		checkCrypto(t, "hyperlane-message-id "+c.name, got, err, nil, c.wantErr)
	}
	_, err = HyperlaneMessageID(String("x"))
	checkCrypto(t, "hyperlane-message-id of a string", nil, err, nil,
		"Type error: failed to call native function hyperlane-message-id with argument(s) of type(s): string")
}

func TestCryptoHyperlaneDecodeTokenMessage(t *testing.T) {
	// hyperlane.repl: "decodes the correct TokenMessage".
	want := NewObject(
		Field{"amount", NewDecimal(NewInt(123), 18)},
		Field{"chainId", String("4")},
		Field{"recipient", NewKeySet([]string{hyperlaneTestKey}, KeysAll)},
	)
	got, err := HyperlaneDecodeTokenMessage(String(hyperlaneTokenMessage))
	checkCrypto(t, "decode", got, err, want, "")

	header := func(amount, chain string) string {
		b, _ := hex.DecodeString(strings.Repeat("0", 64-len(amount)) + amount + chain)
		return string(b)
	}
	// 10^19 wei is 10 tokens.
	ten := cryptoB64(header("8ac7230489e80000", "0001") + `["k1"]`)
	got, err = HyperlaneDecodeTokenMessage(ten)
	checkCrypto(t, "decode key list", got, err, NewObject(
		Field{"amount", NewDecimal(NewInt(10), 0)},
		Field{"chainId", String("1")},
		Field{"recipient", NewKeySet([]string{"k1"}, KeysAll)},
	), "")
	user := cryptoB64(header("01", "ffff") + ` {"fun": "ns.m.f", "args": [1, "a"]} `)
	got, err = HyperlaneDecodeTokenMessage(user)
	checkCrypto(t, "decode user guard", got, err, NewObject(
		Field{"amount", NewDecimal(NewInt(1), 18)},
		Field{"chainId", String("65535")},
		Field{"recipient", &UserGuard{Fun: QualifiedName{Module: ModuleName{Namespace: "ns", Name: "m"}, Name: "f"},
			Args: List{NewDecimal(NewInt(1), 0), String("a")}}},
	), "")

	const pre = "Hyperlane decode error: "
	for _, c := range []struct {
		name, in, wantErr string
	}{
		// hyperlane.repl: a principal is not a guard.
		{"principal recipient", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAewAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEJrOjQ2MmU5N2EwOTk5ODdmNTVmNmEyYjUyZTdiZmQ1MmEzNmI0YjViNDcwZmVkMDgxNmEzZDliMjZmOTQ1MGJhNjkAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
			pre + "Could not parse recipient into a guard"},
		{"object recipient", string(cryptoB64(header("01", "0001") + `{"a": 1}`)), pre + "Could not parse recipient into a guard"},
		{"empty recipient", string(cryptoB64(header("01", "0001"))), pre + "Could not parse recipient into a guard"},
		{"bad base64", "YQ=", pre + "Failed to base64-decode token message"},
		{"short", string(cryptoB64(strings.Repeat("\x00", 33))), pre + "Decoding error: binary decoding failed"},
	} {
		got, err := HyperlaneDecodeTokenMessage(String(c.in))
		checkCrypto(t, "decode "+c.name, got, err, nil, c.wantErr)
	}
	_, err = HyperlaneDecodeTokenMessage(NewInt(1))
	checkCrypto(t, "decode integer", nil, err, nil,
		"Type error: failed to call native function hyperlane-decode-token-message with argument(s) of type(s): integer")
}

func TestCryptoHyperlaneEncodeTokenMessage(t *testing.T) {
	keyset := `{"pred": "keys-all", "keys":["` + hyperlaneTestKey + `"]}`
	msg := NewObject(
		Field{"amount", NewDecimal(NewInt(5990), 1)},
		Field{"chainId", String("1")},
		Field{"recipient", cryptoB64(keyset)},
	)
	// hyperlane.repl encodes this object: the amount is not scaled, so
	// 599.0 is 599 (0x257).
	enc := func(amount, chain string) Value {
		b, _ := hex.DecodeString(strings.Repeat("0", 64-len(amount)) + amount + chain)
		return cryptoB64(string(b) + keyset)
	}
	got, err := HyperlaneEncodeTokenMessage(msg)
	checkCrypto(t, "encode", got, err, enc("257", "0001"), "")
	// Round trip through the decoder.
	back, err := HyperlaneDecodeTokenMessage(got)
	checkCrypto(t, "decode of encode", back, err, NewObject(
		Field{"amount", NewDecimal(NewInt(599), 18)},
		Field{"chainId", String("1")},
		Field{"recipient", NewKeySet([]string{hyperlaneTestKey}, KeysAll)},
	), "")

	const pre = "Hyperlane native error: "
	for _, c := range []struct {
		name    string
		msg     *Object
		want    Value
		wantErr string
	}{
		{"half to even down", msg.Set("amount", NewDecimal(NewInt(25), 1)), enc("2", "0001"), ""},
		{"half to even up", msg.Set("amount", NewDecimal(NewInt(35), 1)), enc("4", "0001"), ""},
		{"negative wraps", msg.Set("amount", NewDecimal(NewInt(-10), 1)), enc(strings.Repeat("f", 64), "0001"), ""},
		{"chain id digits prefix", msg.Set("chainId", String("12abc")), enc("257", "000c"), ""},
		{"chain id wraps", msg.Set("chainId", String("65537")), enc("257", "0001"), ""},
		{"chain id not a number", msg.Set("chainId", String("x1")), nil, pre + "Failed to decode chainId: input does not start with a digit"},
		{"chain id signed", msg.Set("chainId", String("-1")), nil, pre + "Failed to decode chainId: input does not start with a digit"},
		{"chain id integer", msg.Set("chainId", NewInt(1)), nil, pre + "Failed to find key in object: chainId"},
		{"integer amount", msg.Set("amount", NewInt(599)), nil, pre + "Failed to find key in object: amount"},
		{"no recipient", msg.Remove("recipient"), nil, pre + "Failed to find key in object: recipient"},
		{"bad recipient", msg.Set("recipient", String("a")), nil, pre + "Invalid base64 encoding on field recipient"},
	} {
		got, err := HyperlaneEncodeTokenMessage(c.msg)
		checkCrypto(t, "encode "+c.name, got, err, c.want, c.wantErr)
	}
}

func FuzzHyperlaneDecodeTokenMessage(f *testing.F) {
	f.Add(hyperlaneTokenMessage)
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFsia2V5Il0")
	f.Add("")
	f.Add("YQ=")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := HyperlaneDecodeTokenMessage(String(s))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%q: untyped error %v", s, err)
			}
			return
		}
		o, ok := v.(*Object)
		if !ok || o.Len() != 3 {
			t.Fatalf("%q decodes to %v", s, v)
		}
		if r, _ := o.Get("recipient"); r.Kind() != KindGuard {
			t.Fatalf("%q: recipient %v is not a guard", s, r)
		}
	})
}

func FuzzHashKeccak256(f *testing.F) {
	f.Add("YWJj", "")
	f.Add("YQ==", "YR")
	f.Add("\u00e9", "Y=Jj")
	f.Fuzz(func(t *testing.T, a, b string) {
		_, err := HashKeccak256(List{String(a), String(b)})
		if err != nil && !strings.HasPrefix(err.Error(), "Base64URL decode failed: ") {
			t.Fatalf("%q %q: %v", a, b, err)
		}
	})
}
