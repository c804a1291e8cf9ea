package keyorder

import (
	"slices"
	"testing"
)

// Legacy gives Pact's order whatever order the (distinct) keys come in, and LegacyIndex is
// the same order as a permutation of sorted keys. The expected order is the one Pact writes a
// command result in (chainweb-api.md's CommandResult: gas, result, reqKey, logs, events,
// metaData, continuation, txId); pact/eval's TestLegacyKeyOrder checks it against the interpreter's
// object encoding too.
func TestLegacy(t *testing.T) {
	want := []string{"gas", "result", "reqKey", "logs", "events", "metaData", "continuation", "txId"}
	shuffled := []string{"txId", "logs", "gas", "continuation", "reqKey", "result", "metaData", "events"}
	if got := Legacy(shuffled); !slices.Equal(got, want) {
		t.Fatalf("Legacy = %v, want %v", got, want)
	}
	sorted := slices.Sorted(slices.Values(want))
	var byIndex []string
	for _, i := range LegacyIndex(sorted) {
		byIndex = append(byIndex, sorted[i])
	}
	if !slices.Equal(byIndex, want) {
		t.Fatalf("LegacyIndex order = %v, want %v", byIndex, want)
	}
	// A key outside the BMP is hashed as its UTF-16 surrogate pair: it must not panic and must
	// keep its place among the others.
	if got := Legacy([]string{"a", "\U0001F600", "b"}); len(got) != 3 {
		t.Fatalf("Legacy with a non-BMP key = %v", got)
	}
}
