package value

// Coercions of the read-* natives (P5 coreReadInteger, coreReadDecimal,
// readKeyset'), applied to a value found in the message data. The
// evaluator looks the key up and turns a false result into its
// "read-integer failure"-style error.

// ReadIntegerValue is read-integer's coercion: an integer as is, a decimal
// rounded (banker's), or a string holding an integer literal.
func ReadIntegerValue(v Value) (Integer, bool) {
	switch x := v.(type) {
	case Integer:
		return x, true
	case Decimal:
		return x.RoundTo(0, RoundHalfEven).mant, true
	case String:
		if n, err := ParseNumber(string(x)); err == nil {
			if i, ok := n.(Integer); ok {
				return i, true
			}
		}
	}
	return Integer{}, false
}

// ReadDecimalValue is read-decimal's coercion: a decimal as is, an integer
// with 0 places, or a string holding an integer or decimal literal.
func ReadDecimalValue(v Value) (Decimal, bool) {
	switch x := v.(type) {
	case Decimal:
		return x, true
	case Integer:
		return DecimalFromInt(x), true
	case String:
		switch n, _ := ParseNumber(string(x)); y := n.(type) {
		case Integer:
			return DecimalFromInt(y), true
		case Decimal:
			return y, true
		}
	}
	return Decimal{}, false
}

// ReadKeySetValue is read-keyset's coercion: a keyset, an object with a
// list of string "keys" and an optional string "pred" (keys-all by
// default; a built-in name or a function name), or a bare list of key
// strings (keys-all).
func ReadKeySetValue(v Value) (*KeySet, bool) {
	strs := func(l List) ([]string, bool) {
		out := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(String)
			if !ok {
				return nil, false
			}
			out[i] = string(s)
		}
		return out, true
	}
	switch x := v.(type) {
	case *KeySet:
		return x, true
	case List:
		if keys, ok := strs(x); ok {
			return NewKeySet(keys, KeysAll), true
		}
	case *Object:
		kv, ok := x.Get("keys")
		if !ok {
			return nil, false
		}
		kl, ok := kv.(List)
		if !ok {
			return nil, false
		}
		keys, ok := strs(kl)
		if !ok {
			return nil, false
		}
		pred := String(KeysAll)
		if pv, ok := x.Get("pred"); ok {
			if pred, ok = pv.(String); !ok {
				return nil, false
			}
		}
		p := string(pred)
		if p != KeysAll && p != KeysAny && p != Keys2 && !validPredName(p) {
			return nil, false
		}
		return NewKeySet(keys, p), true
	}
	return nil, false
}
