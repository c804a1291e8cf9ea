package chain

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// The index of continuations by pact id, in the node's records (records.go), kept with each
// block as the transfer index is: a fork rewinds it, a restart finds it. It answers "where on
// this chain was pact P continued", which is how the explorer links the first step of a
// cross-chain transfer (whose request key is the pact id) to the step that completed it on the
// target chain. Each pact id has a list, appended in block order:
//
//	"pc:" pact id (32 bytes)                how many continuations it has (u64 BE)
//	"pe:" pact id (32 bytes) index (u64 BE)  the continuation at index (JSON, Continuation)
//
// A continuation is a command whose payload is {"cont": {"pactId": …}}, whatever its result
// (a failed attempt is listed too, with OK false). A pact id that is not a 32-byte hash names
// no pact a chain could have started, and is not listed.
const (
	recContinuationCount = "pc:"
	recContinuationEntry = "pe:"
)

// Continuation is one entry of the index of continuations.
type Continuation struct {
	Height     uint64 `json:"h"`
	BlockHash  string `json:"b"`
	RequestKey string `json:"r"`
	Step       int64  `json:"s"`
	Rollback   bool   `json:"rb,omitempty"`
	// OK says whether the command succeeded.
	OK bool `json:"ok"`
	// Index is the entry's place in its pact's list (not stored: the name holds it).
	Index uint64 `json:"-"`
}

// recordContinuations adds the continuations of payload p, block hash at height, to the
// index in view.
func recordContinuations(view records, hash ledger.Hash, height uint64, p *ledger.PayloadWithOutputs) error {
	if p == nil {
		return nil
	}
	counts := map[api.Hash]uint64{} // the block's new counts, written at the end
	for _, tx := range p.Transactions {
		pact, c, ok := continuationOf(tx.Tx, tx.Output)
		if !ok {
			continue
		}
		c.Height, c.BlockHash = height, hash.String()
		n, seen := counts[pact]
		if !seen {
			var err error
			if n, err = ContinuationCount(view, pact); err != nil {
				return err
			}
		}
		b, err := json.Marshal(&c)
		if err != nil {
			return err
		}
		if err := view.PutMeta(continuationEntryName(pact, n), b); err != nil {
			return err
		}
		counts[pact] = n + 1
	}
	var buf [8]byte
	for pact, n := range counts {
		binary.BigEndian.PutUint64(buf[:], n)
		if err := view.PutMeta(recContinuationCount+string(pact[:]), buf[:]); err != nil {
			return err
		}
	}
	return nil
}

func continuationEntryName(pact api.Hash, i uint64) string {
	var b [len(recContinuationEntry) + len(api.Hash{}) + 8]byte
	n := copy(b[:], recContinuationEntry)
	n += copy(b[n:], pact[:])
	binary.BigEndian.PutUint64(b[n:], i)
	return string(b[:])
}

// continuationOf reads the pact id, step and rollback of the command tx (a payload's
// transaction: the command's JSON) and its result's request key and status from out. ok is
// false for a command that is not a continuation of a pact a chain could have started, or that
// does not decode.
func continuationOf(tx, out []byte) (pact api.Hash, c Continuation, ok bool) {
	// The key "cont" is in the cmd string, escaped or not: skip the commands without it (most),
	// unless an escape could spell it.
	if !bytes.Contains(tx, []byte("cont")) && !bytes.Contains(tx, []byte(`\u`)) {
		return pact, c, false
	}
	var outer struct {
		Cmd string `json:"cmd"`
	}
	if json.Unmarshal(tx, &outer) != nil {
		return pact, c, false
	}
	var cmd struct {
		Payload struct {
			Cont *struct {
				PactID   string `json:"pactId"`
				Step     int64  `json:"step"`
				Rollback bool   `json:"rollback"`
			} `json:"cont"`
		} `json:"payload"`
	}
	if json.Unmarshal([]byte(outer.Cmd), &cmd) != nil || cmd.Payload.Cont == nil {
		return pact, c, false
	}
	pact, err := api.ParseHash(cmd.Payload.Cont.PactID)
	if err != nil {
		return pact, c, false
	}
	var res struct {
		ReqKey string `json:"reqKey"`
		Result struct {
			Status string `json:"status"`
		} `json:"result"`
	}
	if json.Unmarshal(out, &res) != nil {
		return pact, c, false
	}
	if res.ReqKey == "" {
		res.ReqKey = api.RequestKey(outer.Cmd)
	}
	return pact, Continuation{RequestKey: res.ReqKey, Step: cmd.Payload.Cont.Step, Rollback: cmd.Payload.Cont.Rollback,
		OK: res.Result.Status == "success"}, true
}

// ContinuationCount reads how many continuations of pact the index holds as of view.
func ContinuationCount(view records, pact api.Hash) (uint64, error) {
	b, ok, err := view.Meta(recContinuationCount + string(pact[:]))
	if err != nil || !ok {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: continuation count of pact %s", kv.ErrCorrupt, pact)
	}
	return binary.BigEndian.Uint64(b), nil
}

// PactContinuations reads up to n of pact's continuations as of view, oldest first, from the
// one at index from; more says whether there are more after them.
func PactContinuations(view *state.View, pact api.Hash, from uint64, n int) (cs []Continuation, more bool, err error) {
	count, err := ContinuationCount(view, pact)
	if err != nil || from >= count || n <= 0 {
		return nil, false, err
	}
	end := count
	if uint64(n) < count-from {
		end = from + uint64(n)
	}
	names := make([]string, 0, end-from)
	for i := from; i < end; i++ {
		names = append(names, continuationEntryName(pact, i))
	}
	bs, found, err := view.Metas(names)
	if err != nil {
		return nil, false, err
	}
	cs = make([]Continuation, len(bs))
	for i, b := range bs {
		if !found[i] || json.Unmarshal(b, &cs[i]) != nil {
			return nil, false, fmt.Errorf("%w: continuation %d of pact %s", kv.ErrCorrupt, from+uint64(i), pact)
		}
		cs[i].Index = from + uint64(i)
	}
	return cs, end < count, nil
}
