package txexec_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/txexec"
)

// How the node charges, checked on code that loads no module (whose figures do not move with
// module costs) and on relationships between the parts of a command's charge.

// gasCmd is a command running code, paid by sender00 with a GAS-scoped signature.
func gasCmd(code string, limit uint64) devtx.Cmd {
	return devtx.Cmd{Code: code, GasLimit: limit, Signers: []*api.KeyPair{devtx.Key("sender00")},
		Caps: [][]api.SigCapability{{{Name: "coin.GAS"}}}}
}

// Legacy local charges the payload alone: Pact 5's table figures, as chainweb's applyLocal.
func TestLocalChargesThePayloadAlone(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	for _, tc := range []struct {
		code string
		gas  int64
	}{
		{"(+ 1 2)", 1},                  // 100 + 30 mg
		{"(fold (+) 0 [1 2 3 4 5])", 2}, // 1,750 mg, chainweb's applyLocal test
		{"(fold + 0 [1 2 3 4 5])", 2},   // the same without parentheses
		{`(concat ["a" "b" "c"])`, 1},   // small: under a gas
	} {
		out, err := r.Local(st, block(2), parsed(t, gasCmd(tc.code, 1000).Build()), false)
		if err != nil {
			t.Fatal(err)
		}
		res := decode(t, out)
		if res.Result.Status != "success" {
			t.Fatalf("%s: %s", tc.code, out)
		}
		if res.Gas != tc.gas {
			t.Errorf("%s: gas %d, want %d", tc.code, res.Gas, tc.gas)
		}
	}
}

// A payload that runs out of gas (or fails in any other way) is charged its whole limit, with
// upstream's text, and its sender pays exactly limit × price.
func TestOutOfGasChargesTheLimit(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	before := mustDec(t, balance(t, r, st, "sender00"))
	c := gasCmd("(fold (+) 0 (enumerate 1 100000))", 300)
	c.GasPrice = "0.01"
	a, err := r.Apply(st, block(1), parsed(t, c.Build()))
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, a.Result)
	if !a.Failed || a.Gas != 300 || res.Gas != 300 {
		t.Fatalf("gas %d failed %v: %s", a.Gas, a.Failed, a.Result)
	}
	if msg := res.Result.Error.Message; !strings.HasPrefix(msg, `Gas limit "300"exceeded: `) {
		t.Errorf("message %q", msg)
	}
	want := before.Sub(mustDec(t, "3.0"))
	if got := mustDec(t, balance(t, r, st, "sender00")); !got.Equal(want) {
		t.Errorf("sender00 %s, want %s (300 gas at 0.01)", got, want)
	}
}

// The size charge: more than the gas limit and the command is invalid (chainweb's
// PurchaseGasTxTooBigForGasLimit, nothing bought); equal to the limit is allowed, and then the
// gas bought is already over it, so the payload fails charged the limit.
func TestSizeChargeAgainstTheLimit(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	probe := parsed(t, gasCmd("(+ 1 2)", 1).Build())
	size := txexec.InitialGas(probe)
	if size < 2 {
		t.Fatalf("size charge %d", size)
	}
	before := balance(t, r, st, "sender00")

	tooBig := parsed(t, gasCmd("(+ 1 2)", size-1).Build())
	_, err := r.Apply(st, block(1), tooBig)
	var be *txexec.BuyGasError
	if !errors.As(err, &be) || !be.TooBig {
		t.Fatalf("Apply: %v, want a purchase failure", err)
	}
	wantText := strconv.Quote(tooBig.RequestKey.String()) + " Failed to purchas gas: tx too big for gas limit"
	if be.Error() != wantText {
		t.Errorf("text %q, want %q", be.Error(), wantText)
	}
	if got := balance(t, r, st, "sender00"); got != before {
		t.Errorf("sender00 %s after a refused command, was %s", got, before)
	}
	// Preflight reports it as the result, charged the limit, with no metaData.
	out, err := r.Local(st, block(1), tooBig, true)
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, out)
	if res.Result.Status != "failure" || res.Result.Error.Message != wantText || res.Gas != int64(size-1) ||
		string(res.MetaData) != "null" {
		t.Errorf("preflight: %s", out)
	}

	equal := parsed(t, gasCmd("(+ 1 2)", txexec.InitialGas(probe)).Build())
	if txexec.InitialGas(equal) != size {
		t.Fatalf("the size charge moved with the limit's digits: %d", txexec.InitialGas(equal))
	}
	a, err := r.Apply(st, block(1), equal)
	if err != nil {
		t.Fatalf("a size charge equal to the limit: %v", err)
	}
	if !a.Failed || a.Gas != int64(size) {
		t.Errorf("gas %d failed %v: %s", a.Gas, a.Failed, a.Result)
	}
}

