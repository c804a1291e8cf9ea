package nodenet

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Counters are a node's metrics that tell how it converged (package metrics' families).
type Counters struct {
	Validated, Replayed, Reapplied float64 // ledger_node_block_executions_total by kind
	Inserted, Orphaned, Mined      float64
	Reorgs                         float64
	DeepestReorg                   float64 // the most blocks one chain lost in one switch
}

func (c *Counters) add(o Counters) {
	c.Validated += o.Validated
	c.Replayed += o.Replayed
	c.Reapplied += o.Reapplied
	c.Inserted += o.Inserted
	c.Orphaned += o.Orphaned
	c.Mined += o.Mined
	c.Reorgs += o.Reorgs
	c.DeepestReorg = max(c.DeepestReorg, o.DeepestReorg)
}

var httpClient = &http.Client{Timeout: time.Minute}

// Counters reads the node's counters now (since its last start).
func (n *Node) Counters() (Counters, error) {
	var c Counters
	resp, err := httpClient.Get(n.Service + "/metrics")
	if err != nil {
		return c, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, val, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			continue
		}
		switch name {
		case `ledger_node_block_executions_total{kind="validate"}`:
			c.Validated = v
		case `ledger_node_block_executions_total{kind="replay"}`:
			c.Replayed = v
		case `ledger_node_block_executions_total{kind="reapply"}`:
			c.Reapplied = v
		case "ledger_node_blocks_inserted_total":
			c.Inserted = v
		case "ledger_node_blocks_orphaned_total":
			c.Orphaned = v
		case "ledger_node_mined_blocks_total":
			c.Mined = v
		case "ledger_node_reorgs_total":
			c.Reorgs = v
		case "ledger_node_reorg_depth_max_blocks":
			c.DeepestReorg = v
		}
	}
	return c, sc.Err()
}

// Head is one chain's block in a node's cut.
type Head struct {
	Hash   string
	Height uint64
}

// Cut reads the node's cut: each chain's head.
func (n *Node) Cut() (map[int]Head, error) {
	var c struct {
		Hashes map[string]struct {
			Hash   string `json:"hash"`
			Height uint64 `json:"height"`
		} `json:"hashes"`
	}
	if err := n.getJSON("/chainweb/0.0/development/cut", "application/json", &c); err != nil {
		return nil, err
	}
	out := make(map[int]Head, len(c.Hashes))
	for k, v := range c.Hashes {
		ch, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("cut of %s: chain %q", n.Name, k)
		}
		out[ch] = Head{Hash: v.Hash, Height: v.Height}
	}
	return out, nil
}

func (n *Node) getJSON(path, accept string, v any) error {
	req, err := http.NewRequest(http.MethodGet, n.Service+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", accept)
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s GET %s: %d %s", n.Name, path, resp.StatusCode, b)
	}
	return json.Unmarshal(b, v)
}

// block returns block hash of chain c: as recorded, or read from node n (and then recorded).
func (nt *Net) block(n *Node, c int, hash string) (*Block, error) {
	r := nt.recorder()
	if r != nil {
		r.mu.Lock()
		b := r.blocks[hash]
		r.mu.Unlock()
		if b != nil && (b.Miner != "" || b.Height == 0) {
			return b, nil
		}
	}
	var h headerJSON
	base := fmt.Sprintf("/chainweb/0.0/development/chain/%d/", c)
	if err := n.getJSON(base+"header/"+hash, "application/json;blockheader-encoding=object", &h); err != nil {
		return nil, err
	}
	b := h.block()
	if b.Height > 0 {
		var p struct {
			MinerData string `json:"minerData"`
		}
		if err := n.getJSON(base+"payload/"+h.PayloadHash, "application/json", &p); err != nil {
			return nil, err
		}
		b.Miner = minerAccount(p.MinerData)
	}
	if r != nil {
		r.mu.Lock()
		r.blocks[hash] = b
		r.mu.Unlock()
	}
	return b, nil
}

// history returns chain c's blocks in n's cut from head down to height 1, head first.
func (nt *Net) history(n *Node, c int, head Head) ([]*Block, error) {
	var out []*Block
	for hash := head.Hash; ; {
		b, err := nt.block(n, c, hash)
		if err != nil {
			return nil, err
		}
		if b.Height == 0 {
			return out, nil
		}
		out = append(out, b)
		hash = b.Parent
	}
}

