package value

import (
	"strconv"

	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/keyorder"
)

// JSON encoding of values as P5's StableEncoding writes it (spec §2.6). The
// output is compact (no spaces) because the `hash` native hashes exactly
// these bytes. Objects coming from Pact objects use the legacy key order;
// the fixed-shape objects (guards, integers, times...) use the field order
// of P5's encoders.

// maxSafeInteger is 2^53-1, JavaScript's largest exactly representable
// integer; integers and decimal mantissas beyond it are written as strings.
const maxSafeInteger = 1<<53 - 1

// EncodeJSON returns the compact JSON encoding of v.
func EncodeJSON(v Value) ([]byte, error) {
	return AppendJSON(nil, v)
}

// AppendJSON appends the compact JSON encoding of v to buf. Closures have
// no encoding and are an error.
func AppendJSON(buf []byte, v Value) ([]byte, error) {
	switch x := v.(type) {
	case String:
		return jsontext.AppendString(buf, string(x)), nil
	case Bool:
		return strconv.AppendBool(buf, bool(x)), nil
	case Unit:
		return append(buf, "null"...), nil
	case Integer:
		return appendJSONInteger(buf, x), nil
	case Decimal:
		return appendJSONDecimal(buf, x), nil
	case Time:
		if x.micros%1000 == 0 {
			// P5 tests divisibility by 1000, not 1000000 (a bug kept for
			// mainnet replay): whole milliseconds print truncated to the
			// second.
			buf = append(buf, `{"time":`...)
			buf = jsontext.AppendString(buf, FormatTime(ISO8601, x))
		} else {
			buf = append(buf, `{"timep":`...)
			buf = jsontext.AppendString(buf, FormatTime(isoHighPrec, x))
		}
		return append(buf, '}'), nil
	case List:
		return appendJSONList(buf, x)
	case *Object:
		buf = append(buf, '{')
		var order [8]int // the object's keys in Pact's order: most have a few
		for n, i := range keyorder.LegacyIndexInto(x.keys, order[:0]) {
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = jsontext.AppendString(buf, x.keys[i])
			buf = append(buf, ':')
			var err error
			if buf, err = AppendJSON(buf, x.vals[i]); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	case *KeySet:
		buf = append(buf, `{"pred":`...)
		buf = jsontext.AppendString(buf, x.Pred)
		buf = append(buf, `,"keys":[`...)
		for i, k := range x.Keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = jsontext.AppendString(buf, k)
		}
		return append(buf, "]}"...), nil
	case *KeySetRef:
		buf = append(buf, `{"keysetref":`...)
		if x.Namespace == "" {
			buf = jsontext.AppendString(buf, x.Name)
		} else {
			buf = append(buf, `{"ns":`...)
			buf = jsontext.AppendString(buf, x.Namespace)
			buf = append(buf, `,"ksn":`...)
			buf = jsontext.AppendString(buf, x.Name)
			buf = append(buf, '}')
		}
		return append(buf, '}'), nil
	case *UserGuard:
		buf = append(buf, `{"args":`...)
		buf, err := appendJSONList(buf, x.Args)
		if err != nil {
			return nil, err
		}
		buf = append(buf, `,"fun":`...)
		buf = jsontext.AppendString(buf, x.Fun.String())
		return append(buf, '}'), nil
	case *CapabilityGuard:
		buf = append(buf, `{"cgPactId":`...)
		if x.HasPactID {
			buf = jsontext.AppendString(buf, x.PactID)
		} else {
			buf = append(buf, "null"...)
		}
		buf = append(buf, `,"cgArgs":`...)
		buf, err := appendJSONList(buf, x.Args)
		if err != nil {
			return nil, err
		}
		buf = append(buf, `,"cgName":`...)
		buf = jsontext.AppendString(buf, x.Name.String())
		return append(buf, '}'), nil
	case *ModuleGuard:
		buf = append(buf, `{"moduleName":`...)
		buf = appendJSONModuleName(buf, x.Module)
		buf = append(buf, `,"name":`...)
		buf = jsontext.AppendString(buf, x.Name)
		return append(buf, '}'), nil
	case *PactGuard:
		buf = append(buf, `{"pactId":`...)
		buf = jsontext.AppendString(buf, x.PactID)
		buf = append(buf, `,"name":`...)
		buf = jsontext.AppendString(buf, x.Name)
		return append(buf, '}'), nil
	case *ModRef:
		buf = append(buf, `{"refSpec":[`...)
		for i, m := range x.Implemented {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONModuleName(buf, m)
		}
		buf = append(buf, `],"refName":`...)
		buf = appendJSONModuleName(buf, x.Module)
		return append(buf, '}'), nil
	case *CapToken:
		// P5 writes the fully qualified name, module hash included.
		buf = append(buf, `{"#ctName":`...)
		buf = jsontext.AppendString(buf, x.Name.String())
		buf = append(buf, `,"#ctArgs":`...)
		buf, err := appendJSONList(buf, x.Args)
		if err != nil {
			return nil, err
		}
		return append(buf, '}'), nil
	case *Table:
		buf = append(buf, `{":tableName":`...)
		buf = jsontext.AppendString(buf, x.Module.String()+":"+x.Name)
		buf = append(buf, `,":moduleHash":`...)
		buf = jsontext.AppendString(buf, x.Hash)
		buf = append(buf, `,":schema":`...)
		buf = appendJSONSchema(buf, &x.Schema)
		return append(buf, '}'), nil
	}
	return nil, EvalError("cannot encode a " + TypeOf(v) + " as JSON")
}

