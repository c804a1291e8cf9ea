package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Concurrent writers and readers lose nothing and never see a torn write; run with -race (make
// test does), this also fails on any unguarded access.
func TestConcurrentWritesAndReads(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	const writers, lines = 4, 200
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < lines; i++ {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	got := b.String()
	if n := strings.Count(got, "line\n"); n != writers*lines || len(got) != writers*lines*5 {
		t.Fatalf("got %d whole lines in %d bytes, want %d lines", n, len(got), writers*lines)
	}
}
