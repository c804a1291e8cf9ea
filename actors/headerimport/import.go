package headerimport

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pow"
	"github.com/ledgernode/ledger-node/store"
)

// Header import (ledger-node import-headers) stores headers read from a file, so that real
// header chains can be served and queried. It runs while no node runs on the data directory
// (goleveldb's lock keeps one out), so it is the directory's only writer, as the chain actors are
// while a node runs. It validates a header as a chain actor does, with the rules of
// pow.ValidateHeader over the parents parentsOf finds, and writes headers through the store in
// batches of importBatch (store.PutHeaders: a header log record and its height-index entry each,
// as store.PutBlock writes for a header without a payload), so that a file of millions of
// headers does not pay a synced write per header. It does not go through the chain actors
// themselves because a chain actor accepts only complete blocks whose parents it has, and an
// import file starts mid-chain and carries no payloads: a header whose parent or an adjacent
// parent is neither stored nor in the file is kept after the rules that need neither
// (pow.MissingParent and pow.MissingAdjacentParent end its validation without rejecting it), and
// the summary counts the checks each header got.
//
// An import is a pipeline, so that a file of millions of headers streams through bounded
// queues and the block hashes are computed on every core:
//
//	read      ImportInput.Read sends the headers in file order, in batches (the caller decodes);
//	intrinsic one worker per core checks what a header alone decides (pow.ValidateIntrinsic:
//	          block hash, PoW, chain graph, time), batches handed back in file order;
//	order     the headers are taken in height order (ImportOrder, from a first pass over the
//	          file, says when no later header can come before the ones held back);
//	validate  one goroutine: duplicates, stored headers, the parent and adjacent-parent rules
//	          (pow.ValidateChainStep and pow.ValidateWebStep: with the intrinsic rules, exactly
//	          pow.ValidateHeader), in that order, as one loop over a sorted file did;
//	write     one goroutine writes each full batch (store.PutHeaders) while the next fills; the
//	          headers of a batch stay findable as parents until the next one is written.

// importBatch is how many accepted headers an import writes at once.
const importBatch = 1000

// importReadBatch is how many headers ImportHeaders hands the intrinsic workers at once: big
// enough that the hand-offs between stages are rare (on a loaded machine each may wait for a
// CPU), small enough that the queues of the pipeline hold some ten thousand headers.
const importReadBatch = 1024

// ImportSummary counts what an import did and which checks it could apply.
type ImportSummary struct {
	Read, Stored, AlreadyStored, Rejected int
	// ParentChecked counts the headers that passed the rules of their parent link (height,
	// weight, fork number); WebChecked those that passed every rule, adjacent parents included.
	ParentChecked, WebChecked int
	// Rejections says, for each rejected header, which and why.
	Rejections []string
	Elapsed    time.Duration
}

// ImportProgress is how an import reports how far it is: Report, when set, hears the headers
// done (stored, present or rejected) every Every (DefaultImportProgressEvery if zero), the
// first time after First (Every if zero). With AtEnd, an import that ends before its first
// report reports once at the end, so that a short import shows its rate too.
type ImportProgress struct {
	Every, First time.Duration
	AtEnd        bool
	Report       func(done, total int, elapsed time.Duration)
}

// DefaultImportProgressEvery is how often an import reports by default.
const DefaultImportProgressEvery = 2 * time.Second

// ImportOrder is what an import must know beforehand of headers that come in file order to
// process them in height order (a stable sort, as ImportHeaders does) while holding back only
// the headers a later, lower one must precede. Add each header's height in file order; its
// size is 16 bytes for each header lower than every header after it (at most one per distinct
// height on a braided file), not one per header.
type ImportOrder struct {
	n int
	// marks are the headers so far lower than every later one, ascending in position and
	// height: the lowest height from position p on is that of the first mark at or after p.
	marks []orderMark
}

type orderMark struct {
	pos    int
	height uint64
}

// Add records the height of the next header of the file.
func (o *ImportOrder) Add(height uint64) {
	for len(o.marks) > 0 && o.marks[len(o.marks)-1].height >= height {
		o.marks = o.marks[:len(o.marks)-1]
	}
	o.marks = append(o.marks, orderMark{o.n, height})
	o.n++
}

// Len is the number of heights added.
func (o *ImportOrder) Len() int { return o.n }

