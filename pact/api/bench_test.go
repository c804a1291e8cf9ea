package api

import (
	"crypto/ed25519"
	"testing"

	"github.com/ledgernode/ledger-node/pact/value"
)

// BenchmarkVerifyCommand decodes and verifies a one-signer transfer:
// compare with BenchmarkEd25519Verify, its floor.
func BenchmarkVerifyCommand(b *testing.B) {
	k := mustKey(b, sec0)
	p := testPayload(pub0)
	p.Exec.Code = `(coin.transfer "alice" "bob" 1.0)`
	p.Signers[0].Clist = []SigCapability{{Name: "coin.TRANSFER", Args: []value.Value{value.String("alice"), value.String("bob"), mustValue(b, "1.0")}}, {Name: "coin.GAS"}}
	js, _ := p.JSON()
	c := &Command{Cmd: string(js), Hash: HashBytes(js)}
	c.Sigs = []UserSig{k.SignHash(c.Hash)}
	body := c.JSON()
	b.ReportAllocs()
	for b.Loop() {
		c, err := DecodeCommand(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := VerifyCommand(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEd25519Verify(b *testing.B) {
	k := mustKey(b, sec0)
	h := HashBytes([]byte("x"))
	sig := k.Sign(h[:])
	pub := ed25519.PublicKey(k.Public())
	for b.Loop() {
		if !ed25519.Verify(pub, h[:], sig) {
			b.Fatal("invalid")
		}
	}
}
