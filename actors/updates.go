package actors

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
)

// The updates hub fans the blocks entering the best cut out to the header update streams
// (GET …/header/updates and …/block/updates).
//
// Design, for the figures in issue 3 (1,000 subscribers at 50 events/s, p99 < 25 ms, and a
// publisher that is the miner's cut actor and must never wait):
//
//   - Publish only appends to a ring of the last `window` events and pokes a dispatcher
//     goroutine through a one-slot channel. Its cost does not depend on the subscriber count
//     and nothing a subscriber does can make it wait.
//   - The dispatcher does the O(subscribers) part. Every subscription has its own cursor (the
//     sequence number of the next event it is owed) and a buffered channel; the dispatcher moves
//     each cursor up to the newest event with non-blocking sends. A subscription whose channel
//     is full is dropped on the spot, so a stalled client costs the others one failed send.
//   - Resume (Last-Event-ID) is a cursor that starts in the past. The replay and the live events
//     travel the same path in sequence order, so there is no window between "replay done" and
//     "live started" in which an event could be missed or sent twice.
//   - An event's SSE bytes are rendered once, lazily, per stream kind (with and without the
//     payload), and shared by every subscriber.

// Defaults for the hub and its subscriptions.
const (
	// DefaultUpdatesWindow is the replay window when NewUpdatesHub gets none: about 25 minutes
	// of a 20-chain network at the 30 s block delay, so a client that reconnects after a
	// restart of its own or a network blip resumes without a gap.
	DefaultUpdatesWindow = 1024
	// DefaultSubscriberBuffer is how many events a subscriber may be behind (beyond its initial
	// replay) before it is dropped: 2.5 s at the 50 events/s of the benchmark, minutes at the
	// real rate. A dropped client loses nothing: it reconnects with Last-Event-ID.
	DefaultSubscriberBuffer = 128
)

var (
	// ErrHubClosed ends every subscription when the hub closes (node shutdown); Subscribe
	// returns it afterwards.
	ErrHubClosed = errors.New("actors: updates hub closed")
	// ErrSlowSubscriber ends a subscription that fell more than its buffer (or the whole replay
	// window) behind.
	ErrSlowSubscriber = errors.New("actors: update subscriber fell too far behind and was dropped")
)

// BlockEvent is one block entering the best cut.
type BlockEvent struct {
	Header *ledger.Header
	// Payload is the block's payload with outputs. It may be nil (not at hand); the event then
	// says txCount 0 and, on /block/updates, "payloadWithOutputs":null.
	Payload *ledger.PayloadWithOutputs
	// CutHeight is the height of the cut the block entered with (the sum of its chains'
	// heights). It goes into the event id.
	CutHeight uint64
}

// Event is a published BlockEvent with its id. The hub keeps Header and Payload by pointer and
// shares the event between subscribers: neither may be changed after Publish.
type Event struct {
	BlockEvent
	seq        uint64
	id         string
	headerOnly lazySSE // data without payloadWithOutputs (/header/updates)
	withBlock  lazySSE // data with payloadWithOutputs (/block/updates)
}

type lazySSE struct {
	once sync.Once
	b    []byte
}

// ID returns the event's id, "<cutHeight>-<chain>-<seq>": the cut height and chain of the block
// (DECISIONS.md), then the hub's sequence number, which starts at 1 and grows by one per event.
// The sequence number is what makes ids unique and increasing: cut height and chain alone
// repeat when a fork replaces blocks (the new block at the same height enters at the same cut
// height) or when one cut change adds several blocks of one chain. Clients treat ids as opaque
// and send the last one back as Last-Event-ID.
func (e *Event) ID() string { return e.id }

// Seq returns the event's sequence number in its hub (the last field of the id).
func (e *Event) Seq() uint64 { return e.seq }

