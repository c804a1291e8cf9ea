package eval

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/ledgernode/ledger-node/pact/value"
)

// A decimal made a Value through the arena's table is that decimal,
// places included (1.0 and 1.00 show differently), whatever it collides
// with in the table.
func TestArenaDecimals(t *testing.T) {
	var a arena
	r := rand.New(rand.NewSource(2))
	for range 20000 {
		d := value.NewDecimal(value.NewInt(r.Int63n(2000)-1000), uint8(r.Intn(4)))
		v := a.decimal(d)
		got, ok := v.(value.Decimal)
		if !ok || got.Places() != d.Places() || got.Mantissa().Cmp(d.Mantissa()) != 0 {
			t.Fatalf("decimal(%s) = %v", d.Text(), v)
		}
	}
	huge := value.NewDecimal(value.NewIntBig(new(big.Int).Lsh(big.NewInt(1), 100)), 3)
	if v := a.decimal(huge); value.Show(v) != huge.Text() {
		t.Fatalf("decimal of a big mantissa = %s, want %s", value.Show(v), huge.Text())
	}
}