// NodeReport is one node's part of a Report.
type NodeReport struct {
	Name      string
	Mining    bool
	CutHeight uint64
	// Own is how many blocks of its cut it mined, of Total: the blocks above the heights
	// MarkStart noted (above the genesis blocks without it).
	Own, Total int
	Counters   Counters
}

// MarkStart notes each chain's height in the first running node's cut: Report counts each
// miner's share of its cut above it, so that the blocks mined while the nodes were still
// starting one after the other (the first node alone, at first) do not weigh on a short run.
func (nt *Net) MarkStart() error {
	for _, n := range nt.Nodes() {
		if !n.Running() {
			continue
		}
		c, err := n.Cut()
		if err != nil {
			return err
		}
		m := make(map[int]uint64, len(c))
		for ch, h := range c {
			m[ch] = h.Height
		}
		nt.mu.Lock()
		nt.since = m
		nt.mu.Unlock()
		return nil
	}
	return fmt.Errorf("no node runs")
}

// Share is the fraction of the node's cut that it mined.
func (r NodeReport) Share() float64 {
	if r.Total == 0 {
		return 0
	}
	return float64(r.Own) / float64(r.Total)
}

// Report is what a network did.
type Report struct {
	Nodes []NodeReport
	// Depth is how far below the lowest tip of each chain the nodes were compared; Disagree
	// lists the chains on which some node holds another block there (empty: one network).
	Depth    uint64
	Disagree []string
	// Recorded are the blocks that entered some node's cut while recording (below the final
	// tips of the reference node, the first one added that runs); Orphans those of them not
	// in its final history.
	Recorded, Orphans int
	// Latencies are, for each block and each node that took it into its cut after the first
	// one did, how much later (left out: a node that was down or catching up after a restart).
	// A block that lost a race at first enters a cut only when its branch wins, so this is
	// propagation and fork resolution together. (A header's creation time is when its work was
	// made, not when its nonce was found, so it cannot serve as the start.)
	Latencies []time.Duration
}

// OrphanRate is Orphans / Recorded.
func (r *Report) OrphanRate() float64 {
	if r.Recorded == 0 {
		return 0
	}
	return float64(r.Orphans) / float64(r.Recorded)
}