// SSE returns the event's server-sent event block, rendered on first use and shared from then
// on: "id:<id>\nevent:BlockHeader\ndata:<json>\n\n", with the data object's keys in
// alphabetical order as upstream's aeson Value comes out (chainweb-api.md §5): header,
// payloadWithOutputs (only withPayload), powHash, target, txCount. The caller must not modify
// the returned bytes.
func (e *Event) SSE(withPayload bool) []byte {
	l := &e.headerOnly
	if withPayload {
		l = &e.withBlock
	}
	l.once.Do(func() { l.b = e.render(withPayload) })
	return l.b
}

func (e *Event) render(withPayload bool) []byte {
	h := e.Header
	var payload []byte
	if withPayload && e.Payload != nil {
		var err error
		if payload, err = e.Payload.MarshalJSON(); err != nil {
			// Not reachable for a payload the store accepted (byte slices and hashes only);
			// null keeps the stream valid JSON rather than failing the whole event.
			payload = nil
		}
	}
	b := make([]byte, 0, 1024+len(payload))
	b = append(b, "id:"...)
	b = append(b, e.id...)
	b = append(b, "\nevent:BlockHeader\ndata:{\"header\":"...)
	b = h.AppendObjectJSON(b)
	if withPayload {
		b = append(b, `,"payloadWithOutputs":`...)
		if payload == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, payload...)
		}
	}
	b = append(b, `,"powHash":"`...)
	b = appendBEHex(b, pow.PowHash(h))
	b = append(b, `","target":"`...)
	b = appendBEHex(b, h.Target)
	b = append(b, `","txCount":`...)
	n := 0
	if e.Payload != nil {
		n = len(e.Payload.Transactions)
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "}\n\n"...)
}

// appendBEHex appends the 64-digit lowercase big-endian hex form of u (as U256.BEHex, without
// the intermediate string).
func appendBEHex(dst []byte, u ledger.U256) []byte {
	const digits = "0123456789abcdef"
	for i := 3; i >= 0; i-- {
		for shift := 60; shift >= 0; shift -= 4 {
			dst = append(dst, digits[(u[i]>>shift)&0xf])
		}
	}
	return dst
}

// ResumeStatus says how a subscription started.
type ResumeStatus uint8

const (
	// ResumeNone: no Last-Event-ID was given; the subscription starts with the next event.
	ResumeNone ResumeStatus = iota
	// Resumed: the id is in the window; every later event is replayed first.
	Resumed
	// ResumeUnknown: the id is not in the window (expired, from another node or an earlier run
	// of this one, or malformed); the subscription starts with the next event.
	ResumeUnknown
)

// UpdatesHub distributes published block events to subscriptions. All methods are safe for
// concurrent use.
type UpdatesHub struct {
	// mu orders Publish, Subscribe's window lookup and Close. It is held for O(1) work only.
	mu     sync.Mutex
	closed bool
	slots  []atomic.Pointer[Event] // ring: event seq s lives in slots[s % len(slots)]
	last   atomic.Uint64           // seq of the newest event; 0 before the first

	// subsMu guards changes to the subscription list, which is copy-on-write so the dispatcher
	// reads it without a lock. Adding and removing cost O(subscribers), but only subscribers
	// pay it, never the publisher.
	subsMu     sync.Mutex
	subsClosed bool
	subs       atomic.Pointer[[]*Subscription]

	kick    chan struct{} // one slot: "there is something to deliver"
	quit    chan struct{} // closed by Close; stops the dispatcher
	stopped chan struct{} // closed by the dispatcher after its last pass

	dropped atomic.Uint64
}

