package store

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// Readers of every kind run while a writer adds headers and moves heads; run with -race. A small
// cache keeps evictions happening under the readers.
func TestConcurrentReaders(t *testing.T) {
	hs, raws := chain5Headers(t)
	db, _ := openTest(t, Options{HeaderCacheSize: 64})
	if err := db.PutHeaders(hs[:100]...); err != nil {
		t.Fatal(err)
	}
	rawOf := make(map[ledger.Hash][]byte, len(hs))
	for i, h := range hs {
		rawOf[h.Hash] = raws[i]
	}

	stop := make(chan struct{})
	var readers, writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		defer close(stop)
		for i := 100; i < len(hs); i += 10 {
			if err := db.PutHeaders(hs[i:min(i+10, len(hs))]...); err != nil {
				t.Error(err)
				return
			}
			if err := db.SetHeads(map[ledger.ChainID]ledger.Hash{5: hs[i].Hash}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reader := func(g int, read func(i int) error) {
		defer readers.Done()
		for i := g; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := read(i % len(hs)); err != nil {
				t.Error(err)
				return
			}
		}
	}
	readers.Add(5)
	go reader(0, func(i int) error { // by hash: found means exactly the bytes written
		h, err := db.Header(hs[i].Hash)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err == nil && !bytes.Equal(h.Bytes(), raws[i]) {
			err = errors.New("Header returned other bytes")
		}
		return err
	})
	go reader(1, func(i int) error {
		var buf [ledger.HeaderSize]byte
		b, err := db.HeaderBinary(buf[:0], hs[i].Hash)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err == nil && !bytes.Equal(b, raws[i]) {
			err = errors.New("HeaderBinary returned other bytes")
		}
		return err
	})
	go reader(2, func(i int) error { // scans see a consistent, ordered prefix
		var prev *ledger.Header
		return db.ScanChain(5, Position{Height: hs[i].Height}, func(h *ledger.Header) bool {
			if prev != nil && byIndexOrder(prev, h) >= 0 || !bytes.Equal(h.Bytes(), rawOf[h.Hash]) {
				t.Error("scan out of order or with wrong bytes")
				return false
			}
			prev = h
			return true
		})
	})
	go reader(3, func(int) error { // heads always name a readable header
		heads, err := db.Heads()
		if err != nil {
			return err
		}
		for _, h := range heads {
			if _, err := db.Header(h); err != nil {
				return err
			}
		}
		_, _, err = db.MaxHeight(5)
		return err
	})
	go reader(4, func(i int) error {
		_, err := db.HasHeader(hs[i].Hash)
		return err
	})
	writer.Wait()
	readers.Wait()
	if n := db.cache.len(); n > 64 {
		t.Fatalf("%d cached headers in a cache of 64", n)
	}
}
