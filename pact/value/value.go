package value

// Kind is the runtime kind of a Value.
type Kind uint8

const (
	KindInteger Kind = iota
	KindDecimal
	KindString
	KindBool
	KindUnit
	KindTime
	KindList
	KindObject
	KindGuard
	KindModRef
	KindCapToken
	KindTable
	// KindClosure is for the evaluator's function values (lambdas, partial
	// applications, defun references). They are not Pact values proper: they
	// cannot be stored, compared or encoded.
	KindClosure
)

// Value is a Pact runtime value.
type Value interface {
	// Kind reports the runtime kind.
	Kind() Kind
	// String renders the value as the P5 REPL prints it (see Pretty).
	String() string
}

// String is a Pact string. Symbols ('abc) are strings too.
type String string

// Bool is a Pact boolean.
type Bool bool

// Unit is the value of `()`.
type Unit struct{}

// List is a Pact list. The slice must not be modified once the list has
// been handed out: lists are shared, not copied.
type List []Value

func (String) Kind() Kind { return KindString }
func (Bool) Kind() Kind   { return KindBool }
func (Unit) Kind() Kind   { return KindUnit }
func (List) Kind() Kind   { return KindList }

func (s String) String() string { return Pretty(s) }
func (b Bool) String() string   { return Pretty(b) }
func (u Unit) String() string   { return Pretty(u) }
func (l List) String() string   { return Pretty(l) }

// True, False and UnitValue are the shared constants.
var (
	True      Value = Bool(true)
	False     Value = Bool(false)
	UnitValue Value = Unit{}
)

// IsLiteral reports whether v is one of P5's literal kinds (string,
// integer, decimal, unit, bool), the only kinds `<` and friends accept
// besides times.
func IsLiteral(v Value) bool {
	switch v.Kind() {
	case KindString, KindInteger, KindDecimal, KindUnit, KindBool:
		return true
	}
	return false
}

// ArgTypeName names a value's type the way P5's argument errors do
// (pvToArgTypeError): primitive names for literals, times and guards, and
// the coarse "list", "object", "modref", "table" otherwise. A capability
// token is reported as "closure", as in P5.
func ArgTypeName(v Value) string {
	switch v.Kind() {
	case KindInteger:
		return "integer"
	case KindDecimal:
		return "decimal"
	case KindString:
		return "string"
	case KindBool:
		return "bool"
	case KindUnit:
		return "unit"
	case KindTime:
		return "time"
	case KindList:
		return "list"
	case KindObject:
		return "object"
	case KindGuard:
		return "guard"
	case KindModRef:
		return "modref"
	case KindCapToken, KindClosure:
		return "closure"
	case KindTable:
		return "table"
	}
	return "unknown"
}

// TypeOf is the `typeof` native: P5's renderType of the value's
// synthesized type. Closures give "<<closure>>".
func TypeOf(v Value) string {
	switch x := v.(type) {
	case *ModRef:
		s := "module{"
		for i, m := range x.Implemented {
			if i > 0 {
				s += ", "
			}
			s += m.String()
		}
		return s + "}"
	case *Table:
		return "table{" + x.Schema.Name.String() + "}"
	case *CapToken:
		// P5 renders TyCapToken as "CAPTOKEN" in renderType.
		return "CAPTOKEN"
	}
	if v.Kind() == KindClosure {
		return "<<closure>>"
	}
	return ArgTypeName(v)
}
