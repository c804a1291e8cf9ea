package actors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/internal/jsontest"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// testEvent builds the i-th block of a synthetic stream: chain i%20, a payload with i%3
// transactions, cut height i.
func testEvent(i int) BlockEvent {
	v := ledger.Development
	c := ledger.ChainID(i % 20)
	var txs []ledger.TxWithOutput
	for k := 0; k < i%3; k++ {
		txs = append(txs, ledger.TxWithOutput{Tx: []byte(fmt.Sprintf(`{"tx":%d}`, k)), Output: []byte(`{"ok":true}`)})
	}
	p := ledger.NewPayloadWithOutputs([]byte(`{"miner":1}`), []byte(`{"coinbase":1}`), txs)
	h := ledger.GenesisHeader(v, c, p.PayloadHash)
	h.Height = uint64(i/20 + 1)
	h.CreationTime += int64(i) * 1_000_000
	h.Nonce = uint64(i)
	h.Weight = ledger.U256{uint64(i)}
	h.Seal()
	return BlockEvent{Header: h, Payload: p, CutHeight: uint64(i)}
}

// receive reads n events or fails after a timeout.
func receive(t *testing.T, s *Subscription, n int) []*Event {
	t.Helper()
	out := make([]*Event, 0, n)
	timeout := hangguard.After()
	for len(out) < n {
		select {
		case e := <-s.Events():
			out = append(out, e)
		case <-s.Done():
			t.Fatalf("subscription ended after %d of %d events: %v", len(out), n, s.Err())
		case <-timeout:
			t.Fatal(hangguard.Failure(fmt.Sprintf("event %d of %d", len(out)+1, n)))
		}
	}
	return out
}

// expectNothing checks that no event is waiting.
func expectNothing(t *testing.T, s *Subscription) {
	t.Helper()
	select {
	case e := <-s.Events():
		t.Fatalf("unexpected event %s", e.ID())
	case <-time.After(20 * time.Millisecond): // wallclock: nothing may come meanwhile; a slow machine only weakens the check
	}
}

func checkRun(t *testing.T, got []*Event, firstSeq uint64) {
	t.Helper()
	for i, e := range got {
		if want := firstSeq + uint64(i); e.Seq() != want {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq(), want)
		}
	}
}

func TestUpdatesOrderAndIDs(t *testing.T) {
	h := NewUpdatesHub(64)
	defer h.Close()
	subs := make([]*Subscription, 20)
	for i := range subs {
		var err error
		if subs[i], err = h.Subscribe("", 0); err != nil {
			t.Fatal(err)
		}
	}
	var sent []BlockEvent
	for i := 1; i <= 50; i++ {
		sent = append(sent, testEvent(i))
	}
	h.Publish(sent[:10]...)
	for _, be := range sent[10:] {
		h.Publish(be)
	}
	for _, s := range subs {
		got := receive(t, s, len(sent))
		checkRun(t, got, 1)
		for i, e := range got {
			if e.Header != sent[i].Header || e.Payload != sent[i].Payload {
				t.Fatalf("event %d carries another block", i)
			}
			want := fmt.Sprintf("%d-%d-%d", sent[i].CutHeight, sent[i].Header.ChainID, i+1)
			if e.ID() != want {
				t.Fatalf("id %q, want %q", e.ID(), want)
			}
		}
		expectNothing(t, s)
	}
	if st := h.Stats(); st.Published != 50 || st.Subscribers != 20 || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
	subs[0].Close()
	subs[0].Close()
	if st := h.Stats(); st.Subscribers != 19 {
		t.Errorf("after Close: %+v", st)
	}
	if subs[0].Err() != nil {
		t.Errorf("Err after Close: %v", subs[0].Err())
	}
}

// TestUpdatesIDsUnique: the same cut height and chain twice (a fork's block replacing one at the
// same height) still gives distinct, increasing ids.
func TestUpdatesIDsUnique(t *testing.T) {
	h := NewUpdatesHub(8)
	defer h.Close()
	s, _ := h.Subscribe("", 0)
	a, b := testEvent(5), testEvent(5)
	b.Header.Nonce++
	b.Header.Seal()
	h.Publish(a, b, BlockEvent{}) // the header-less event is skipped
	got := receive(t, s, 2)
	if got[0].ID() != "5-5-1" || got[1].ID() != "5-5-2" {
		t.Errorf("ids %q %q", got[0].ID(), got[1].ID())
	}
	expectNothing(t, s)
}

