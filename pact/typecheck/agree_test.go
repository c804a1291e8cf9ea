package typecheck

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// sample is a value of a type, written as Pact.
type sample struct {
	t   *ty
	src string
}

var samples = []sample{
	{tInt, "2"},
	{tDec, "2.5"},
	{tStr, `"a"`},
	{tBool, "true"},
	{tTime, `(time "2020-01-01T00:00:00Z")`},
	{tGuard, `(create-user-guard (agree.always))`},
	{listOf(tInt), "[1 2]"},
	{listOf(tStr), `["a"]`},
	{objectOf(&row{names: []string{"a"}, types: []*ty{tInt}}), `{"a": 1}`},
}

// agreementSkip are the natives the sampled values cannot judge: they
// change the environment, read it, or need a capability, a table or a
// function argument, which the samples do not include.
var agreementSkip = map[string]bool{
	"define-keyset": true, "define-namespace": true, "namespace": true, "describe-namespace": true,
	"read-msg": true, "read-keyset": true, "read-decimal": true, "read-integer": true, "read-string": true,
	"tx-hash": true, "pact-id": true, "yield": true, "continue": true, "describe-keyset": true,
	"enforce-guard": true, "enforce-keyset": true, "create-module-guard": true, "create-pact-guard": true,
}

// TestSignaturesAgreeWithRuntime holds the signature table to the
// interpreter: for every native whose parameters are plain values, every
// combination of sampled argument types is given to both. Where the
// checker refuses a call, the interpreter must refuse it as a type error
// (else the checker would report code that runs); where the checker
// accepts, the interpreter must not refuse it as one (else the table
// would miss an error it could see).
func TestSignaturesAgreeWithRuntime(t *testing.T) {
	in := eval.New(db.NewMemDB())
	if err := evalSource(in, `(module agree g (defcap g () true) (defun always () true))`); err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if err := evalSource(in, s.src); err != nil {
			t.Fatalf("sample %s: %v", s.src, err)
		}
	}
	names := make([]string, 0, len(nativeSigs))
	for n := range nativeSigs {
		names = append(names, n)
	}
	sort.Strings(names)
	calls, natives := 0, 0
	for _, name := range names {
		alts := nativeSigs[name]
		if agreementSkip[name] || !plainValues(alts) {
			continue
		}
		natives++
		var arities []int
		for _, s := range alts {
			if !slices.Contains(arities, len(s.params)) {
				arities = append(arities, len(s.params))
			}
		}
		for _, n := range arities {
			if n == 0 {
				continue
			}
			for _, combo := range combos(n) {
				calls++
				args := make([]*ty, n)
				srcs := make([]string, n)
				for i, k := range combo {
					args[i], srcs[i] = samples[k].t, samples[k].src
				}
				checkerOK := accepts(alts, args)
				src := "(" + name + " " + strings.Join(srcs, " ") + ")"
				err := evalSource(in, src)
				var e *value.Error
				runtimeRefused := errors.As(err, &e) && e.Kind == value.ErrArgs
				if !checkerOK && !runtimeRefused {
					t.Errorf("%s: the checker refuses it, the interpreter runs it (%v)", src, err)
				}
				if checkerOK && runtimeRefused {
					t.Errorf("%s: the checker accepts it, the interpreter refuses it: %v", src, err)
				}
			}
		}
	}
	if natives < 60 {
		t.Fatalf("only %d natives sampled", natives)
	}
	t.Logf("%d calls of %d natives agree", calls, natives)
}

// plainValues says whether every parameter of every alternative is a
// value a sample can stand for.
func plainValues(alts []sig) bool {
	var plain func(t *ty) bool
	plain = func(t *ty) bool {
		switch t.kind {
		case kFun, kTable, kCapToken:
			return false
		case kList:
			return t.elem == nil || plain(t.elem)
		}
		return true
	}
	for _, s := range alts {
		for _, p := range s.params {
			if !plain(p) {
				return false
			}
		}
	}
	return true
}

// accepts is the checker's verdict on a call with arguments of these
// types.
func accepts(alts []sig, args []*ty) bool {
	for _, s := range alts {
		if len(s.params) != len(args) {
			continue
		}
		if v, _ := s.call(args); v != mismatch {
			return true
		}
	}
	return false
}

// combos is every choice of n samples.
func combos(n int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, rest := range combos(n - 1) {
		for k := range samples {
			out = append(out, append(slices.Clone(rest), k))
		}
	}
	return out
}

func TestSignaturesParse(t *testing.T) {
	for name, alts := range signatures {
		for _, a := range alts {
			if _, err := parseSig(a); err != nil {
				t.Errorf("%s %q: %v", name, a, err)
			}
		}
	}
	for _, bad := range []string{"integer", "integer -> ", "[integer -> integer", "(a -> b -> c", "foo -> bar"} {
		if _, err := parseSig(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// evalSource evaluates a REPL program's forms.
func evalSource(in *eval.Interp, src string) error {
	f, err := syntax.ParseRepl("agree", src)
	if err != nil {
		return err
	}
	for _, item := range f.Items {
		if _, err := in.EvalTopLevel(item, true); err != nil {
			return err
		}
	}
	return nil
}

// TestSignatureArities holds each native's alternatives to the argument
// counts the interpreter takes: none outside them, and every count it
// takes has an alternative (else a call of that count would be called
// wrong).
func TestSignatureArities(t *testing.T) {
	in := eval.New(db.NewMemDB())
	for name, alts := range nativeSigs {
		n := in.Native(name)
		if n == nil {
			t.Errorf("%s: no such native", name)
			continue
		}
		have := map[int]bool{}
		for _, s := range alts {
			k := len(s.params)
			have[k] = true
			if k < n.Min || (n.Max >= 0 && k > n.Max) {
				t.Errorf("%s: an alternative of %d parameters; it takes %d to %d", name, k, n.Min, n.Max)
			}
		}
		if n.Max < 0 {
			t.Errorf("%s: takes any number of arguments; the table cannot say", name)
			continue
		}
		for k := n.Min; k <= n.Max; k++ {
			if !have[k] {
				t.Errorf("%s: no alternative of %d parameters", name, k)
			}
		}
	}
}
