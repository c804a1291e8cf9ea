package nodenet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Block is what the recorder and the report know of a block.
type Block struct {
	Hash, Parent, PayloadHash string
	Chain                     int
	Height                    uint64
	Created                   time.Time
	Miner                     string // the account its miner data names ("" when unknown)
}

// recorder follows every node's block update stream: each block it sees, and when each node's
// cut took it in.
type recorder struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	blocks  map[string]*Block
	arrived map[string]map[string]time.Time // block hash → node name → first time in its cut
	// down are the intervals in which a node was stopped or had just started again (catching
	// up): its arrivals then say nothing of propagation.
	down map[string][][2]time.Time
}

// Record starts recording the block update streams of the nodes running now and of every node
// started later. Report reads what it recorded.
func (nt *Net) Record() {
	nt.mu.Lock()
	if nt.rec != nil {
		nt.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	nt.rec = &recorder{ctx: ctx, cancel: cancel, blocks: map[string]*Block{},
		arrived: map[string]map[string]time.Time{}, down: map[string][][2]time.Time{}}
	nt.mu.Unlock()
	for _, n := range nt.Nodes() {
		if n.Running() {
			nt.rec.watch(n)
		}
	}
}

func (nt *Net) recorder() *recorder {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	return nt.rec
}

func (r *recorder) close() {
	r.cancel()
	r.wg.Wait()
}

// catchUpGrace is how long after a restart a node's arrivals are left out of the propagation
// latency: it is catching up what it missed.
const catchUpGrace = 30 * time.Second

// markDown records that node was down from since until until+catchUpGrace.
func (r *recorder) markDown(node string, since, until time.Time) {
	r.mu.Lock()
	r.down[node] = append(r.down[node], [2]time.Time{since, until.Add(catchUpGrace)})
	r.mu.Unlock()
}

// watch follows n's stream until n stops or the recorder closes.
func (r *recorder) watch(n *Node) {
	url := n.Service + "/chainweb/0.0/development/block/updates"
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for r.ctx.Err() == nil && n.Running() {
			r.follow(n.Name, url)
			select {
			case <-r.ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}

// follow reads one connection of a stream until it ends.
func (r *recorder) follow(node, url string) {
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, url, nil)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("data:")) {
			continue
		}
		if b, ok := decodeEvent(line[len("data:"):]); ok {
			r.arrive(node, b, time.Now())
		}
	}
}

func (r *recorder) arrive(node string, b *Block, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.blocks[b.Hash]; !ok {
		r.blocks[b.Hash] = b
	}
	m := r.arrived[b.Hash]
	if m == nil {
		m = map[string]time.Time{}
		r.arrived[b.Hash] = m
	}
	if _, ok := m[node]; !ok {
		m[node] = at
	}
}

// eventJSON is the part of a block update event the recorder reads.
type eventJSON struct {
	Header headerJSON `json:"header"`
	Block  *struct {
		MinerData string `json:"minerData"`
	} `json:"payloadWithOutputs"`
}

type headerJSON struct {
	Hash         string `json:"hash"`
	Parent       string `json:"parent"`
	PayloadHash  string `json:"payloadHash"`
	ChainID      int    `json:"chainId"`
	Height       uint64 `json:"height"`
	CreationTime int64  `json:"creationTime"`
}

func (h *headerJSON) block() *Block {
	return &Block{Hash: h.Hash, Parent: h.Parent, PayloadHash: h.PayloadHash, Chain: h.ChainID, Height: h.Height,
		Created: time.UnixMicro(h.CreationTime)}
}

func decodeEvent(data []byte) (*Block, bool) {
	var e eventJSON
	if err := json.Unmarshal(data, &e); err != nil || e.Header.Hash == "" {
		return nil, false
	}
	b := e.Header.block()
	if e.Block != nil {
		b.Miner = minerAccount(e.Block.MinerData)
	}
	return b, true
}

// minerAccount reads the account of base64url miner data ("" when it does not decode).
func minerAccount(data string) string {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(data, "="))
	if err != nil {
		return ""
	}
	var md struct {
		Account string `json:"account"`
	}
	if json.Unmarshal(raw, &md) != nil {
		return ""
	}
	return md.Account
}
