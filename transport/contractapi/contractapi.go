package contractapi

import (
	"errors"
	"fmt"

	"github.com/ledgernode/ledger-node/pact/api"
)

// PollOptions are poll's query parameters.
type PollOptions struct {
	// ConfirmationDepth is the number of blocks that must be mined on top
	// of a result before it counts. A server without blocks (pact -s)
	// accepts it and ignores it: every result it has is final.
	ConfirmationDepth uint64
}

// LocalOptions are local's query parameters.
type LocalOptions struct {
	// Preflight asks for a fully gassed simulation whose answer is
	// {"preflightResult": RESULT, "preflightWarnings": [...]}.
	Preflight bool
	// SignatureVerification false skips the hash and signature checks
	// (the payload must still decode). The default is true.
	SignatureVerification bool
	// RewindDepth runs the command that many blocks back. A server
	// without blocks accepts it and runs on its current state.
	RewindDepth uint64
}

// DefaultLocalOptions is what local does without query parameters.
var DefaultLocalOptions = LocalOptions{SignatureVerification: true}

// LocalResult is local's answer: the CommandResult JSON and the warnings
// execution produced (deprecated natives and the like), which preflight
// reports.
type LocalResult struct {
	Result   []byte
	Warnings []string
}

// Polled is one result poll found.
type Polled struct {
	Key    api.Hash
	Result []byte // the CommandResult JSON
}

// SPVRequest is the body of spv: the request key of a transaction on this
// chain and the chain its proof is for.
type SPVRequest struct {
	RequestKey    api.Hash
	TargetChainID string
}

// A RequestError rejects a request as the client's fault: the contract
// endpoints answer 400 with Msg as text/plain (interface.md: "Every 400
// response on these endpoints has text/plain content explaining why the
// command or request failed").
type RequestError struct {
	Msg string
}

func (e *RequestError) Error() string { return e.Msg }

// Reject makes a RequestError.
func Reject(format string, args ...any) error {
	return &RequestError{Msg: fmt.Sprintf(format, args...)}
}

// IsRequestError reports whether err is (or wraps) a RequestError, and
// returns it.
func IsRequestError(err error) (*RequestError, bool) {
	var r *RequestError
	ok := errors.As(err, &r)
	return r, ok
}

// ErrClosed is returned by an implementation that has been closed (pact -s's engine after
// Close): the endpoints answer 503.
var ErrClosed = errors.New("pact server: engine closed")
