package keyorder

import (
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strconv"
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

// The insertion sort of small objects orders as the stable sort of large
// ones, for every size up to the bound and beyond it.
func TestLegacyIndexInto(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for n := 0; n <= smallObject+4; n++ {
		for range 200 {
			set := map[string]bool{}
			for len(set) < n {
				set[string(rune('a'+r.Intn(26)))+strconv.Itoa(r.Intn(1000))] = true
			}
			keys := slices.Sorted(maps.Keys(set))
			want := make([]int, len(keys))
			ranks := make([]uint64, len(keys))
			for i, k := range keys {
				want[i], ranks[i] = i, nibbleReverse(legacyHash(k))
			}
			sort.SliceStable(want, func(a, b int) bool { return ranks[want[a]] < ranks[want[b]] })
			var buf [4]int
			if got := LegacyIndexInto(keys, buf[:0]); !slices.Equal(got, want) {
				t.Fatalf("LegacyIndexInto(%v) = %v, want %v", keys, got, want)
			}
			if got := LegacyIndex(keys); !slices.Equal(got, want) {
				t.Fatalf("LegacyIndex(%v) = %v, want %v", keys, got, want)
			}
		}
	}
}