// A gas station's GAS_PAYER capability runs while gas is bought: on the command's meter with a
// limit of 1,500 gas, which its sender pays for; past it buying fails.
func TestBuyingGasIsCappedAndPaid(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	const burner = `
(module burner GOV
  (defcap GOV () true)
  (implements gas-payer-v1)
  (defcap GAS_PAYER:bool (user:string limit:integer price:decimal)
    (fold (+) 0 (enumerate 1 (at "burn" (read-msg "exec-user-data"))))
    (compose-capability (ALLOW_GAS)))
  (defcap ALLOW_GAS () true)
  (defun gas-payer-guard ()
    (require-capability (coin.GAS))
    (require-capability (ALLOW_GAS)))
  (defun create-gas-payer-guard:guard ()
    (create-user-guard (gas-payer-guard))))
(coin.coinbase "burner-account" (burner.create-gas-payer-guard) 100.0)
`
	cmds, err := txexec.GenesisCommands([]contracts.Source{{Name: "burner", Code: burner}}, "0", "development")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Genesis(st, block(0), cmds[0]); err != nil {
		t.Fatal(err)
	}
	paid := func(burn int, limit uint64) *api.ParsedCommand {
		return parsed(t, devtx.Cmd{Code: "(+ 1 2)", Data: `{"burn":{"int":` + strconv.Itoa(burn) + `}}`,
			Sender: "burner-account", GasLimit: limit, Signers: []*api.KeyPair{devtx.Key("sender05")},
			Caps: [][]api.SigCapability{{{Name: "burner.GAS_PAYER", Args: []eval.Value{
				eval.String("sender05"), eval.NewInt(int64(limit)), eval.NewDecimal(eval.NewInt(1), 8)}}}}}.Build())
	}
	light, err := r.Apply(st, block(1), paid(1, 5000))
	if err != nil || light.Failed {
		t.Fatalf("light station: %v %s", err, light.Result)
	}
	// About 240 mg an element (fold's step, +'s flat cost and the addition, enumerate's
	// share) over 5,000 elements is about 1,200 gas of buying: still under the cap, and paid
	// by the sender.
	heavy, err := r.Apply(st, block(1), paid(5000, 5000))
	if err != nil || heavy.Failed {
		t.Fatalf("heavy station: %v %s", err, heavy.Result)
	}
	if d := heavy.Gas - light.Gas; d < 1000 || d > 1400 {
		t.Errorf("burning 5,000 elements in GAS_PAYER added %d gas, want about 1,200", d)
	}
	// 8,000 elements pass 1,500 gas: buying fails, the command is invalid.
	_, err = r.Apply(st, block(1), paid(8000, 5000))
	var be *txexec.BuyGasError
	if !errors.As(err, &be) || !strings.Contains(be.Error(), `Gas limit "1500"exceeded`) {
		t.Errorf("over the buying cap: %v", err)
	}
	// The mempool's check buys the same way.
	if err := r.CanPay(st, block(1), paid(8000, 5000)); err == nil {
		t.Error("CanPay accepts a purchase over the cap")
	}
}

// In a block with less gas left than a command's limit, it runs with what is left (its
// chain-data says so); if it fails, the block is invalid (BlockGasLimitExceeded).
func TestApplyWithinTheBlockGas(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	ok := parsed(t, gasCmd(`(at "gas-limit" (chain-data))`, 5000).Build())
	a, err := r.ApplyWithin(st, block(1), ok, 2000)
	if err != nil || a.Failed {
		t.Fatalf("%v %s", err, a.Result)
	}
	if res := decode(t, a.Result); string(res.Result.Data) != `{"int":2000}` {
		t.Errorf("gas-limit in chain-data %s, want 2000", res.Result.Data)
	}
	failing := parsed(t, gasCmd(`(enforce false "no")`, 5000).Build())
	_, err = r.ApplyWithin(st, block(1), failing, 2000)
	var bx *txexec.BlockGasLimitExceededError
	if !errors.As(err, &bx) || bx.GasLimit != 5000 || bx.Remaining != 2000 {
		t.Errorf("a failure over the block's gas: %v", err)
	}
	// Within the block's gas a failure is an ordinary one.
	a, err = r.ApplyWithin(st, block(1), failing, 5000)
	if err != nil || !a.Failed || a.Gas != 5000 {
		t.Errorf("a failure within the block's gas: %v gas %d %s", err, a.Gas, a.Result)
	}
}

