package txexec

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
)

// The size charge against figures worked out by hand from chainweb's formula,
// ⌈s/100 + (s/51200)^7⌉: the penalty is above zero for any size, so even an exact
// multiple of 100 rounds up.
func TestInitialGasOfSize(t *testing.T) {
	for _, tc := range []struct {
		size int
		want uint64
	}{
		{-5, 0}, {0, 0}, {1, 1}, {99, 1}, {100, 2}, {101, 2}, {250, 3}, {600, 7}, {1000, 11},
		{51200, 513}, {51300, 515}, {100000, 1109}, {200000, 15878},
	} {
		if got := InitialGasOfSize(tc.size); got != tc.want {
			t.Errorf("InitialGasOfSize(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

// A continuation's SPV proof is not charged for: it is subtracted from the size.
func TestInitialGasLeavesOutTheProof(t *testing.T) {
	proof := strings.Repeat("QUJD", 1250) // 5,000 bytes of base64url, which JSON writes as is
	c := devtx.Cmd{Cont: &api.ContMsg{PactID: "pact", Step: 1, Proof: &proof}}.Build()
	pc, err := api.ParseCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	got, want := InitialGas(pc), InitialGasOfSize(len(c.Cmd)-len(proof))
	if got != want || got >= InitialGasOfSize(len(c.Cmd)) {
		t.Errorf("InitialGas %d, want %d (the proof's %d bytes left out of %d)", got, want, len(proof), len(c.Cmd))
	}
}

// Fees are gas × price rounded to 12 places with banker's rounding, as Data.Decimal's
// roundTo 12 does.
func TestGasSupplyRounding(t *testing.T) {
	for _, tc := range []struct {
		gas   uint64
		price string
		want  string
	}{
		{3, "0.1", "0.3"},
		{400, "0.00000001", "0.000004"},
		{1, "0.0000000000015", "0.000000000002"}, // half to even: up to 2
		{1, "0.0000000000025", "0.000000000002"}, // half to even: down to 2
		{1, "0.00000000000251", "0.000000000003"},
		{0, "0.1", "0.0"},
	} {
		p, err := eval.ParseDecimal(tc.price)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := eval.ParseDecimal(tc.want)
		got := gasSupply(tc.gas, p)
		if !got.Equal(want) || got.Places() != 12 {
			t.Errorf("gasSupply(%d, %s) = %s (%d places), want %s with 12 places", tc.gas, tc.price, got.Text(), got.Places(), tc.want)
		}
	}
}

// gasUsed of a command is what buying gas used, plus the size charge, plus the payload, on
// one meter: each piece is run alone here and the sum rounded up must be what Apply charges.
func TestGasUsedIsBuyPlusSizePlusPayload(t *testing.T) {
	r := New(Config{})
	b := devBlock()
	st := devGenesis(t, r, b)
	for _, tc := range []struct {
		code      string
		payloadMG gas.MilliGas // the payload alone, by Pact 5's table
	}{
		{"(+ 1 2)", 130},                   // + (100) and the integer addition (30)
		{"(fold (+) 0 [1 2 3 4 5])", 1750}, // chainweb's runPayload test
	} {
		c := devtx.Cmd{Code: tc.code, Signers: []*api.KeyPair{devtx.Key("sender00")},
			Caps: [][]api.SigCapability{{{Name: "coin.GAS"}}}}.Build()
		pc, err := api.VerifyCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		m := pc.Payload.Meta.Public
		in := r.interp(st, b, pc, m)
		meter, err := r.buy(in, pc, m, b.Miner, false)
		if err != nil {
			t.Fatal(err)
		}
		buyMG := meter.Used()
		if buyMG == 0 || buyMG > gas.FromGas(BuyGasLimit) {
			t.Fatalf("buying gas used %v", buyMG)
		}
		want := (buyMG + gas.FromGas(InitialGas(pc)) + tc.payloadMG).Gas()
		a, err := r.Apply(st, b, pc)
		if err != nil || a.Failed {
			t.Fatalf("%s: %v %s", tc.code, err, a.Result)
		}
		if uint64(a.Gas) != want {
			t.Errorf("%s: gas %d, want ⌈(%d buy + %d size·1000 + %d payload) / 1000⌉ = %d",
				tc.code, a.Gas, buyMG, InitialGas(pc), tc.payloadMG, want)
		}
		t.Logf("%s: buy %v, size %d gas, payload %v: %d gas", tc.code, buyMG, InitialGas(pc), tc.payloadMG, a.Gas)
	}
}

// The small-payload shortcut agrees with the exact computation at every
// size it covers and past it (the bound itself is proved in its comment).
func TestInitialGasShortcutIsExact(t *testing.T) {
	for size := 1; size <= smallPayloadSize+500; size++ {
		if got, want := InitialGasOfSize(size), initialGasExact(size); got != want {
			t.Fatalf("InitialGasOfSize(%d) = %d, exactly %d", size, got, want)
		}
	}
}

// gasSupply is gas × price at 12 places, rounded half to even, for any
// gas a uint64 holds (figures worked out by hand).
func TestGasSupply(t *testing.T) {
	price := func(s string) eval.Decimal {
		d, err := eval.ParseDecimal(s)
		if err != nil {
			t.Fatalf("bad decimal %s: %v", s, err)
		}
		return d
	}
	for _, tc := range []struct {
		gas   uint64
		price string
		want  string
	}{
		{400, "0.00000001", "0.000004"},
		{18446744073709551615, "0.00000001", "184467440737.09551615"},
		{3, "0.0000000000005", "0.000000000002"},
		{1, "0.0000000000005", "0.0"},
		{0, "0.00000001", "0.0"},
	} {
		if got := gasSupply(tc.gas, price(tc.price)); !got.Equal(price(tc.want)) {
			t.Errorf("gasSupply(%d, %s) = %v, want %s", tc.gas, tc.price, got, tc.want)
		}
	}
}
