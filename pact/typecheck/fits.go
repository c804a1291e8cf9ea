package typecheck

import (
	"slices"
)

// verdict is what a check concluded.
type verdict uint8

const (
	fitsOK verdict = iota
	// undecided: the value's type is not known well enough to tell.
	undecided
	// mismatch: a value of that type fails the check at run time.
	mismatch
)

// worse is the worse of two verdicts.
func worse(a, b verdict) verdict { return max(a, b) }

// fits says whether a value of type actual passes the run-time check of
// type expected (a declared parameter, result, schema field), and if not,
// why. partial is update's check: the object may leave fields out.
func fits(actual, expected *ty, partial bool) (verdict, string) {
	switch expected.kind {
	case kAny, kNever, kUnion, kVar, kParam:
		return fitsOK, ""
	}
	switch actual.kind {
	case kNever, kParam:
		return fitsOK, ""
	case kAny, kVar:
		return undecided, ""
	case kUnion:
		v, why := fitsOK, ""
		for _, a := range actual.alts {
			va, w := fits(a, expected, partial)
			if va > v {
				v, why = va, w
			}
		}
		if v == mismatch && why == "" {
			why = "it may be " + actual.String()
		}
		return v, why
	}
	if actual.kind != expected.kind {
		return mismatch, ""
	}
	switch expected.kind {
	case kList:
		if expected.elem == nil {
			return fitsOK, ""
		}
		if actual.elem == nil {
			return undecided, ""
		}
		v, why := fits(actual.elem, expected.elem, false)
		if v == mismatch && why == "" && actual.elem.kind == kUnion {
			why = "its elements are " + actual.elem.String()
		}
		return v, why
	case kObject, kTable:
		if expected.row == nil {
			return fitsOK, ""
		}
		if actual.row == nil {
			return undecided, ""
		}
		return fitsRow(actual.row, expected.row, partial)
	case kModRef:
		for _, want := range expected.ifaces {
			if !slices.Contains(actual.ifaces, want) {
				if actual.module != nil {
					return mismatch, "module " + actual.module.String() + " does not implement " + want.String()
				}
				return undecided, ""
			}
		}
		return fitsOK, ""
	}
	return fitsOK, ""
}

// fitsRow checks an object's fields against a schema's.
func fitsRow(actual, expected *row, partial bool) (verdict, string) {
	v := fitsOK
	for i, name := range actual.names {
		want, ok := expected.field(name)
		if !ok {
			return mismatch, "field " + name + " is not in the schema"
		}
		fv, why := fits(actual.types[i], want, false)
		if fv == mismatch {
			if why == "" {
				why = actual.types[i].String() + ", expected " + want.String()
			}
			return mismatch, "field " + name + " is " + why
		}
		v = worse(v, fv)
	}
	if !partial {
		for _, name := range expected.names {
			if _, ok := actual.field(name); !ok {
				return mismatch, "field " + name + " is missing"
			}
		}
	}
	return v, ""
}

// bindings are the variables of one native call's signature.
type bindings []*ty

// match checks an argument of type actual against a signature's type sig,
// binding sig's variables; it decides less than fits where the signature
// is generic, never more.
func match(actual, sig *ty, b bindings) verdict {
	if sig.kind == kVar {
		if bound := b[sig.v]; bound != nil {
			// Nothing checks a variable at run time: two arguments that
			// bind it differently (fold's start and its function's result)
			// run, and fail or not by what is done with them later.
			if v, _ := fits(actual, bound, false); v == fitsOK {
				return fitsOK
			}
			return undecided
		}
		switch actual.kind {
		case kAny, kVar:
			return undecided
		case kNever, kParam:
			return fitsOK
		}
		b[sig.v] = actual
		return fitsOK
	}
	switch actual.kind {
	case kAny, kVar:
		return undecided
	case kNever, kParam:
		return fitsOK
	case kUnion:
		v := fitsOK
		for _, a := range actual.alts {
			v = worse(v, match(a, sig, b))
		}
		return v
	}
	switch sig.kind {
	case kList:
		if actual.kind != kList {
			return mismatch
		}
		if sig.elem == nil {
			return fitsOK
		}
		if actual.elem == nil {
			return undecided
		}
		return match(actual.elem, sig.elem, b)
	case kFun:
		if actual.kind != kFun {
			return mismatch
		}
		if actual.unknown || len(actual.params) != len(sig.params) {
			// Its result may still say what a variable is.
			return undecided
		}
		v := fitsOK
		for i, p := range sig.params {
			// A parameter that takes anything takes what the signature
			// passes it.
			if ap := actual.params[i]; ap.kind != kAny && ap.kind != kParam {
				v = worse(v, match(ap, p, b))
			}
		}
		return worse(v, match(actual.result, sig.result, b))
	}
	v, _ := fits(actual, sig, false)
	return v
}

// subst is t with its variables replaced by what they were bound to, or
// by unknown.
func subst(t *ty, b bindings) *ty {
	switch t.kind {
	case kVar:
		if bound := b[t.v]; bound != nil {
			return bound
		}
		return tAny
	case kList:
		if t.elem == nil {
			return t
		}
		return listOf(subst(t.elem, b))
	case kFun:
		if t.unknown {
			return t
		}
		ps := make([]*ty, len(t.params))
		for i, p := range t.params {
			ps[i] = subst(p, b)
		}
		return &ty{kind: kFun, params: ps, result: subst(t.result, b)}
	}
	return t
}
