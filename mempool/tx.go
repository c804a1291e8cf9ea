package mempool

import (
	"math"

	"github.com/ledgernode/ledger-node/pact/api"
)

// A Tx is a submitted command with its payload decoded. Its request key is the command's
// hash as sent (RequestKey); Precheck fills Code (the parsed exec code) and HashAlg. A Tx is
// not changed after it is inserted into a Pool, and may then be shared between goroutines.
type Tx struct {
	api.ParsedCommand
	// Meta is Payload.Meta.Public, never nil.
	Meta *api.PublicMeta
}

// Key returns the transaction's request key.
func (t *Tx) Key() api.Hash { return t.RequestKey }

// A DecodeError is a command whose cmd string is not a payload /send accepts. Its text is
// upstream's "reading JSON for transaction failed: <reason>" (chainweb-api.md §6.2); /send
// answers it with 400 before any check runs.
type DecodeError struct {
	Index  int // position of the command in the batch
	Reason string
}

func (e *DecodeError) Error() string { return api.SendDecodeFailed(e.Reason) }

// Decode decodes every command's payload, as /send does before the checks. The first command
// whose payload does not decode, or that carries private metadata (DECISIONS.md, `private`:
// such commands go to /private), fails the whole batch with a *DecodeError.
func Decode(cmds []*api.Command) ([]*Tx, error) {
	txs := make([]*Tx, len(cmds))
	for i, c := range cmds {
		if c == nil {
			return nil, &DecodeError{Index: i, Reason: "missing command"}
		}
		p, err := api.DecodePayload([]byte(c.Cmd))
		if err != nil {
			return nil, &DecodeError{Index: i, Reason: err.Error()}
		}
		if p.Meta.Public == nil {
			return nil, &DecodeError{Index: i, Reason: api.ReasonPrivateOnSend}
		}
		txs[i] = &Tx{ParsedCommand: api.ParsedCommand{Command: c, Payload: p, RequestKey: c.Hash}, Meta: p.Meta.Public}
	}
	return txs, nil
}

// expiry is when a transaction expires, in microseconds since the Unix epoch: its creation
// time plus its TTL, the TTL capped at maxTTL+1 seconds as upstream caps it (so a TTL beyond
// the limit still gets a finite expiry; step 8 rejects it).
func expiry(m *api.PublicMeta, maxTTL int64) int64 {
	return secondsToMicros(satAdd(m.CreationTime, min(m.TTL, maxTTL+1)))
}

// secondsToMicros converts, saturating at the int64 range (upstream's Int64 wraps; a
// saturated time only ever compares as "very far").
func secondsToMicros(s int64) int64 {
	switch {
	case s > math.MaxInt64/1_000_000:
		return math.MaxInt64
	case s < math.MinInt64/1_000_000:
		return math.MinInt64
	}
	return s * 1_000_000
}

// satAdd adds, saturating at the int64 range.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}