// Latency returns the q-quantile of Latencies (0 when there are none).
func (r *Report) Latency(q float64) time.Duration {
	return quantile(r.Latencies, q)
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// Counters sums every node's counters.
func (r *Report) Counters() Counters {
	var c Counters
	for _, n := range r.Nodes {
		c.add(n.Counters)
	}
	return c
}

// Report reads every running node's cut and compares them depth heights below each chain's
// lowest tip, counts each miner's share of its cut, and sums what was recorded and counted.
// The counters of the nodes' current runs are read now.
func (nt *Net) Report(depth uint64) (*Report, error) {
	rep := &Report{Depth: depth}
	var running []*Node
	cuts := map[string]map[int]Head{}
	for _, n := range nt.Nodes() {
		if !n.Running() {
			continue
		}
		c, err := n.Cut()
		if err != nil {
			return nil, err
		}
		running, cuts[n.Name] = append(running, n), c
	}
	if len(running) == 0 {
		return nil, fmt.Errorf("no node runs")
	}
	histories := map[string]map[int][]*Block{}
	nt.mu.Lock()
	since := nt.since
	nt.mu.Unlock()
	for _, n := range running {
		nr := NodeReport{Name: n.Name, Mining: n.Mining}
		histories[n.Name] = map[int][]*Block{}
		for c, head := range cuts[n.Name] {
			hs, err := nt.history(n, c, head)
			if err != nil {
				return nil, fmt.Errorf("history of chain %d on %s: %w", c, n.Name, err)
			}
			histories[n.Name][c] = hs
			nr.CutHeight += head.Height
			for _, b := range hs {
				if b.Height <= since[c] {
					break // hs is head first
				}
				nr.Total++
				if b.Miner == n.Account() {
					nr.Own++
				}
			}
		}
		cs, err := n.Counters()
		if err != nil {
			return nil, err
		}
		n.mu.Lock()
		nr.Counters = n.counters
		n.mu.Unlock()
		nr.Counters.add(cs)
		rep.Nodes = append(rep.Nodes, nr)
	}
	// The block each node holds depth heights below each chain's lowest tip.
	ref := cuts[running[0].Name]
	for c := range ref {
		low := ^uint64(0)
		for _, n := range running {
			low = min(low, cuts[n.Name][c].Height)
		}
		if low <= depth {
			continue
		}
		at := low - depth
		var first string
		for i, n := range running {
			hs := histories[n.Name][c] // head first: the block at height h is hs[top-h]
			b := hs[cuts[n.Name][c].Height-at]
			if i == 0 {
				first = b.Hash
			} else if b.Hash != first {
				rep.Disagree = append(rep.Disagree, fmt.Sprintf("chain %d height %d: %s has %s, %s has %s",
					c, at, running[0].Name, first, n.Name, b.Hash))
				break
			}
		}
	}
	slices.Sort(rep.Disagree)
	// Orphans and latency, from the recording.
	if r := nt.recorder(); r != nil {
		final := map[string]bool{}
		for _, hs := range histories[running[0].Name] {
			for _, b := range hs {
				final[b.Hash] = true
			}
		}
		r.mu.Lock()
		for hash, arrivals := range r.arrived {
			b := r.blocks[hash]
			if b.Height == 0 || b.Height > ref[b.Chain].Height {
				continue
			}
			rep.Recorded++
			if !final[hash] {
				rep.Orphans++
			}
			first := time.Time{}
			for _, at := range arrivals {
				if first.IsZero() || at.Before(first) {
					first = at
				}
			}
			for node, at := range arrivals {
				if at.Equal(first) || r.wasDown(node, first) {
					continue
				}
				rep.Latencies = append(rep.Latencies, at.Sub(first))
			}
		}
		r.mu.Unlock()
	}
	return rep, nil
}

// wasDown reports whether node was down or catching up at t. The caller holds r.mu.
func (r *recorder) wasDown(node string, t time.Time) bool {
	for _, w := range r.down[node] {
		if !t.Before(w[0]) && t.Before(w[1]) {
			return true
		}
	}
	return false
}

// String is the report as a few lines of text.
func (r *Report) String() string {
	var b strings.Builder
	for _, n := range r.Nodes {
		role := "follower"
		if n.Mining {
			role = "miner"
		}
		fmt.Fprintf(&b, "%s (%s): cut height %d, own blocks %d of %d (%.1f%%); executions: validate %.0f, replay %.0f, reapply %.0f; "+
			"reorgs %.0f (deepest %.0f blocks); inserted %.0f, orphaned %.0f\n", n.Name, role, n.CutHeight, n.Own, n.Total,
			100*n.Share(), n.Counters.Validated, n.Counters.Replayed, n.Counters.Reapplied, n.Counters.Reorgs,
			n.Counters.DeepestReorg, n.Counters.Inserted, n.Counters.Orphaned)
	}
	c := r.Counters()
	perValidated := 0.0
	if c.Validated > 0 {
		perValidated = c.Replayed / c.Validated
	}
	fmt.Fprintf(&b, "replayed blocks per validated block: %.4f (%.0f / %.0f); deepest reorg %.0f blocks\n",
		perValidated, c.Replayed, c.Validated, c.DeepestReorg)
	fmt.Fprintf(&b, "orphan rate %.1f%% (%d of %d blocks that entered some cut)\n", 100*r.OrphanRate(), r.Orphans, r.Recorded)
	fmt.Fprintf(&b, "propagation latency (after the first node): p50 %v, p90 %v, p99 %v, max %v over %d arrivals\n",
		r.Latency(0.5).Round(time.Millisecond), r.Latency(0.9).Round(time.Millisecond), r.Latency(0.99).Round(time.Millisecond),
		r.Latency(1).Round(time.Millisecond), len(r.Latencies))
	if len(r.Disagree) == 0 {
		fmt.Fprintf(&b, "one network: every node holds the same block %d heights below each chain's lowest tip\n", r.Depth)
	} else {
		shown := r.Disagree[:min(3, len(r.Disagree))]
		fmt.Fprintf(&b, "NOT one network: %d chains differ %d heights below their lowest tip: %s", len(r.Disagree), r.Depth,
			strings.Join(shown, "; "))
		if len(r.Disagree) > len(shown) {
			fmt.Fprintf(&b, "; and %d more", len(r.Disagree)-len(shown))
		}
		b.WriteString("\n")
	}
	return b.String()
}