// ImportInput is the headers of an import, read as the import goes.
type ImportInput struct {
	// Total is the number of headers Read sends.
	Total int
	// Order holds the heights of the headers in the order Read sends them: the import then
	// validates them in height order. Without it Read must send them in height order.
	Order *ImportOrder
	// Read sends the headers in batches (whose slices it must not reuse). send reports false
	// once the import has stopped (an error); Read should then return.
	Read func(send func([]*ledger.Header) bool) error
}

// ImportHeaders validates headers in height order and stores each one that passes, then moves
// each chain's head to the heaviest header imported. A header whose parent was rejected is
// rejected too. progress hears how far the import is. It sorts headers by height (stably).
func ImportHeaders(db *store.DB, v *ledger.Version, headers []*ledger.Header, now time.Time,
	progress ImportProgress) (*ImportSummary, error) {
	slices.SortStableFunc(headers, func(a, b *ledger.Header) int { return cmp.Compare(a.Height, b.Height) })
	return ImportStream(db, v, ImportInput{Total: len(headers), Read: func(send func([]*ledger.Header) bool) error {
		for len(headers) > 0 {
			n := min(len(headers), importReadBatch)
			if !send(headers[:n:n]) {
				return nil
			}
			headers = headers[n:]
		}
		return nil
	}}, now, progress)
}

// ImportStream is ImportHeaders over headers read as the import goes: what it holds at once is
// a few thousand headers in its queues, the headers a lower one later in the file holds back
// (none for a file in height order) and in.Order.
func ImportStream(db *store.DB, v *ledger.Version, in ImportInput, now time.Time,
	progress ImportProgress) (*ImportSummary, error) {
	if progress.Every <= 0 {
		progress.Every = DefaultImportProgressEvery
	}
	if progress.First <= 0 {
		progress.First = progress.Every
	}
	im := &importer{db: db, v: v, nowMicros: now.UnixMicro(), progress: progress, start: time.Now(),
		sum: &ImportSummary{Read: in.Total}, total: in.Total, rejected: map[ledger.Hash]bool{},
		recent: map[ledger.Hash]recentHeader{}, best: map[ledger.ChainID]*ledger.Header{},
		batch: make([]*ledger.Header, 0, importBatch)}
	im.lastReport = im.start
	im.startWriter()
	p := startIntrinsic(v, im.nowMicros, in.Read)
	err := im.consume(p, in.Order)
	p.stop()
	if werr := im.finishWrites(); err == nil {
		err = werr
	}
	if rerr := p.wait(); err == nil {
		err = rerr
	}
	if err == nil && im.seen != in.Total {
		err = fmt.Errorf("import: read %d headers, %d expected", im.seen, in.Total)
	}
	if err != nil {
		return nil, err
	}
	if err := advanceHeads(db, im.best); err != nil {
		return nil, err
	}
	if progress.AtEnd && progress.Report != nil && !im.reported && im.done > 0 {
		progress.Report(im.done, im.total, time.Since(im.start))
	}
	im.sum.Elapsed = time.Since(im.start)
	return im.sum, nil
}

// checked is a header with the verdict of the intrinsic rules on it.
type checked struct {
	h   *ledger.Header
	err error // pow.ValidateIntrinsic's
	// hashOK: the header's hash is its block hash (what a stored header is compared on).
	hashOK bool
	pos    int // in file order
}

// intrinsicBatch is a batch of headers on its way through the intrinsic workers.
type intrinsicBatch struct {
	hs   []*ledger.Header
	res  []checked
	done chan struct{}
}

// intrinsicPipe runs Read and the intrinsic workers; ordered yields the batches in file order.
type intrinsicPipe struct {
	ordered  chan *intrinsicBatch
	quit     chan struct{}
	quitOnce sync.Once
	readErr  chan error
	workers  sync.WaitGroup
}

