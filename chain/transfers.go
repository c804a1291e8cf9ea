package chain

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/ledgernode/ledger-node/chain/state"
	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/ledger"
)

// The index of transfers by account, in the node's records (records.go): kept with each block
// like the request-key index, so a rewind (a fork) takes a block's transfers out with it and a
// restart finds them where the state is. Each account has a list, appended in block order:
//
//	"tc:" account              how many transfers the account has (u64 BE)
//	"te:" index (u64 BE) account  the account's transfer at index (JSON, Transfer)
//
// A transfer is a TRANSFER event with params (from string, to string, amount decimal) of any
// module (the coin contract and every fungible), or the coin contract's TRANSFER_XCHAIN (from,
// to, amount, target chain), of the coinbase or of a transaction. It is listed under its sender
// and its receiver (once when they are the same); an empty side (a mint, a burn) is not an
// account. The TRANSFER that credits a cross-chain transfer's receiver carries its source chain
// (from coin's TRANSFER_XCHAIN_RECD beside it), and both ends carry the pact id.
const (
	recTransferCount = "tc:"
	recTransferEntry = "te:"
)

// MaxAccountLen is the longest account name the index keeps (the coin contract's bound).
const MaxAccountLen = 256

// Transfer is one entry of the index.
type Transfer struct {
	Height     uint64 `json:"h"`
	BlockHash  string `json:"b"`
	RequestKey string `json:"r"`
	Module     string `json:"m"`
	From       string `json:"f"`
	To         string `json:"t"`
	Amount     string `json:"a"` // the decimal as Pact writes it
	// TargetChain is the target chain of a TRANSFER_XCHAIN, "" for a transfer within the chain.
	TargetChain string `json:"x,omitempty"`
	// SourceChain is the source chain of the credit that completes a cross-chain transfer (the
	// TRANSFER its command emits beside coin's TRANSFER_XCHAIN_RECD), "" for any other.
	SourceChain string `json:"sx,omitempty"`
	// PactID is the cross-chain transfer's pact (its first step's request key), on both ends:
	// the target chain's index of continuations (continuations.go) finds its last step by it.
	PactID string `json:"p,omitempty"`
	// Index is the entry's place in its account's list (not stored: the name holds it).
	Index uint64 `json:"-"`
}

