package httpkit

import (
	"bytes"
	"strconv"

	"github.com/valyala/fasthttp"
)

// ParamError is a query parameter that does not parse; it becomes servant's 400
// "Error parsing query parameter NAME failed: REASON".
type ParamError struct {
	Name, Reason string
}

func (e *ParamError) Error() string {
	return "Error parsing query parameter " + e.Name + " failed: " + e.Reason
}

// Write sends the 400.
func (e *ParamError) Write(ctx *fasthttp.RequestCtx) { BadQueryParam(ctx, e.Name, e.Reason) }

// ParseUint parses a non-negative decimal integer without allocating. overflow is set (with
// ok false) for a well-formed number above 2^64-1, so callers that clamp can accept it.
func ParseUint(b []byte) (v uint64, ok, overflow bool) {
	if len(b) == 0 {
		return 0, false, false
	}
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false, false
		}
		n := v*10 + uint64(d-'0')
		if v > (1<<64-1)/10 || n < v*10 {
			overflow = true
		}
		v = n
	}
	if overflow {
		return 0, false, true
	}
	return v, true, false
}

// UintReason explains why a value is not a non-negative integer.
func UintReason(b []byte, overflow bool) string {
	if overflow {
		return "number out of range: " + strconv.Quote(string(b))
	}
	return "not a non-negative integer: " + strconv.Quote(string(b))
}

// OptUint reads an optional non-negative integer parameter.
func OptUint(args *fasthttp.Args, name string) (v uint64, present bool, err *ParamError) {
	b := args.Peek(name)
	if b == nil {
		return 0, false, nil
	}
	v, ok, overflow := ParseUint(b)
	if !ok {
		return 0, true, &ParamError{name, UintReason(b, overflow)}
	}
	return v, true, nil
}

// OptBool reads an optional boolean parameter: true or false (any case); a parameter given
// without a value is true.
func OptBool(args *fasthttp.Args, name string, def bool) (bool, *ParamError) {
	if !args.Has(name) {
		return def, nil
	}
	v := args.Peek(name)
	switch {
	case len(v) == 0, bytes.EqualFold(v, []byte("true")):
		return true, nil
	case bytes.EqualFold(v, []byte("false")):
		return false, nil
	}
	return false, &ParamError{name, "not a boolean (true or false): " + strconv.Quote(string(v))}
}