func startIntrinsic(v *ledger.Version, nowMicros int64, read func(func([]*ledger.Header) bool) error) *intrinsicPipe {
	n := runtime.GOMAXPROCS(0)
	p := &intrinsicPipe{ordered: make(chan *intrinsicBatch, 4*n+4), quit: make(chan struct{}), readErr: make(chan error, 1)}
	jobs := make(chan *intrinsicBatch, n)
	for range n {
		p.workers.Add(1)
		go func() {
			defer p.workers.Done()
			for b := range jobs {
				for i, h := range b.hs {
					b.res[i] = intrinsicOf(v, h, nowMicros)
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(p.ordered)
		defer close(jobs)
		p.readErr <- read(func(hs []*ledger.Header) bool {
			b := &intrinsicBatch{hs: hs, res: make([]checked, len(hs)), done: make(chan struct{})}
			select {
			case p.ordered <- b:
			case <-p.quit:
				return false
			}
			select {
			case jobs <- b:
				return true
			case <-p.quit:
				return false
			}
		})
	}()
	return p
}

// stop makes Read's send report false and lets the workers end.
func (p *intrinsicPipe) stop() { p.quitOnce.Do(func() { close(p.quit) }) }

// wait waits for Read and the workers to end and returns Read's error.
func (p *intrinsicPipe) wait() error {
	for range p.ordered { // unblock a reader that got into ordered before quit
	}
	err := <-p.readErr
	p.workers.Wait()
	return err
}

// intrinsicOf checks what h alone decides. The block hash is the costly part, computed once:
// when the intrinsic rules fail after the hash rule, the hash was right.
func intrinsicOf(v *ledger.Version, h *ledger.Header, nowMicros int64) checked {
	err := pow.ValidateIntrinsic(v, h, nowMicros)
	c := checked{h: h, err: err, hashOK: err == nil}
	switch r := pow.RuleOf(err); {
	case err == nil:
	case r == pow.IncorrectHash:
	case r == pow.VersionMismatch || r == pow.InvalidValidationParameters:
		c.hashOK = h.ComputeHash() == h.Hash // the rules stopped before the hash
	default:
		c.hashOK = true
	}
	return c
}

// importer is the validate stage of an import and the state it keeps.
type importer struct {
	db        *store.DB
	v         *ledger.Version
	nowMicros int64
	progress  ImportProgress
	start     time.Time
	sum       *ImportSummary
	total     int

	seen       int // headers taken from the workers
	done       int // headers validated
	lastReport time.Time
	reported   bool

	rejected map[ledger.Hash]bool
	// recent are the accepted headers of the batch being filled (batchNo), of the batches
	// handed to the writer, and of the last one written: lookup finds them there first, so
	// that the store needs no header cache for the parents an import reads. A batch leaves
	// it once the writer has written the next one.
	recent  map[ledger.Hash]recentHeader
	batchNo int
	// unwritten are the batches handed to the writer, oldest first, after the last written.
	unwritten   [][]*ledger.Header
	lastWritten []*ledger.Header
	// best is each chain's heaviest imported header (stored now or before): the first of
	// equal weights, in height order.
	best  map[ledger.ChainID]*ledger.Header
	batch []*ledger.Header

	writes  chan []*ledger.Header
	written chan writeResult
}

type recentHeader struct {
	h     *ledger.Header
	batch int
}

type writeResult struct{ err error }

// consume takes the checked headers in file order and validates them in height order.
func (im *importer) consume(p *intrinsicPipe, order *ImportOrder) error {
	o := heightOrder{order: order}
	for b := range p.ordered {
		<-b.done
		for i := range b.res {
			im.seen++
			if err := o.add(b.res[i], im.validate); err != nil {
				return err
			}
		}
	}
	if err := o.drain(im.validate); err != nil {
		return err
	}
	return im.flush()
}

// heightOrder turns headers in file order into a stable sort by height, holding back only what
// must wait for a lower header later in the file.
type heightOrder struct {
	order *ImportOrder // nil: the headers come in height order
	held  checkedHeap
	seen  int // headers added
	next  int // the first mark of order at or after position seen
}

// add takes the next header in file order and hands emit those that come next in height order.
func (o *heightOrder) add(c checked, emit func(*checked) error) error {
	c.pos = o.seen
	o.seen++
	if o.order == nil {
		return emit(&c)
	}
	o.held.push(c)
	marks := o.order.marks
	for o.next < len(marks) && marks[o.next].pos < o.seen {
		o.next++
	}
	// Nothing later in the file is lower than marks[o.next].height.
	for len(o.held) > 0 && (o.next == len(marks) || o.held[0].h.Height <= marks[o.next].height) {
		c := o.held.pop()
		if err := emit(&c); err != nil {
			return err
		}
	}
	return nil
}

// drain hands emit the headers still held, at the end of the file.
func (o *heightOrder) drain(emit func(*checked) error) error {
	for len(o.held) > 0 {
		c := o.held.pop()
		if err := emit(&c); err != nil {
			return err
		}
	}
	return nil
}

// validate is the per-header step of an import, in height order.
func (im *importer) validate(c *checked) error {
	h := c.h
	i := im.done
	im.done++
	// Every header counts, also one present or rejected: a file the node has already
	// is a long import too.
	if im.progress.Report != nil && i > 0 {
		wait := im.progress.Every
		if !im.reported {
			wait = im.progress.First
		}
		if time.Since(im.lastReport) >= wait {
			im.lastReport = time.Now()
			im.reported = true
			im.progress.Report(i, im.total, time.Since(im.start))
		}
	}
	r, inRecent := im.recent[h.Hash]
	if inRecent && r.batch == im.batchNo {
		im.sum.AlreadyStored++ // listed twice in the file
		return nil
	}
	// A header of a batch handed to the writer counts as stored, as it would have if each
	// batch were written before the next header.
	ok := inRecent
	if !ok {
		var err error
		if ok, err = im.db.HasHeader(h.Hash); err != nil {
			return err
		}
	}
	if ok && c.hashOK {
		im.sum.AlreadyStored++
		im.imported(h)
		return nil
	}
	passed, reason, err := validateImported(im.lookup, im.v, c, im.rejected[h.Parent])
	if err != nil {
		return err
	}
	if passed >= pow.PassedChainStep {
		im.sum.ParentChecked++
	}
	if reason != "" {
		im.sum.Rejected++
		im.rejected[h.Hash] = true
		im.sum.Rejections = append(im.sum.Rejections, fmt.Sprintf("chain %d height %d %s: %s", h.ChainID, h.Height, h.Hash, reason))
		return nil
	}
	if passed == pow.PassedAll {
		im.sum.WebChecked++
	}
	im.recent[h.Hash] = recentHeader{h, im.batchNo}
	if im.batch = append(im.batch, h); len(im.batch) == importBatch {
		if err := im.flush(); err != nil {
			return err
		}
	}
	im.imported(h)
	im.sum.Stored++
	return nil
}

func (im *importer) imported(h *ledger.Header) {
	if b := im.best[h.ChainID]; b == nil || h.Weight.Cmp(b.Weight) > 0 {
		im.best[h.ChainID] = h
	}
}

func (im *importer) lookup(x ledger.Hash) (*ledger.Header, error) {
	if r, ok := im.recent[x]; ok {
		return r.h, nil
	}
	return Stored(im.db, x)
}

func (im *importer) startWriter() {
	// At most two batches wait while one is written (a slow write, or the writer waiting for
	// a CPU, does not stop validation), and the results of those and the next fit in written
	// until a flush takes them, so the writer never blocks on a result.
	im.writes = make(chan []*ledger.Header, 2)
	im.written = make(chan writeResult, 5)
	go func() {
		defer close(im.written)
		for hs := range im.writes {
			im.written <- writeResult{im.db.PutHeaders(hs...)}
		}
	}()
}

// flush hands the batch to the writer and takes the results of the batches written meanwhile.
func (im *importer) flush() error {
	if err := im.takeWritten(false); err != nil {
		return err
	}
	if len(im.batch) == 0 {
		return nil
	}
	im.writes <- im.batch
	im.unwritten = append(im.unwritten, im.batch)
	im.batchNo++
	im.batch = make([]*ledger.Header, 0, importBatch)
	return im.takeWritten(false)
}

// takeWritten takes the writer's results, waiting for all of them with all. The batch
// written before a written one leaves recent: HasHeader and Header find it now.
func (im *importer) takeWritten(all bool) error {
	for len(im.unwritten) > 0 {
		var r writeResult
		if all {
			r = <-im.written
		} else {
			select {
			case r = <-im.written:
			default:
				return nil
			}
		}
		for _, h := range im.lastWritten {
			delete(im.recent, h.Hash)
		}
		im.lastWritten = im.unwritten[0]
		im.unwritten[0] = nil
		im.unwritten = im.unwritten[1:]
		if r.err != nil {
			return r.err
		}
	}
	return nil
}

// finishWrites stops the writer once it has written what it was given.
func (im *importer) finishWrites() error {
	close(im.writes)
	var first error
	for len(im.unwritten) > 0 {
		if err := im.takeWritten(true); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// checkedHeap is a min-heap of headers by height, then file position: a stable sort by height.
type checkedHeap []checked

func (q checkedHeap) less(i, j int) bool {
	return q[i].h.Height < q[j].h.Height || q[i].h.Height == q[j].h.Height && q[i].pos < q[j].pos
}

func (q *checkedHeap) push(c checked) {
	*q = append(*q, c)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *checkedHeap) pop() checked {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = checked{}
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// validateImported validates c's header as a chain actor would, against the parents lookup
// finds (none when the parent was rejected in this import), except that a missing parent or
// adjacent parent ends the validation without rejecting it. reason is why it is rejected, ""
// when it is kept; passed says which groups of rules it passed. The intrinsic rules were
// applied already (c.err); the rest are pow.ValidateHeader's, in its order.
func validateImported(lookup func(ledger.Hash) (*ledger.Header, error), v *ledger.Version, c *checked,
	parentRejected bool) (passed pow.Passed, reason string, err error) {
	h := c.h
	if h.Version != v.Code {
		return pow.PassedNone, fmt.Sprintf("belongs to network code %#x, not %s", h.Version, v.Name), nil
	}
	parent, adj, err := ParentsOf(h, lookup)
	if err != nil {
		return pow.PassedNone, "", err
	}
	if parentRejected {
		parent = nil
	}
	passed, verr := validateRest(v, c, parent, adj)
	switch {
	case verr == nil:
	case pow.RuleOf(verr) == pow.MissingParent && parentRejected:
		return passed, "its parent was rejected", nil
	case pow.RuleOf(verr) == pow.MissingParent, pow.RuleOf(verr) == pow.MissingAdjacentParent:
	default:
		return passed, verr.Error(), nil
	}
	return passed, "", nil
}

// validateRest is pow.ValidateHeader on a header whose intrinsic rules gave c.err: the chain
// step, then the web step, each failure with the groups passed before it.
func validateRest(v *ledger.Version, c *checked, parent *ledger.Header, adj []*ledger.Header) (pow.Passed, error) {
	if c.err != nil {
		return pow.PassedNone, c.err
	}
	if err := pow.ValidateChainStep(v, c.h, parent); err != nil {
		return pow.PassedIntrinsic, err
	}
	if err := pow.ValidateWebStep(v, c.h, parent, adj); err != nil {
		return pow.PassedChainStep, err
	}
	return pow.PassedAll, nil
}

// advanceHeads moves each chain's head to best's header when it is heavier than the head.
func advanceHeads(db *store.DB, best map[ledger.ChainID]*ledger.Header) error {
	heads, err := db.Heads()
	if err != nil {
		return err
	}
	changed := false
	for _, h := range best {
		cur, ok := heads[h.ChainID]
		if ok {
			if ch, err := db.Header(cur); err == nil && ch.Weight.Cmp(h.Weight) >= 0 {
				continue
			}
		}
		heads[h.ChainID] = h.Hash
		changed = true
	}
	if !changed {
		return nil
	}
	return db.SetHeads(heads)
}

// ParentsOf returns h's parent and adjacent parents as lookup finds them (nil, nil when a
// header is not there): parent nil when it is missing, and only the adjacent parents found,
// which is how pow's validation learns that one is missing. The chain actors look in the
// store (Stored); an import also among the headers it has yet to write.
func ParentsOf(h *ledger.Header, lookup func(ledger.Hash) (*ledger.Header, error)) (parent *ledger.Header, adj []*ledger.Header, err error) {
	if parent, err = lookup(h.Parent); err != nil {
		return nil, nil, err
	}
	adj = make([]*ledger.Header, 0, len(h.Adjacents))
	for _, x := range h.Adjacents {
		y, err := lookup(x.Hash)
		if err != nil {
			return nil, nil, err
		}
		if y != nil {
			adj = append(adj, y)
		}
	}
	return parent, adj, nil
}

// Stored returns the stored header h, nil when it is not stored.
func Stored(db *store.DB, h ledger.Hash) (*ledger.Header, error) {
	x, err := db.Header(h)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return x, err
}