// recordTransfers adds the transfers of payload p, block hash at height, to the index in view.
// Outputs that do not decode as command results hold no transfers.
func recordTransfers(view records, hash ledger.Hash, height uint64, p *ledger.PayloadWithOutputs) error {
	if p == nil {
		return nil
	}
	counts := map[string]uint64{} // the block's new counts, written at the end
	add := func(account string, t *Transfer) error {
		if account == "" || len(account) > MaxAccountLen {
			return nil
		}
		n, ok := counts[account]
		if !ok {
			var err error
			if n, err = TransferCount(view, account); err != nil {
				return err
			}
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		if err := view.PutMeta(transferEntryName(account, n), b); err != nil {
			return err
		}
		counts[account] = n + 1
		return nil
	}
	do := func(out []byte) error {
		for _, t := range transfersOf(out) {
			t.Height, t.BlockHash = height, hash.String()
			if err := add(t.From, &t); err != nil {
				return err
			}
			if t.To != t.From {
				if err := add(t.To, &t); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := do(p.Coinbase); err != nil {
		return err
	}
	for _, tx := range p.Transactions {
		if err := do(tx.Output); err != nil {
			return err
		}
	}
	var buf [8]byte
	for account, n := range counts {
		binary.BigEndian.PutUint64(buf[:], n)
		if err := view.PutMeta(recTransferCount+account, buf[:]); err != nil {
			return err
		}
	}
	return nil
}

func transferEntryName(account string, i uint64) string {
	var b [len(recTransferEntry) + 8]byte
	copy(b[:], recTransferEntry)
	binary.BigEndian.PutUint64(b[len(recTransferEntry):], i)
	return string(b[:]) + account
}

// outputEvents is what the index reads of a command result.
type outputEvents struct {
	ReqKey       string `json:"reqKey"`
	Continuation *struct {
		PactID string `json:"pactId"`
	} `json:"continuation"`
	Events []struct {
		Name   string            `json:"name"`
		Module json.RawMessage   `json:"module"`
		Params []json.RawMessage `json:"params"`
	} `json:"events"`
}

// transfersOf decodes the transfers among the events of the command result out.
func transfersOf(out []byte) []Transfer {
	if !bytes.Contains(out, []byte(`"TRANSFER`)) {
		return nil // most outputs: no need to decode them
	}
	var r outputEvents
	if json.Unmarshal(out, &r) != nil {
		return nil
	}
	var pactID string
	if r.Continuation != nil {
		pactID = r.Continuation.PactID
	}
	var ts []Transfer
	for _, ev := range r.Events {
		var xchain, received bool
		switch {
		case ev.Name == "TRANSFER" && len(ev.Params) == 3:
		case ev.Name == "TRANSFER_XCHAIN" && len(ev.Params) == 4:
			xchain = true
		case ev.Name == "TRANSFER_XCHAIN_RECD" && len(ev.Params) == 4:
			received = true
		default:
			continue
		}
		var mod struct {
			Namespace *string `json:"namespace"`
			Name      string  `json:"name"`
		}
		if json.Unmarshal(ev.Module, &mod) != nil {
			continue
		}
		module := mod.Name
		if mod.Namespace != nil && *mod.Namespace != "" {
			module = *mod.Namespace + "." + mod.Name
		}
		if (xchain || received) && module != "coin" {
			continue
		}
		var from, to string
		if json.Unmarshal(ev.Params[0], &from) != nil || json.Unmarshal(ev.Params[1], &to) != nil {
			continue
		}
		amount, ok := pactDecimal(ev.Params[2])
		if !ok {
			continue
		}
		if received {
			// Not a transfer of its own: it says where the credit before it (coin's TRANSFER
			// from "" of the same amount) came from.
			var source string
			if json.Unmarshal(ev.Params[3], &source) != nil {
				continue
			}
			for i := len(ts) - 1; i >= 0; i-- {
				if t := &ts[i]; t.Module == "coin" && t.From == "" && t.To == to && t.Amount == amount && t.TargetChain == "" {
					t.SourceChain, t.PactID = source, pactID
					break
				}
			}
			continue
		}
		t := Transfer{RequestKey: r.ReqKey, Module: module, From: from, To: to, Amount: amount}
		if xchain {
			var target string
			if json.Unmarshal(ev.Params[3], &target) != nil {
				continue
			}
			t.TargetChain, t.PactID = target, pactID
		}
		ts = append(ts, t)
	}
	return ts
}

// pactDecimal reads a decimal as Pact's JSON writes it: a number, or {"decimal":"…"} for one
// a double cannot hold (and {"int":…} for an integer amount, which a fungible may emit).
func pactDecimal(b json.RawMessage) (string, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "", false
	}
	if b[0] != '{' {
		var n json.Number
		if json.Unmarshal(b, &n) != nil {
			return "", false
		}
		return n.String(), true
	}
	var o struct {
		Decimal *string      `json:"decimal"`
		Int     *json.Number `json:"int"`
	}
	if json.Unmarshal(b, &o) != nil {
		return "", false
	}
	switch {
	case o.Decimal != nil:
		return *o.Decimal, true
	case o.Int != nil:
		return o.Int.String(), true
	}
	return "", false
}

// TransferCount reads how many transfers account has as of view.
func TransferCount(view records, account string) (uint64, error) {
	b, ok, err := view.Meta(recTransferCount + account)
	if err != nil || !ok {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: transfer count of %q", kv.ErrCorrupt, account)
	}
	return binary.BigEndian.Uint64(b), nil
}

// AccountTransfers reads up to n of account's transfers as of view, newest first, from the one
// below index below (math.MaxUint64: from the newest), read together (state.View.Metas).
func AccountTransfers(view *state.View, account string, below uint64, n int) ([]Transfer, error) {
	count, err := TransferCount(view, account)
	if err != nil {
		return nil, err
	}
	if below == math.MaxUint64 || below > count {
		below = count
	}
	if uint64(n) > below {
		n = int(below)
	}
	if n <= 0 {
		return nil, nil
	}
	names := make([]string, n)
	for i := range names {
		names[i] = transferEntryName(account, below-1-uint64(i))
	}
	bs, found, err := view.Metas(names)
	if err != nil {
		return nil, err
	}
	ts := make([]Transfer, n)
	for i, b := range bs {
		if !found[i] || json.Unmarshal(b, &ts[i]) != nil {
			return nil, fmt.Errorf("%w: transfer %d of %q", kv.ErrCorrupt, below-1-uint64(i), account)
		}
		ts[i].Index = below - 1 - uint64(i)
	}
	return ts, nil
}
