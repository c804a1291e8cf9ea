package store

import (
	"bytes"
	"errors"
	"testing"
)

func TestSnapshot(t *testing.T) {
	hs, _ := chain5Headers(t)
	db, _ := openTest(t, Options{})
	if err := db.PutHeaders(hs[:10]...); err != nil {
		t.Fatal(err)
	}
	snap, err := db.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	if err := db.PutHeaders(hs[10:]...); err != nil {
		t.Fatal(err)
	}

	// A copy sees the schema and logend records plus 10 index entries, in key order; the headers
	// are in the log, up to HeaderLogLen.
	var prev []byte
	counts := map[byte]int{}
	err = snap.ForEach(func(k, v []byte) error {
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			t.Fatal("keys out of order")
		}
		prev = append(prev[:0], k...)
		counts[k[0]]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if counts[tagMeta] != 2 || counts[0x01] != 0 || counts[tagHeight] != 10 {
		t.Fatalf("snapshot rows by tag: %v", counts)
	}
	if _, err := snap.Header(hs[0].Hash); err != nil {
		t.Fatal(err)
	}
	if _, err := snap.Header(hs[20].Hash); !errors.Is(err, ErrNotFound) {
		t.Fatalf("header written after the snapshot: got %v, want ErrNotFound", err)
	}

	stop := errors.New("stop")
	n := 0
	if err := snap.ForEach(func(k, v []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("ForEach did not stop at fn's error: %v after %d rows", err, n)
	}
	snap.Release()
	snap.Release() // harmless
}
