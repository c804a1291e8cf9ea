package api

import (
	"errors"
	"fmt"
	"strconv"
)

// A FieldError is a decoding failure: which field (a path such as
// "signers[0].clist[1].name"; empty for the document itself), where (the
// YAML line, 0 for JSON) and what was wrong.
type FieldError struct {
	Path string
	Line int
	Msg  string
}

func (e *FieldError) Error() string {
	s := e.Msg
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	if e.Line > 0 {
		s = "line " + strconv.Itoa(e.Line) + ": " + s
	}
	return s
}

func errAt(n *node, path, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.line
	}
	return &FieldError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func want(n *node, k kind, path string) error {
	if n.kind == k {
		return nil
	}
	return errAt(n, path, "expected %s, got %s", k, n.describe())
}

// object checks that n is an object and, when strict, that no key repeats.
func object(n *node, path string, strict bool) error {
	if err := want(n, kObject, path); err != nil {
		return err
	}
	if strict {
		if k, dup := n.firstDuplicate(); dup {
			return errAt(n, join(path, k), "the key appears more than once")
		}
	}
	return nil
}

func required(obj *node, key, path string) (*node, error) {
	v, ok := obj.get(key)
	if !ok {
		return nil, errAt(obj, join(path, key), "missing")
	}
	return v, nil
}

func requiredString(obj *node, key, path string) (string, error) {
	v, err := required(obj, key, path)
	if err != nil {
		return "", err
	}
	if err := want(v, kString, join(path, key)); err != nil {
		return "", err
	}
	return v.str, nil
}

// optString is .:? for a string: missing and null are absent.
func optString(obj *node, key, path string) (*string, error) {
	v, ok := obj.opt(key)
	if !ok {
		return nil, nil
	}
	if err := want(v, kString, join(path, key)); err != nil {
		return nil, err
	}
	s := v.str
	return &s, nil
}

func optBool(obj *node, key, path string) (*bool, error) {
	v, ok := obj.opt(key)
	if !ok {
		return nil, nil
	}
	if err := want(v, kBool, join(path, key)); err != nil {
		return nil, err
	}
	b := v.b
	return &b, nil
}

func array(n *node, path string) ([]*node, error) {
	if err := want(n, kArray, path); err != nil {
		return nil, err
	}
	return n.elems, nil
}

// A CommandError is a command that fails verification. Error() is P5's
// text: "Invalid command: " and the reason.
type CommandError struct {
	Reason string
}

func (e *CommandError) Error() string { return "Invalid command: " + e.Reason }

func invalid(format string, args ...any) error {
	return &CommandError{Reason: fmt.Sprintf(format, args...)}
}

// A VerificationError is a SigData whose signatures or command do not
// verify: add-sig and combine-sigs print "Command verification failed!"
// and Reason on standard error.
type VerificationError struct {
	Reason string
}

func (e *VerificationError) Error() string { return "Command verification failed!\n" + e.Reason }

// IsVerificationError reports whether err is (or wraps) a
// VerificationError.
func IsVerificationError(err error) bool {
	var v *VerificationError
	return errors.As(err, &v)
}
