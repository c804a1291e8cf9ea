package server

import (
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"

	"golang.org/x/crypto/blake2b"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/crypto"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// CommandResult JSON (spec §2.3), written in P5's key order: gas, result,
// reqKey, logs, events (omitted when there are none), metaData,
// continuation, txId. The continuation carries "contractId" beside
// "pactId", with the same value (DECISIONS.md, "continuation id field").

// outcome is what executing one command produced.
type outcome struct {
	gas int64
	// Exactly one of value and fail is set.
	value eval.Value
	fail  *pactError
	// logs are the committed writes; hasLogs is false for a failure.
	logs    []db.TxLog
	hasLogs bool
	events  []eval.Event
	pact    *eval.PactExec
	// txID is nil in Local mode and on failure.
	txID *db.TxID
}

// pactError is P5's PactOnChainError: {"callStack":[], "type", "message",
// "info"}.
type pactError struct {
	typ  string // SyntaxError, EvalError or TxFailure
	msg  string
	info string
}

// maxErrorMessage bounds error messages as P5's BoundedText does (256
// characters).
const maxErrorMessage = 256

// Error types of P5's pactErrorToOnChainError.
const (
	typeSyntax = "SyntaxError"
	typeEval   = "EvalError"
	typeTx     = "TxFailure"
)

// toPactError classifies an error: lexer and parser errors are
// SyntaxError, user-recoverable evaluation errors (enforce, keysets,
// capabilities, missing rows...) TxFailure, everything else EvalError.
// info is "<toplevel>:LINE" with P5's zero-based line of the error's
// position (0 when it has none).
func toPactError(err error) *pactError {
	var se *syntax.Error
	if errors.As(err, &se) {
		return &pactError{typ: typeSyntax, msg: se.Msg, info: topLevelInfo(se.Loc)}
	}
	var ee *eval.Error
	if errors.As(err, &ee) {
		t := typeEval
		if ee.Recoverable() {
			t = typeTx
		}
		info := topLevelInfo(syntax.Span{})
		if ee.Located {
			info = topLevelInfo(ee.Loc)
		}
		return &pactError{typ: t, msg: ee.Msg, info: info}
	}
	return &pactError{typ: typeEval, msg: err.Error(), info: topLevelInfo(syntax.Span{})}
}

func evalFailure(msg string) *pactError {
	return &pactError{typ: typeEval, msg: msg, info: topLevelInfo(syntax.Span{})}
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

// appendResult appends the CommandResult JSON of o for request key rk.
func appendResult(buf []byte, rk api.Hash, o *outcome) []byte {
	buf = append(buf, `{"gas":`...)
	buf = strconv.AppendInt(buf, o.gas, 10)
	buf = append(buf, `,"result":`...)
	if o.fail == nil {
		data, err := eval.AppendJSON(append(buf, `{"status":"success","data":`...), o.value)
		if err == nil {
			buf = append(data, '}')
		} else {
			// A value without a JSON form (a closure): P5 cannot
			// return one either.
			o.fail = evalFailure("result has no JSON encoding: " + err.Error())
			o.hasLogs, o.events, o.pact, o.txID = false, nil, nil, nil
		}
	}
	if o.fail != nil {
		buf = appendFailure(buf, o.fail)
	}
	buf = append(buf, `,"reqKey":"`...)
	buf = append(buf, rk.String()...)
	buf = append(buf, `","logs":`...)
	if o.hasLogs {
		buf = append(buf, '"')
		buf = append(buf, hashTxLogs(o.logs)...)
		buf = append(buf, '"')
	} else {
		buf = append(buf, "null"...)
	}
	if len(o.events) > 0 {
		buf = append(buf, `,"events":[`...)
		for i, ev := range o.events {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendEvent(buf, ev)
		}
		buf = append(buf, ']')
	}
	buf = append(buf, `,"metaData":null,"continuation":`...)
	if o.pact != nil {
		buf = appendPactExec(buf, o.pact, false)
	} else {
		buf = append(buf, "null"...)
	}
	buf = append(buf, `,"txId":`...)
	if o.txID != nil {
		buf = strconv.AppendUint(buf, uint64(*o.txID), 10)
	} else {
		buf = append(buf, "null"...)
	}
	return append(buf, '}')
}

func appendFailure(buf []byte, e *pactError) []byte {
	buf = append(buf, `{"status":"failure","error":{"callStack":[],"type":`...)
	buf = appendString(buf, e.typ)
	buf = append(buf, `,"message":`...)
	buf = appendString(buf, bounded(e.msg))
	buf = append(buf, `,"info":`...)
	buf = appendString(buf, e.info)
	return append(buf, "}}"...)
}

// appendString appends s as a JSON string (Pact's string encoding).
func appendString(buf []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // invalid bytes become U+FFFD
	}
	out, _ := eval.AppendJSON(buf, eval.String(s))
	return out
}

func appendValue(buf []byte, v eval.Value) []byte {
	out, err := eval.AppendJSON(buf, v)
	if err != nil {
		return append(buf, "null"...)
	}
	return out
}

func appendModuleName(buf []byte, m eval.ModuleName) []byte {
	buf = append(buf, `{"namespace":`...)
	if m.Namespace == "" {
		buf = append(buf, "null"...)
	} else {
		buf = appendString(buf, m.Namespace)
	}
	buf = append(buf, `,"name":`...)
	buf = appendString(buf, m.Name)
	return append(buf, '}')
}

// appendEvent appends {"params","name","module","moduleHash"}.
func appendEvent(buf []byte, ev eval.Event) []byte {
	buf = append(buf, `{"params":[`...)
	for i, a := range ev.Args {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendValue(buf, a)
	}
	buf = append(buf, `],"name":`...)
	buf = appendString(buf, ev.Name.Name)
	buf = append(buf, `,"module":`...)
	buf = appendModuleName(buf, ev.Name.Module)
	buf = append(buf, `,"moduleHash":`...)
	buf = appendString(buf, ev.ModuleHash)
	return append(buf, '}')
}

// appendPactExec appends P5's DefPactExec (nested: NestedDefPactExec,
// which has no stepHasRollback): {"nested"?, "executed": null, "pactId",
// "contractId", "stepHasRollback", "step", "yield", "continuation",
// "stepCount"}.
func appendPactExec(buf []byte, pe *eval.PactExec, nested bool) []byte {
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
			buf = appendString(buf, id)
			buf = append(buf, ':')
			buf = appendPactExec(buf, pe.Nested[id], true)
		}
		buf = append(buf, "},"...)
	}
	buf = append(buf, `"executed":null,"pactId":`...)
	buf = appendString(buf, pe.PactID)
	buf = append(buf, `,"contractId":`...)
	buf = appendString(buf, pe.PactID)
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
		buf = appendValue(buf, a)
	}
	buf = append(buf, `],"def":`...)
	buf = appendString(buf, defName(pe.Def))
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
		buf = appendValue(buf, y.Data)
	}
	buf = append(buf, `,"provenance":`...)
	if y.HasTarget {
		buf = append(buf, `{"targetChainId":`...)
		buf = appendString(buf, y.TargetChain)
		buf = append(buf, `,"moduleHash":`...)
		h := y.ModuleHash
		if h == "" && pe.Def != nil && pe.Def.Module != nil {
			h = pe.Def.Module.Hash
		}
		buf = appendString(buf, h)
		buf = append(buf, '}')
	} else {
		buf = append(buf, "null"...)
	}
	if y.SourceChain != "" {
		buf = append(buf, `,"source":`...)
		buf = appendString(buf, y.SourceChain)
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

// hashTxLogs is P5's hashTxLogs: BLAKE2b-256 of the concatenated
// "D" domain "K" key "V" value of every write, as unpadded base64url. The
// domain of a user row is its table ("mod_table"), of the others P5's
// names (SYS:KeySets, SYS:Modules, SYS:Namespaces, SYS:Pacts). User rows
// and keysets are written as Pact JSON; modules, namespaces and defpact
// states, which P5 stores as CBOR, as the JSON of systemValueJSON.
func hashTxLogs(logs []db.TxLog) string {
	h, _ := blake2b.New256(nil)
	var buf []byte
	for _, l := range logs {
		buf = append(buf[:0], 'D')
		if l.Domain == db.UserTable {
			buf = append(buf, l.Table...)
		} else {
			buf = append(buf, l.Domain.String()...)
		}
		buf = append(buf, 'K')
		buf = append(buf, l.Key...)
		buf = append(buf, 'V')
		buf = appendSystemValue(buf, l.Value)
		h.Write(buf)
	}
	return crypto.EncodeBase64URL(h.Sum(nil))
}

// appendSystemValue appends the JSON of a stored value: a Pact value as
// Pact JSON; a module as {"name", "hash", "interface"}; a namespace as
// {"name", "user", "admin"}; a defpact state as in a CommandResult (null
// once the defpact is done).
func appendSystemValue(buf []byte, v any) []byte {
	switch x := v.(type) {
	case eval.Value:
		return appendValue(buf, x)
	case *eval.Module:
		buf = append(buf, `{"name":`...)
		buf = appendModuleName(buf, x.Name)
		buf = append(buf, `,"hash":`...)
		buf = appendString(buf, x.Hash)
		buf = append(buf, `,"interface":`...)
		buf = strconv.AppendBool(buf, x.Interface)
		return append(buf, '}')
	case *eval.Namespace:
		buf = append(buf, `{"name":`...)
		buf = appendString(buf, x.Name)
		buf = append(buf, `,"user":`...)
		buf = appendValue(buf, x.User)
		buf = append(buf, `,"admin":`...)
		buf = appendValue(buf, x.Admin)
		return append(buf, '}')
	case *eval.PactExec:
		if x == nil {
			return append(buf, "null"...)
		}
		return appendPactExec(buf, x, false)
	}
	return append(buf, "null"...)
}