// sseData splits a rendered event and returns its data line.
func sseData(t *testing.T, b []byte, id string) []byte {
	t.Helper()
	want := "id:" + id + "\nevent:BlockHeader\ndata:"
	if !bytes.HasPrefix(b, []byte(want)) || !bytes.HasSuffix(b, []byte("}\n\n")) {
		t.Fatalf("framing: %q", b)
	}
	data := b[len(want) : len(b)-2]
	if bytes.IndexByte(data, '\n') >= 0 || bytes.IndexByte(data, '\r') >= 0 {
		t.Fatalf("data spans lines: %q", data)
	}
	return data
}

func TestUpdatesRender(t *testing.T) {
	h := NewUpdatesHub(8)
	defer h.Close()
	s, _ := h.Subscribe("", 0)
	be := testEvent(44) // two transactions
	h.Publish(be, BlockEvent{Header: testEvent(45).Header, CutHeight: 45})
	got := receive(t, s, 2)

	for _, withPayload := range []bool{false, true} {
		e := got[0]
		b := e.SSE(withPayload)
		if &b[0] != &e.SSE(withPayload)[0] {
			t.Error("rendering is not shared")
		}
		data := sseData(t, b, e.ID())
		keys := []string{"header", "powHash", "target", "txCount"}
		if withPayload {
			keys = []string{"header", "payloadWithOutputs", "powHash", "target", "txCount"}
		}
		if k := jsontest.ObjectKeys(t, data); strings.Join(k, ",") != strings.Join(keys, ",") {
			t.Fatalf("keys %v, want %v", k, keys)
		}
		var d struct {
			Header             json.RawMessage            `json:"header"`
			PayloadWithOutputs *ledger.PayloadWithOutputs `json:"payloadWithOutputs"`
			PowHash            string                     `json:"powHash"`
			Target             string                     `json:"target"`
			TxCount            int                        `json:"txCount"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		hdr, err := ledger.DecodeHeaderObject(d.Header)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(hdr.Bytes(), be.Header.Bytes()) {
			t.Error("header does not decode back to the published one")
		}
		if d.PowHash != pow.PowHash(be.Header).BEHex() || d.Target != be.Header.Target.BEHex() || d.TxCount != 2 {
			t.Errorf("powHash %s target %s txCount %d", d.PowHash, d.Target, d.TxCount)
		}
		if withPayload {
			if d.PayloadWithOutputs == nil || d.PayloadWithOutputs.PayloadHash != be.Payload.PayloadHash ||
				len(d.PayloadWithOutputs.Transactions) != 2 {
				t.Errorf("payload %+v", d.PayloadWithOutputs)
			}
		}
	}
	// No payload at hand: txCount 0, payloadWithOutputs null.
	e := got[1]
	if !bytes.Contains(e.SSE(true), []byte(`"payloadWithOutputs":null,"powHash"`)) ||
		!bytes.HasSuffix(e.SSE(false), []byte(`"txCount":0}`+"\n\n")) {
		t.Errorf("payload-less event: %s", e.SSE(true))
	}
}

func TestUpdatesResume(t *testing.T) {
	h := NewUpdatesHub(16)
	defer h.Close()
	for i := 1; i <= 10; i++ {
		h.Publish(testEvent(i))
	}
	first, _ := h.Subscribe("", 0)
	h.Publish(testEvent(11))
	e11 := receive(t, first, 1)[0]

	// Resume after event 11 while nothing new has come: nothing to replay, then live.
	s, err := h.Subscribe(e11.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if st, n := s.Resume(); st != Resumed || n != 0 {
		t.Errorf("resume %v %d", st, n)
	}
	// Resume from the middle of the window: 4..11 replayed, then live 12 and 13.
	e3 := h.slots[3%16].Load()
	mid, _ := h.Subscribe(e3.ID(), 2)
	if st, n := mid.Resume(); st != Resumed || n != 8 {
		t.Errorf("mid resume %v %d", st, n)
	}
	h.Publish(testEvent(12), testEvent(13))
	checkRun(t, receive(t, s, 2), 12)
	checkRun(t, receive(t, mid, 10), 4)
	expectNothing(t, mid)

	// Unknown, malformed, from-the-future and look-alike ids start live.
	for _, id := range []string{"nonsense", "7-7-", "1-1-999", "999-3-3", "-0", e3.ID() + "x"} {
		u, _ := h.Subscribe(id, 0)
		if st, _ := u.Resume(); st != ResumeUnknown {
			t.Errorf("%q: status %v", id, st)
		}
		h.Publish(testEvent(100))
		if got := receive(t, u, 1)[0]; got.Seq() != h.Stats().Published {
			t.Errorf("%q: first event %s is not live", id, got.ID())
		}
		u.Close()
	}
	// Expired: push event 3 out of the 16-event window.
	for i := 0; i < 16; i++ {
		h.Publish(testEvent(200 + i))
	}
	if x, _ := h.Subscribe(e3.ID(), 0); func() ResumeStatus { st, _ := x.Resume(); return st }() != ResumeUnknown {
		t.Error("expired id resumed")
	}
	// The oldest event still in the window can be resumed from.
	oldest := h.Stats().Published - 15
	o := h.slots[oldest%16].Load()
	r, _ := h.Subscribe(o.ID(), 0)
	if st, n := r.Resume(); st != Resumed || n != 15 {
		t.Errorf("oldest: %v %d", st, n)
	}
	checkRun(t, receive(t, r, 15), oldest+1)
}

// TestUpdatesResumeRace resumes subscriptions from random recent ids while a publisher runs
// flat out. Each must see a gap-free, duplicate-free run starting right after its id: the
// replay and the live events meet without a seam.
func TestUpdatesResumeRace(t *testing.T) {
	const total = 3000
	h := NewUpdatesHub(4096)
	defer h.Close()
	stop := make(chan struct{})
	var pubDone sync.WaitGroup
	pubDone.Add(1)
	go func() {
		defer pubDone.Done()
		for i := 1; i <= total; i++ {
			h.Publish(testEvent(i))
			if i%50 == 0 {
				time.Sleep(100 * time.Microsecond)
			}
		}
		close(stop)
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for k := 0; k < 8; k++ {
				last := h.Stats().Published
				var id string
				want := last + 1
				if last > 0 && rng.IntN(4) > 0 {
					seq := last - uint64(rng.IntN(int(min(last, 200))))
					e := h.slots[seq%4096].Load()
					id, want = e.ID(), seq+1
				}
				s, err := h.Subscribe(id, total)
				if err != nil {
					errs <- err
					return
				}
				if st, _ := s.Resume(); id == "" && st != ResumeNone || id != "" && st != Resumed {
					errs <- fmt.Errorf("id %q: status %v", id, st)
					return
				}
				if id == "" {
					// A live start is anywhere from the newest event seen before Subscribe.
					select {
					case e := <-s.Events():
						want = e.Seq() + 1
						if e.Seq() < last+1 {
							errs <- fmt.Errorf("live start at %d, before %d", e.Seq(), last+1)
							return
						}
					case <-stop:
						s.Close()
						continue
					}
				}
				for n := 0; n < 100 && want <= total; n++ {
					select {
					case e := <-s.Events():
						if e.Seq() != want {
							errs <- fmt.Errorf("id %q: got seq %d, want %d", id, e.Seq(), want)
							return
						}
						want++
					case <-s.Done():
						errs <- fmt.Errorf("id %q: ended: %v", id, s.Err())
						return
					case <-hangguard.After():
						errs <- fmt.Errorf("id %q: %s", id, hangguard.Failure(fmt.Sprintf("event %d", want)))
						return
					}
				}
				s.Close()
			}
		}(g)
	}
	wg.Wait()
	pubDone.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestUpdatesSlowSubscriberDropped: a subscriber that never reads is dropped once its buffer
// fills; the publisher never waits and a reading subscriber gets everything.
func TestUpdatesSlowSubscriberDropped(t *testing.T) {
	h := NewUpdatesHub(256)
	defer h.Close()
	stalled, _ := h.Subscribe("", 4)
	reader, _ := h.Subscribe("", 64)
	got := make(chan []*Event, 1)
	go func() {
		var evs []*Event
		for len(evs) < 200 {
			select {
			case e := <-reader.Events():
				evs = append(evs, e)
			case <-reader.Done():
				got <- evs
				return
			}
		}
		got <- evs
	}()
	// The publisher never waits on the stalled subscriber: if it did, this loop would hang (and
	// the reader's hang guard would say so).
	for i := 1; i <= 200; i++ {
		h.Publish(testEvent(i))
		if i%20 == 0 {
			time.Sleep(time.Millisecond) // let the reader keep within its 64
		}
	}
	select {
	case <-stalled.Done():
	case <-hangguard.After():
		t.Fatal(hangguard.Failure("the stalled subscriber's drop"))
	}
	if !errors.Is(stalled.Err(), ErrSlowSubscriber) {
		t.Errorf("stalled ended with %v", stalled.Err())
	}
	evs := <-got
	if len(evs) != 200 {
		t.Fatalf("reader got %d of 200 (ended: %v)", len(evs), reader.Err())
	}
	checkRun(t, evs, 1)
	if st := h.Stats(); st.Dropped != 1 || st.Subscribers != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestUpdatesLaggedOutOfWindow: a subscriber whose backlog is overwritten in the ring is
// dropped, not handed a gap.
func TestUpdatesLaggedOutOfWindow(t *testing.T) {
	h := NewUpdatesHub(4)
	defer h.Close()
	for i := 1; i <= 4; i++ {
		h.Publish(testEvent(i))
	}
	first := h.slots[1%4].Load()
	// Block the dispatcher's view: subscribe from event 1 (replay 2..4) and publish 10 more
	// before it can be fed; whatever it receives must be contiguous, and if it lost events it
	// must have been dropped.
	s, _ := h.Subscribe(first.ID(), 100)
	for i := 5; i <= 14; i++ {
		h.Publish(testEvent(i))
	}
	want := uint64(2)
	for {
		select {
		case e := <-s.Events():
			if e.Seq() != want {
				t.Fatalf("got seq %d, want %d", e.Seq(), want)
			}
			want++
			if want == 15 {
				return // fed before the ring moved on: everything arrived
			}
		case <-s.Done():
			if !errors.Is(s.Err(), ErrSlowSubscriber) {
				t.Fatalf("ended with %v", s.Err())
			}
			return
		case <-hangguard.After():
			t.Fatal(hangguard.Failure(fmt.Sprintf("event %d", want)))
		}
	}
}

func TestUpdatesClose(t *testing.T) {
	h := NewUpdatesHub(8)
	subs := make([]*Subscription, 10)
	for i := range subs {
		subs[i], _ = h.Subscribe("", 0)
	}
	h.Publish(testEvent(1))
	t0 := time.Now()
	h.Close()
	for _, s := range subs {
		select {
		case <-s.Done():
		case <-hangguard.After():
			t.Fatal(hangguard.Failure("a subscription's end after Close"))
		}
		if !errors.Is(s.Err(), ErrHubClosed) {
			t.Errorf("ended with %v", s.Err())
		}
	}
	if d := time.Since(t0); d > hangguard.Limit {
		// A hang guard, not a speed test: Close must not wait on a subscriber.
		t.Errorf("Close took %v: it waited on something", d)
	}
	if _, err := h.Subscribe("", 0); !errors.Is(err, ErrHubClosed) {
		t.Errorf("Subscribe after Close: %v", err)
	}
	h.Publish(testEvent(2)) // no-op, no panic
	h.Close()
	if st := h.Stats(); st.Published != 1 || st.Subscribers != 0 {
		t.Errorf("stats %+v", st)
	}
}

// BenchmarkUpdatesPublish shows Publish's cost does not grow with the subscriber count.
func BenchmarkUpdatesPublish(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			h := NewUpdatesHub(1024)
			defer h.Close()
			var wg sync.WaitGroup
			for range n {
				s, _ := h.Subscribe("", 1<<20)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-s.Events():
						case <-s.Done():
							return
						}
					}
				}()
			}
			ev := testEvent(1)
			b.ResetTimer()
			for range b.N {
				h.Publish(ev)
			}
			b.StopTimer()
			h.Close()
			wg.Wait()
		})
	}
}
