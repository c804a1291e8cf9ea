package value

import "testing"

// Micro-benchmarks of the operations a coin transfer leans on: decimal
// arithmetic at token precision, object encoding and hashing.

func BenchmarkDecimalAdd(b *testing.B) {
	x := NewDecimal(NewInt(12345678), 6)
	y := NewDecimal(NewInt(1), 12)
	for b.Loop() {
		_ = x.Add(y)
	}
}

func BenchmarkDecimalMul(b *testing.B) {
	x := NewDecimal(NewInt(12345678), 6)
	y := NewDecimal(NewInt(25), 2)
	for b.Loop() {
		_ = x.Mul(y)
	}
}

func BenchmarkDecimalQuo(b *testing.B) {
	x := NewDecimal(NewInt(12345678), 6)
	y := NewDecimal(NewInt(3), 0)
	for b.Loop() {
		_ = x.Quo(y)
	}
}

func BenchmarkEncodeChainData(b *testing.B) {
	o := chainData()
	for b.Loop() {
		if _, err := EncodeJSON(o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHashObject(b *testing.B) {
	o := chainData()
	for b.Loop() {
		if _, err := HashValue(o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeJSON(b *testing.B) {
	data := []byte(`{"account":"k:368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca",` +
		`"amount":1.5,"ks":{"keys":["368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca"],"pred":"keys-all"}}`)
	for b.Loop() {
		if _, err := DecodeJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