func appendJSONList(buf []byte, vs []Value) ([]byte, error) {
	buf = append(buf, '[')
	for i, e := range vs {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = AppendJSON(buf, e); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

func isSafeInteger(i Integer) bool {
	return i.IsSmall() && i.small >= -maxSafeInteger && i.small <= maxSafeInteger
}

func appendJSONInteger(buf []byte, i Integer) []byte {
	buf = append(buf, `{"int":`...)
	if isSafeInteger(i) {
		buf = strconv.AppendInt(buf, i.small, 10)
	} else {
		buf = jsontext.AppendString(buf, i.Text())
	}
	return append(buf, '}')
}

// appendJSONDecimal writes a decimal whose mantissa is a safe integer as a
// JSON number formatted like aeson's Scientific encoder, and any other as
// {"decimal": "<Haskell show>"}.
func appendJSONDecimal(buf []byte, d Decimal) []byte {
	if !isSafeInteger(d.mant) {
		buf = append(buf, `{"decimal":`...)
		buf = jsontext.AppendString(buf, d.Text())
		return append(buf, '}')
	}
	return append(buf, ScientificText(d)...)
}

// ScientificText formats d's exact value as aeson writes a Scientific: an
// integral value as plain digits; otherwise, with x = 0.d1d2...dn * 10^E
// (d1 != 0, no trailing zeros), fixed notation when 0 <= E <= 7 and
// `d1.d2...dne<E-1>` (`d1.0e<E-1>` for one digit) otherwise.
func ScientificText(d Decimal) string {
	n := normalize(d)
	if n.places == 0 {
		return n.mant.Text()
	}
	digits := n.mant.Abs().Text()
	sign := ""
	if n.mant.Sign() < 0 {
		sign = "-"
	}
	e := len(digits) - int(n.places)
	switch {
	case e == 0:
		return sign + "0." + digits
	case e > 0 && e <= 7:
		return sign + digits[:e] + "." + digits[e:]
	case len(digits) == 1:
		return sign + digits + ".0e" + strconv.Itoa(e-1)
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(e-1)
}

func appendJSONModuleName(buf []byte, m ModuleName) []byte {
	buf = append(buf, `{"namespace":`...)
	if m.Namespace == "" {
		buf = append(buf, "null"...)
	} else {
		buf = jsontext.AppendString(buf, m.Namespace)
	}
	buf = append(buf, `,"name":`...)
	buf = jsontext.AppendString(buf, m.Name)
	return append(buf, '}')
}

func appendJSONSchema(buf []byte, s *Schema) []byte {
	buf = append(buf, `{"sc_name":`...)
	buf = jsontext.AppendString(buf, s.Name.String())
	buf = append(buf, `,"sc_fields":{`...)
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	for n, i := range keyorder.LegacyIndex(names) {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = jsontext.AppendString(buf, s.Fields[i].Name)
		buf = append(buf, ':')
		buf = appendJSONType(buf, &s.Fields[i].Type)
	}
	return append(buf, "}}"...)
}

func appendJSONType(buf []byte, t *Type) []byte {
	switch t.Kind {
	case TyPrim:
		return jsontext.AppendString(buf, t.Prim)
	case TyAnyList:
		return append(buf, `"list"`...)
	case TyAnyObject:
		return append(buf, `"object"`...)
	case TyAny:
		return append(buf, `"*"`...)
	case TyCapToken:
		return append(buf, `"cap-token"`...)
	case TyList:
		buf = append(buf, `{"tylist":`...)
		buf = appendJSONType(buf, t.Elem)
	case TyObject:
		buf = append(buf, `{"tyobject":`...)
		buf = appendJSONSchema(buf, t.Schema)
	case TyTable:
		buf = append(buf, `{"tytable":`...)
		buf = appendJSONSchema(buf, t.Schema)
	case TyModRef:
		buf = append(buf, `{"tymodref":[`...)
		for i, m := range t.ModRefs {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONModuleName(buf, m)
		}
		buf = append(buf, ']')
	}
	return append(buf, '}')
}
