package syntax

import (
	"strings"
	"testing"
)

// BenchmarkParseModule parses token.pact, a module of about 470 lines.
func BenchmarkParseModule(b *testing.B) {
	src := readTestdata(b, "token.pact")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ReportMetric(float64(strings.Count(src, "\n")), "lines")
	for b.Loop() {
		if _, err := ParseProgram("token.pact", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLexModule isolates the lexer's share of BenchmarkParseModule.
func BenchmarkLexModule(b *testing.B) {
	src := readTestdata(b, "token.pact")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Lex("token.pact", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseExpr is a typical transaction body.
func BenchmarkParseExpr(b *testing.B) {
	src := `(coin.transfer-create "alice" "k:6d87fd6e5e47185cb421459d2888bddba7a6c0f2c4ae5246d5f38f993818bb89" (read-keyset "ks") 12.5)`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseProgram("tx", src); err != nil {
			b.Fatal(err)
		}
	}
}