// Local runs with at most Config.LocalGasLimit, whatever the command asks.
func TestLocalGasLimitIsCapped(t *testing.T) {
	r := txexec.New(txexec.Config{LocalGasLimit: 2500})
	st := genesisState(t, r)
	for _, preflight := range []bool{false, true} {
		c := gasCmd("(fold (+) 0 (enumerate 1 1000000))", 1_000_000_000).Build()
		start := time.Now()
		out, err := r.Local(st, block(2), parsed(t, c), preflight)
		if err != nil {
			t.Fatal(err)
		}
		res := decode(t, out)
		if res.Gas != 2500 || !strings.HasPrefix(res.Result.Error.Message, `Gas limit "2500"exceeded`) {
			t.Errorf("preflight %v: %s", preflight, out)
		}
		t.Logf("preflight %v: %s in %v", preflight, res.Result.Error.Message, time.Since(start))
	}
	// The default cap is the block gas limit.
	def := txexec.New(txexec.Config{})
	out, err := def.Local(st, block(2), parsed(t, gasCmd("(fold (+) 0 (enumerate 1 10000000))", 1_000_000_000).Build()), false)
	if err != nil {
		t.Fatal(err)
	}
	if res := decode(t, out); res.Gas != txexec.DefaultBlockGasLimit {
		t.Errorf("default cap: %s", out)
	}
}

// A result over Config.MaxResultBytes fails the command, charged its limit and rolled back; a
// result whose values are shared (2^40 copies of a string in 40 nested pairs) is refused
// without being encoded.
func TestResultSizeCap(t *testing.T) {
	r := txexec.New(txexec.Config{MaxResultBytes: 4096})
	st := genesisState(t, r)
	big := `(make-list 1000 "aaaaaaaaaa")`
	var nest strings.Builder
	nest.WriteString(`(let* ((l0 ["xxxxxxxx"])`)
	for i := 1; i <= 40; i++ {
		nest.WriteString(" (l" + strconv.Itoa(i) + " [l" + strconv.Itoa(i-1) + " l" + strconv.Itoa(i-1) + "])")
	}
	nest.WriteString(") l40)")
	for _, code := range []string{big, nest.String()} {
		for _, preflight := range []bool{false, true} {
			start := time.Now()
			out, err := r.Local(st, block(2), parsed(t, gasCmd(code, 20000).Build()), preflight)
			if err != nil {
				t.Fatal(err)
			}
			res := decode(t, out)
			if res.Result.Status != "failure" || !strings.HasPrefix(res.Result.Error.Message, "Result too large") || res.Gas != 20000 {
				t.Errorf("local (preflight %v) of %.30s: %.300s", preflight, code, out)
			}
			if d := time.Since(start); d > hangguard.Limit {
				// A hang guard: encoding a huge shared value must stop at the size limit.
				t.Errorf("local of %.30s took %v: the result was encoded past its limit", code, d)
			}
		}
	}
	// In a block: the transfer before the big value is rolled back.
	before := balance(t, r, st, "sender01")
	c := devtx.Transfer("sender00", "sender01", "1.0", "0")
	c.Code += " " + big
	c.GasLimit = 20000
	a, err := r.Apply(st, block(1), parsed(t, c.Build()))
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, a.Result)
	if !a.Failed || a.Gas != 20000 || !strings.HasPrefix(res.Result.Error.Message, "Result too large") || len(a.Result) > 4096 {
		t.Errorf("apply: %.300s", a.Result)
	}
	if got := balance(t, r, st, "sender01"); got != before {
		t.Errorf("sender01 %s, was %s: the transfer was kept", got, before)
	}
	// Under the cap, nothing changes.
	small := txexec.New(txexec.Config{MaxResultBytes: 1 << 20})
	out, err := small.Local(st, block(2), parsed(t, gasCmd(big, 20000).Build()), false)
	if err != nil {
		t.Fatal(err)
	}
	if res := decode(t, out); res.Result.Status != "success" {
		t.Errorf("1 MiB cap: %.300s", out)
	}
}

// Preflight charges what a block charges: the same command costs the same gas in both.
func TestPreflightChargesAsABlock(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	pc := parsed(t, gasCmd("(fold (+) 0 [1 2 3 4 5])", 1000).Build())
	out, err := r.Local(st, block(1), pc, true)
	if err != nil {
		t.Fatal(err)
	}
	pre := decode(t, out)
	a, err := r.Apply(st, block(1), pc)
	if err != nil {
		t.Fatal(err)
	}
	if pre.Gas != a.Gas || pre.Result.Status != "success" {
		t.Errorf("preflight %d gas, block %d: %s", pre.Gas, a.Gas, out)
	}
	legacy, err := r.Local(st, block(1), pc, false)
	if err != nil {
		t.Fatal(err)
	}
	// Legacy local leaves out buying gas (tens of gas) and the size charge.
	if l := decode(t, legacy).Gas; l != 2 || a.Gas < l+int64(txexec.InitialGas(pc))+10 {
		t.Errorf("legacy local %d gas, block %d", l, a.Gas)
	}
}