// NewUpdatesHub returns a hub that keeps the last window events for Last-Event-ID resume
// (DefaultUpdatesWindow if window <= 0), with its dispatcher running until Close.
func NewUpdatesHub(window int) *UpdatesHub {
	if window <= 0 {
		window = DefaultUpdatesWindow
	}
	h := &UpdatesHub{
		slots:   make([]atomic.Pointer[Event], window),
		kick:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	h.subs.Store(new([]*Subscription))
	go h.dispatch()
	return h
}

// Publish adds events in the order they enter the cut. It never blocks on subscribers: it
// appends to the window and wakes the dispatcher. Events without a header are skipped, and
// after Close Publish does nothing.
func (h *UpdatesHub) Publish(events ...BlockEvent) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	w := uint64(len(h.slots))
	for _, be := range events {
		if be.Header == nil {
			continue
		}
		seq := h.last.Load() + 1
		e := &Event{BlockEvent: be, seq: seq, id: formatID(be.CutHeight, be.Header.ChainID, seq)}
		// The slot before the sequence number: a reader that sees last >= seq finds the event.
		h.slots[seq%w].Store(e)
		h.last.Store(seq)
	}
	h.mu.Unlock()
	h.wake()
}

func (h *UpdatesHub) wake() {
	select {
	case h.kick <- struct{}{}:
	default: // a wake-up is already pending; the dispatcher's next pass sees everything
	}
}

func formatID(cutHeight uint64, c ledger.ChainID, seq uint64) string {
	var buf [64]byte
	b := strconv.AppendUint(buf[:0], cutHeight, 10)
	b = append(b, '-')
	b = strconv.AppendUint(b, uint64(c), 10)
	b = append(b, '-')
	b = strconv.AppendUint(b, seq, 10)
	return string(b)
}

// parseSeq extracts the sequence number of an id of the form formatID writes.
func parseSeq(id string) (uint64, bool) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return 0, false
	}
	seq, err := strconv.ParseUint(id[i+1:], 10, 64)
	return seq, err == nil && seq > 0
}

// Subscribe starts a subscription. With a lastEventID still in the window, the subscription
// first receives every event after it, then the live ones, with no gap and no duplicate.
// Otherwise (empty, unknown or expired) it starts with the next published event; Resume says
// which happened. buffer is how many events it may lag behind before it is dropped
// (DefaultSubscriberBuffer if <= 0); the replay comes on top. After Close it returns
// ErrHubClosed.
func (h *UpdatesHub) Subscribe(lastEventID string, buffer int) (*Subscription, error) {
	if buffer <= 0 {
		buffer = DefaultSubscriberBuffer
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrHubClosed
	}
	last := h.last.Load()
	start, status := last+1, ResumeNone
	if lastEventID != "" {
		status = ResumeUnknown
		w := uint64(len(h.slots))
		// The event named must itself still be in the window: its id is checked in full, so an
		// id from another run of the node with the same sequence number is not taken for it.
		if seq, ok := parseSeq(lastEventID); ok && seq <= last && last-seq < w {
			if e := h.slots[seq%w].Load(); e != nil && e.seq == seq && e.id == lastEventID {
				start, status = seq+1, Resumed
			}
		}
	}
	h.mu.Unlock()

	replay := int(last + 1 - start)
	s := &Subscription{
		hub:      h,
		c:        make(chan *Event, buffer+replay),
		next:     start,
		done:     make(chan struct{}),
		status:   status,
		replayed: replay,
	}
	h.subsMu.Lock()
	if h.subsClosed {
		h.subsMu.Unlock()
		return nil, ErrHubClosed
	}
	old := *h.subs.Load()
	subs := make([]*Subscription, len(old), len(old)+1)
	copy(subs, old)
	subs = append(subs, s)
	h.subs.Store(&subs)
	h.subsMu.Unlock()
	if replay > 0 {
		h.wake()
	}
	return s, nil
}

func (h *UpdatesHub) remove(s *Subscription) {
	h.subsMu.Lock()
	defer h.subsMu.Unlock()
	old := *h.subs.Load()
	for i, x := range old {
		if x == s {
			subs := make([]*Subscription, 0, len(old)-1)
			subs = append(subs, old[:i]...)
			subs = append(subs, old[i+1:]...)
			h.subs.Store(&subs)
			return
		}
	}
}

