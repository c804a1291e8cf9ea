package result

import (
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"

	"golang.org/x/crypto/blake2b"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Outcome is what executing one command produced.
type Outcome struct {
	Gas int64
	// Exactly one of Value and Fail is set.
	Value value.Value
	Fail  *Error
	// Logs are the committed writes; HasLogs is false for a failure.
	Logs    []db.TxLog
	HasLogs bool
	Events  []value.Event
	Pact    *eval.PactExec
	// TxID is nil in Local mode and on failure.
	TxID *db.TxID
	// MetaData is the raw JSON of the metaData field; nil writes null.
	MetaData []byte
}

// Error is P5's PactOnChainError: {"callStack":[], "type", "message",
// "info"}.
type Error struct {
	Type    string // SyntaxError, EvalError or TxFailure
	Message string
	Info    string
}

// Error makes an Error an error, its message being the failure's.
func (e *Error) Error() string { return e.Message }

// maxErrorMessage bounds error messages as P5's BoundedText does (256
// characters).
const maxErrorMessage = 256

// Error types of P5's pactErrorToOnChainError.
const (
	TypeSyntax = "SyntaxError"
	TypeEval   = "EvalError"
	TypeTx     = "TxFailure"
)

// ErrorOf classifies an error: lexer and parser errors are
// SyntaxError, user-recoverable evaluation errors (enforce, keysets,
// capabilities, missing rows...) TxFailure, everything else EvalError.
// info is "<toplevel>:LINE" with P5's zero-based line of the error's
// position (0 when it has none).
func ErrorOf(err error) *Error {
	var se *syntax.Error
	if errors.As(err, &se) {
		return &Error{Type: TypeSyntax, Message: se.Msg, Info: topLevelInfo(se.Loc)}
	}
	var ee *value.Error
	if errors.As(err, &ee) {
		t := TypeEval
		if ee.Recoverable() {
			t = TypeTx
		}
		info := topLevelInfo(syntax.Span{})
		if ee.Located {
			info = topLevelInfo(ee.Loc)
		}
		return &Error{Type: t, Message: ee.Msg, Info: info}
	}
	return &Error{Type: TypeEval, Message: err.Error(), Info: topLevelInfo(syntax.Span{})}
}

func EvalFailure(msg string) *Error {
	return &Error{Type: TypeEval, Message: msg, Info: topLevelInfo(syntax.Span{})}
}

func topLevelInfo(loc syntax.Span) string {
	line := 0
	if loc.Start.IsValid() {
		line = int(loc.Start.Line) - 1
	}
	return "<toplevel>:" + strconv.Itoa(line)
}

// bounded cuts s to maxErrorMessage characters.
func bounded(s string) string {
	if len(s) <= maxErrorMessage {
		return s
	}
	n := 0
	for i := range s {
		if n == maxErrorMessage {
			return s[:i]
		}
		n++
	}
	return s
}

// Append appends the CommandResult JSON of o for request key rk.
func Append(buf []byte, rk api.Hash, o *Outcome) []byte {
	buf = append(buf, `{"gas":`...)
	buf = strconv.AppendInt(buf, o.Gas, 10)
	buf = append(buf, `,"result":`...)
	if o.Fail == nil {
		data, err := value.AppendJSON(append(buf, `{"status":"success","data":`...), o.Value)
		if err == nil {
			buf = append(data, '}')
		} else {
			// A value without a JSON form (a closure): P5 cannot
			// return one either.
			o.Fail = EvalFailure("result has no JSON encoding: " + err.Error())
			o.HasLogs, o.Events, o.Pact, o.TxID = false, nil, nil, nil
		}
	}
	if o.Fail != nil {
		buf = appendFailure(buf, o.Fail)
	}
	buf = append(buf, `,"reqKey":"`...)
	buf = base64.RawURLEncoding.AppendEncode(buf, rk[:])
	buf = append(buf, `","logs":`...)
	if o.HasLogs {
		buf = append(buf, '"')
		buf = appendTxLogsHash(buf, o.Logs)
		buf = append(buf, '"')
	} else {
		buf = append(buf, "null"...)
	}
	if len(o.Events) > 0 {
		buf = append(buf, `,"events":[`...)
		for i, ev := range o.Events {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendEvent(buf, ev)
		}
		buf = append(buf, ']')
	}
	buf = append(buf, `,"metaData":`...)
	if o.MetaData != nil {
		buf = append(buf, o.MetaData...)
	} else {
		buf = append(buf, "null"...)
	}
	buf = append(buf, `,"continuation":`...)
	if o.Pact != nil {
		buf = AppendPactExec(buf, o.Pact, false)
	} else {
		buf = append(buf, "null"...)
	}
	buf = append(buf, `,"txId":`...)
	if o.TxID != nil {
		buf = strconv.AppendUint(buf, uint64(*o.TxID), 10)
	} else {
		buf = append(buf, "null"...)
	}
	return append(buf, '}')
}

func appendFailure(buf []byte, e *Error) []byte {
	buf = append(buf, `{"status":"failure","error":{"callStack":[],"type":`...)
	buf = AppendString(buf, e.Type)
	buf = append(buf, `,"message":`...)
	buf = AppendString(buf, bounded(e.Message))
	buf = append(buf, `,"info":`...)
	buf = AppendString(buf, e.Info)
	return append(buf, "}}"...)
}

// AppendString appends s as a JSON string (Pact's string encoding).
func AppendString(buf []byte, s string) []byte {
	if out, ok := jsontext.AppendPlain(buf, s); ok {
		// ASCII: valid, and nothing to escape.
		return out
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // invalid bytes become U+FFFD
	}
	// What AppendJSON writes for a String, without making s a Value.
	return jsontext.AppendString(buf, s)
}

func AppendValue(buf []byte, v value.Value) []byte {
	out, err := value.AppendJSON(buf, v)
	if err != nil {
		return append(buf, "null"...)
	}
	return out
}

func appendModuleName(buf []byte, m value.ModuleName) []byte {
	buf = append(buf, `{"namespace":`...)
	if m.Namespace == "" {
		buf = append(buf, "null"...)
	} else {
		buf = AppendString(buf, m.Namespace)
	}
	buf = append(buf, `,"name":`...)
	buf = AppendString(buf, m.Name)
	return append(buf, '}')
}

// AppendEvent appends {"params","name","module","moduleHash"}.
func AppendEvent(buf []byte, ev value.Event) []byte {
	buf = append(buf, `{"params":[`...)
	for i, a := range ev.Args {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendValue(buf, a)
	}
	buf = append(buf, `],"name":`...)
	buf = AppendString(buf, ev.Name.Name)
	buf = append(buf, `,"module":`...)
	buf = appendModuleName(buf, ev.Name.Module)
	buf = append(buf, `,"moduleHash":`...)
	buf = AppendString(buf, ev.ModuleHash)
	return append(buf, '}')
}

// AppendPactExec appends P5's DefPactExec (nested: NestedDefPactExec,
// which has no stepHasRollback): {"nested"?, "executed": null, "pactId",
// "contractId", "stepHasRollback", "step", "yield", "continuation",
// "stepCount"}.
func AppendPactExec(buf []byte, pe *eval.PactExec, nested bool) []byte {
	buf = append(buf, '{')
	if len(pe.Nested) > 0 {
		buf = append(buf, `"nested":{`...)
		ids := make([]string, 0, len(pe.Nested))
		for id := range pe.Nested {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for i, id := range ids {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendString(buf, id)
			buf = append(buf, ':')
			buf = AppendPactExec(buf, pe.Nested[id], true)
		}
		buf = append(buf, "},"...)
	}
	buf = append(buf, `"executed":null,"pactId":`...)
	buf = AppendString(buf, pe.PactID)
	buf = append(buf, `,"contractId":`...)
	buf = AppendString(buf, pe.PactID)
	if !nested {
		buf = append(buf, `,"stepHasRollback":`...)
		buf = strconv.AppendBool(buf, pe.StepHasRollback)
	}
	buf = append(buf, `,"step":`...)
	buf = strconv.AppendInt(buf, int64(pe.Step), 10)
	buf = append(buf, `,"yield":`...)
	buf = appendYield(buf, pe)
	buf = append(buf, `,"continuation":{"args":[`...)
	for i, a := range pe.Args {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendValue(buf, a)
	}
	buf = append(buf, `],"def":`...)
	buf = AppendString(buf, defName(pe.Def))
	buf = append(buf, `},"stepCount":`...)
	buf = strconv.AppendInt(buf, int64(pe.StepCount), 10)
	return append(buf, '}')
}

// appendYield appends {"data", "provenance", "source"?} or null. The
// provenance of a cross-chain yield names the target chain and the hash of
// the defpact's module.
func appendYield(buf []byte, pe *eval.PactExec) []byte {
	y := pe.Yield
	if y == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, `{"data":`...)
	if y.Data == nil {
		buf = append(buf, "{}"...)
	} else {
		buf = AppendValue(buf, y.Data)
	}
	buf = append(buf, `,"provenance":`...)
	if y.HasTarget {
		buf = append(buf, `{"targetChainId":`...)
		buf = AppendString(buf, y.TargetChain)
		buf = append(buf, `,"moduleHash":`...)
		h := y.ModuleHash
		if h == "" && pe.Def != nil && pe.Def.Module != nil {
			h = pe.Def.Module.Hash
		}
		buf = AppendString(buf, h)
		buf = append(buf, '}')
	} else {
		buf = append(buf, "null"...)
	}
	if y.SourceChain != "" {
		buf = append(buf, `,"source":`...)
		buf = AppendString(buf, y.SourceChain)
	}
	return append(buf, '}')
}

func defName(d *eval.Def) string {
	if d == nil {
		return ""
	}
	if d.Module == nil {
		return d.Name
	}
	return d.Module.Name.String() + "." + d.Name
}

// HashTxLogs is P5's HashTxLogs: BLAKE2b-256 of the concatenated
// "D" domain "K" key "V" value of every write, as unpadded base64url. The
// domain of a user row is its table ("mod_table"), of the others P5's
// names (SYS:KeySets, SYS:Modules, SYS:Namespaces, SYS:Pacts). User rows
// and keysets are written as Pact JSON; modules, namespaces and defpact
// states, which P5 stores as CBOR, as the JSON of systemValueJSON.
func HashTxLogs(logs []db.TxLog) string {
	return string(appendTxLogsHash(nil, logs))
}

// appendTxLogsHash appends HashTxLogs(logs) to buf. The writes are encoded
// past buf's end and hashed at once (hashing a stream of pieces is hashing
// their concatenation), then overwritten by the hash's text: no digest,
// sum or string is allocated.
func appendTxLogsHash(buf []byte, logs []db.TxLog) []byte {
	start := len(buf)
	for _, l := range logs {
		buf = append(buf, 'D')
		if l.Domain == db.UserTable {
			buf = append(buf, l.Table...)
		} else {
			buf = append(buf, l.Domain.String()...)
		}
		buf = append(buf, 'K')
		buf = append(buf, l.Key...)
		buf = append(buf, 'V')
		buf = appendSystemValue(buf, l.Value)
	}
	sum := blake2b.Sum256(buf[start:])
	return base64.RawURLEncoding.AppendEncode(buf[:start], sum[:])
}

// appendSystemValue appends the JSON of a stored value: a Pact value as
// Pact JSON; a module as {"name", "hash", "interface"}; a namespace as
// {"name", "user", "admin"}; a defpact state as in a CommandResult (null
// once the defpact is done).
func appendSystemValue(buf []byte, v any) []byte {
	switch x := v.(type) {
	case value.Value:
		return AppendValue(buf, x)
	case *eval.Module:
		buf = append(buf, `{"name":`...)
		buf = appendModuleName(buf, x.Name)
		buf = append(buf, `,"hash":`...)
		buf = AppendString(buf, x.Hash)
		buf = append(buf, `,"interface":`...)
		buf = strconv.AppendBool(buf, x.Interface)
		return append(buf, '}')
	case *eval.Namespace:
		buf = append(buf, `{"name":`...)
		buf = AppendString(buf, x.Name)
		buf = append(buf, `,"user":`...)
		buf = AppendValue(buf, x.User)
		buf = append(buf, `,"admin":`...)
		buf = AppendValue(buf, x.Admin)
		return append(buf, '}')
	case *eval.PactExec:
		if x == nil {
			return append(buf, "null"...)
		}
		return AppendPactExec(buf, x, false)
	}
	return append(buf, "null"...)
}