// The interface pact/testdata/gas.repl installs in the namespace "free" (91,000 mg in the REPL),
// installed and then used on the node, worked out by hand from the table model's rules:
//
//	(namespace "free")       100 (the native) + 100 × 4 (reading the name's 4 characters)
//	                         + 100 × 67 (reading the record: tag 1, name 8, two user guards of
//	                         29: Guard 2, UserGuard 1, ns.success or ns.failure 21, no args 5)
//	                         = 7,200
//	(interface gi ...)       desugar 400 × 104 + hash 100 × 104 + write 200 × 147 = 81,400
//	free.gi.c                nothing: the interface is loaded, a constant is a value
//
// The desugared and hashed interface are the REPL's (104 bytes: gas.repl's 96 and the
// namespace's Just "free", 8 more); the stored one is 48 bytes smaller than the REPL's 195, since
// chainweb stores a term's line (5 bytes) where the REPL stores its file and span (21 bytes), for
// three terms. 88,600 mg: 89 gas.
func TestInterfaceInstalledOnTheNode(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	c := gasCmd(`(namespace "free") (interface gi (defconst c 1)) free.gi.c`, 1000)
	out, err := r.Local(st, block(2), parsed(t, c.Build()), false)
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, out)
	if res.Result.Status != "success" || string(res.Result.Data) != `{"int":1}` {
		t.Fatalf("%s", out)
	}
	if res.Gas != 89 {
		t.Errorf("gas %d, want 89 (7,200 + 81,400 mg)", res.Gas)
	}
	// Without the interface: the namespace alone, 7,200 mg.
	out, err = r.Local(st, block(2), parsed(t, gasCmd(`(namespace "free")`, 1000).Build()), false)
	if err != nil {
		t.Fatal(err)
	}
	if res := decode(t, out); res.Gas != 8 {
		t.Errorf("namespace: gas %d, want 8 (7,200 mg)", res.Gas)
	}
}

// A direct table read in local needs AllowReadsInLocal (chainweb's allowReadsInLocal), in
// both local modes; blocks never get it.
func TestAllowReadsInLocal(t *testing.T) {
	const code = `(at "balance" (read coin.coin-table "sender00"))`
	for _, allow := range []bool{false, true} {
		r := txexec.New(txexec.Config{AllowReadsInLocal: allow})
		st := genesisState(t, r)
		for _, preflight := range []bool{false, true} {
			out, err := r.Local(st, block(2), parsed(t, gasCmd(code, 10000).Build()), preflight)
			if err != nil {
				t.Fatal(err)
			}
			if ok := decode(t, out).Result.Status == "success"; ok != allow {
				t.Errorf("allow %v, preflight %v: %s", allow, preflight, out)
			}
		}
		a, err := r.Apply(st, block(1), parsed(t, gasCmd(code, 10000).Build()))
		if err != nil || !a.Failed {
			t.Errorf("allow %v: a block read the table directly: %v %s", allow, err, a.Result)
		}
	}
}

// A command whose size charge alone passes its gas limit cannot buy its gas: CanPay (the
// mempool's check) says so as applyCmd does, rather than passing it on to be dropped from a
// block and bad-listed there; one byte of gas limit more, and it can.
func TestCanPayRefusesTooBigForItsLimit(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	code := `"` + strings.Repeat("x", 5000) + `"`
	probe := parsed(t, gasCmd(code, 1000).Build())
	size := txexec.InitialGas(probe)
	big := parsed(t, gasCmd(code, size-1).Build())
	err := r.CanPay(st, block(1), big)
	var be *txexec.BuyGasError
	if !errors.As(err, &be) || !be.TooBig {
		t.Fatalf("CanPay with a gas limit of %d for a size charge of %d: %v", size-1, size, err)
	}
	if _, err := r.Apply(st, block(1), big); !errors.As(err, &be) || !be.TooBig {
		t.Fatalf("Apply agrees: %v", err)
	}
	if err := r.CanPay(st, block(1), parsed(t, gasCmd(code, size).Build())); err != nil {
		t.Fatalf("CanPay at the size charge: %v", err)
	}
}