// Close ends every subscription at once (with ErrHubClosed) and stops the hub. Events
// published before Close are still handed to every subscription that has room for them, so a
// stream can send them before it ends. Later Publish calls do nothing and Subscribe fails.
// Close is idempotent.
func (h *UpdatesHub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.mu.Unlock()
	close(h.quit)
	<-h.stopped // its last pass takes O(subscribers) sends, none of which blocks
	h.subsMu.Lock()
	h.subsClosed = true
	subs := *h.subs.Swap(new([]*Subscription))
	h.subsMu.Unlock()
	for _, s := range subs {
		s.end(ErrHubClosed)
	}
}

// UpdatesStats is a snapshot of a hub's counters, for the node's status line and tests.
type UpdatesStats struct {
	Published   uint64 // events published so far (the newest sequence number)
	Subscribers int    // live subscriptions
	Dropped     uint64 // subscriptions dropped for falling behind
}

// Stats returns the hub's counters.
func (h *UpdatesHub) Stats() UpdatesStats {
	return UpdatesStats{Published: h.last.Load(), Subscribers: len(*h.subs.Load()), Dropped: h.dropped.Load()}
}

// dispatch moves every subscription's cursor up to the newest event, once per wake-up, and a
// last time when the hub closes.
func (h *UpdatesHub) dispatch() {
	defer close(h.stopped)
	for {
		quit := false
		select {
		case <-h.kick:
		case <-h.quit:
			quit = true
		}
		last := h.last.Load()
		for _, s := range *h.subs.Load() {
			h.feed(s, last)
		}
		if quit {
			return
		}
	}
}

// feed sends s the events from its cursor up to last. Only the dispatcher goroutine calls it,
// so s.next needs no lock.
func (h *UpdatesHub) feed(s *Subscription, last uint64) {
	if s.next > last {
		return
	}
	select {
	case <-s.done:
		return // ended; its removal from the list is under way
	default:
	}
	w := uint64(len(h.slots))
	for ; s.next <= last; s.next++ {
		e := h.slots[s.next%w].Load()
		if e == nil || e.seq != s.next {
			// Overwritten: the subscriber is more than the whole window behind.
			h.drop(s)
			return
		}
		select {
		case s.c <- e:
		default:
			h.drop(s)
			return
		}
	}
}

func (h *UpdatesHub) drop(s *Subscription) {
	if s.end(ErrSlowSubscriber) {
		h.dropped.Add(1)
	}
	h.remove(s)
}

// Subscription is one subscriber's view of the hub. Events arrive on Events in publication
// order; Done closes when the subscription ends (dropped, hub closed, or Close).
type Subscription struct {
	hub  *UpdatesHub
	c    chan *Event
	next uint64 // seq of the next event owed; owned by the dispatcher once subscribed

	done    chan struct{}
	endOnce sync.Once
	err     error // why it ended; written before done closes

	status   ResumeStatus
	replayed int
}

// Events delivers the subscription's events. It is never closed: select on Done as well.
func (s *Subscription) Events() <-chan *Event { return s.c }

// Done is closed when the subscription ends. Events still buffered may be read after it but
// are not needed: a client resuming from the last event it got misses nothing.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err says why the subscription ended: ErrSlowSubscriber, ErrHubClosed, or nil after Close
// (and before the end).
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Resume says how the subscription started and, if Resumed, how many events it replays.
func (s *Subscription) Resume() (ResumeStatus, int) { return s.status, s.replayed }

// Close ends the subscription. It is idempotent and safe from any goroutine.
func (s *Subscription) Close() {
	s.end(nil)
	s.hub.remove(s)
}

// end records why the subscription ended and closes Done; it reports whether this call did.
func (s *Subscription) end(err error) bool {
	ended := false
	s.endOnce.Do(func() {
		s.err = err
		close(s.done)
		ended = true
	})
	return ended
}
