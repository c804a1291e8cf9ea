package kv

import (
	"bytes"
	"fmt"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ prefix, want []byte }{
		{[]byte{0x05, 0, 0, 0, 1}, []byte{0x05, 0, 0, 0, 2}},
		{[]byte{0x05, 0xff}, []byte{0x06}},
		{[]byte{0xff, 0xff}, nil},
		{nil, nil},
	} {
		if got := PrefixEnd(c.prefix); !bytes.Equal(got, c.want) || (c.want == nil) != (got == nil) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.prefix, got, c.want)
		}
	}
	p := []byte{1, 2}
	PrefixEnd(p)[0] = 9
	if p[0] != 1 {
		t.Error("PrefixEnd changed its argument")
	}
}

// A batch replays its writes in order with the bytes it was given, even when the caller
// reuses its buffers, and again after a Reset with only the new ones.
func TestBatchReplay(t *testing.T) {
	var b Batch
	buf := []byte("k1")
	b.Put(buf, []byte("v1"))
	copy(buf, "xx")
	b.Delete([]byte("k2"))
	b.Put([]byte("k3"), nil)
	replay := func() string {
		var got string
		b.Replay(func(k, v []byte) { got += fmt.Sprintf("put %s=%s;", k, v) },
			func(k []byte) { got += fmt.Sprintf("del %s;", k) })
		return got
	}
	if got, want := replay(), "put k1=v1;del k2;put k3=;"; got != want || b.Len() != 3 {
		t.Errorf("replay %q (len %d), want %q", got, b.Len(), want)
	}
	b.Reset()
	b.Delete([]byte("k4"))
	if got, want := replay(), "del k4;"; got != want || b.Len() != 1 {
		t.Errorf("after Reset: %q (len %d), want %q", got, b.Len(), want)
	}
}
