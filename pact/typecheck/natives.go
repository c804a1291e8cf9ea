package typecheck

import (
	"fmt"
	"strings"
)

// signatures are the natives' types as the interpreter accepts them at
// run time (not as Pact 5's inference types them: P5 adds an integer to a
// decimal at run time, and so must the checker, or it would refuse code
// that runs). Each native has one or more alternatives, "ARGS -> RESULT";
// a call must fit one. The words:
//
//	integer decimal string bool time unit guard   the primitive types
//	*                                            anything
//	list object table cap                        any list, object, table, capability
//	[T]                                          a list of T
//	a b c                                        type variables, one per call
//	(T ... -> T)                                 a function
//
// A native left out is not checked: its arguments are checked for
// themselves and its result is unknown. TestSignaturesAgreeWithRuntime
// holds this table to what the interpreter does.
var signatures = map[string][]string{
	"+": {"integer integer -> integer", "decimal decimal -> decimal", "integer decimal -> decimal",
		"decimal integer -> decimal", "string string -> string", "list list -> list", "object object -> object"},
	"-":   {"integer integer -> integer", "decimal decimal -> decimal", "integer decimal -> decimal", "decimal integer -> decimal", "integer -> integer", "decimal -> decimal"},
	"*":   arith,
	"/":   arith,
	"^":   arith,
	"mod": {"integer integer -> integer"},
	"<":   ord,
	"<=":  ord,
	">":   ord,
	">=":  ord,
	"=":   {"* * -> bool"},
	"!=":  {"* * -> bool"},

	"abs":     {"integer -> integer", "decimal -> decimal"},
	"negate":  {"integer -> integer", "decimal -> decimal"},
	"ceiling": rounding,
	"floor":   rounding,
	"round":   rounding,
	"sqrt":    {"integer -> decimal", "decimal -> decimal"},
	"exp":     {"integer -> decimal", "decimal -> decimal"},
	"ln":      {"integer -> decimal", "decimal -> decimal"},
	"log":     {"integer integer -> integer", "decimal decimal -> decimal", "integer decimal -> decimal", "decimal integer -> decimal"},
	"dec":     {"integer -> decimal"},
	"&":       {"integer integer -> integer"},
	"|":       {"integer integer -> integer"},
	"xor":     {"integer integer -> integer"},
	"shift":   {"integer integer -> integer"},
	"~":       {"integer -> integer"},
	"not":     {"bool -> bool"},
	"and?":    {"(a -> bool) (a -> bool) a -> bool"},
	"or?":     {"(a -> bool) (a -> bool) a -> bool"},
	"not?":    {"(a -> bool) a -> bool"},

	"add-time":    {"time integer -> time", "time decimal -> time"},
	"diff-time":   {"time time -> decimal"},
	"days":        {"integer -> decimal", "decimal -> decimal"},
	"hours":       {"integer -> decimal", "decimal -> decimal"},
	"minutes":     {"integer -> decimal", "decimal -> decimal"},
	"time":        {"string -> time"},
	"parse-time":  {"string string -> time"},
	"format-time": {"string time -> string"},

	"at":          {"integer [a] -> a", "string object -> *"},
	"length":      {"list -> integer", "string -> integer", "object -> integer"},
	"take":        {"integer [a] -> [a]", "integer string -> string", "[string] object -> object"},
	"drop":        {"integer [a] -> [a]", "integer string -> string", "[string] object -> object"},
	"reverse":     {"[a] -> [a]", "string -> string"},
	"distinct":    {"[a] -> [a]"},
	"sort":        {"[a] -> [a]", "[string] [object] -> [object]"},
	"contains":    {"* list -> bool", "string object -> bool", "string string -> bool"},
	"remove":      {"string object -> object"},
	"make-list":   {"integer a -> [a]"},
	"enumerate":   {"integer integer -> [integer]", "integer integer integer -> [integer]"},
	"str-to-list": {"string -> [string]"},
	"concat":      {"[string] -> string"},
	"format":      {"string list -> string"},
	"identity":    {"a -> a"},
	"continue":    {"a -> a"},
	"compose":     {"(a -> b) (b -> c) a -> c"},
	"map":         {"(a -> b) [a] -> [b]"},
	"filter":      {"(a -> bool) [a] -> [a]"},
	"fold":        {"(a b -> a) a [b] -> a"},
	"zip":         {"(a b -> c) [a] [b] -> [c]"},
	"where":       {"string (* -> bool) object -> bool"},

	"int-to-str":   {"integer integer -> string"},
	"str-to-int":   {"string -> integer", "integer string -> integer"},
	"read-decimal": {"string -> decimal"},
	"read-integer": {"string -> integer"},
	"read-string":  {"string -> string"},
	"read-keyset":  {"string -> guard"},
	"read-msg":     {"-> *", "string -> *"},
	"show":         {"* -> string"},
	"typeof":       {"* -> string"},
	"hash":         {"* -> string"},
	"tx-hash":      {"-> string"},
	"pact-id":      {"-> string"},
	"is-charset":   {"integer string -> bool"},

	"base64-encode":  {"string -> string"},
	"base64-decode":  {"string -> string"},
	"hash-keccak256": {"[string] -> string"},

	"enforce-guard":                {"guard -> bool", "string -> bool"},
	"enforce-keyset":               {"guard -> bool", "string -> bool"},
	"keyset-ref-guard":             {"string -> guard"},
	"define-keyset":                {"string guard -> string", "string -> string"},
	"describe-keyset":              {"string -> guard"},
	"create-module-guard":          {"string -> guard"},
	"create-pact-guard":            {"string -> guard"},
	"create-capability-guard":      {"cap -> guard"},
	"create-capability-pact-guard": {"cap -> guard"},
	"create-principal":             {"guard -> string"},
	"validate-principal":           {"guard string -> bool"},
	"is-principal":                 {"string -> bool"},
	"typeof-principal":             {"string -> string"},
	"define-namespace":             {"string guard guard -> string"},
	"namespace":                    {"string -> string"},
	"describe-namespace":           {"string -> object"},

	"compose-capability": {"cap -> bool"},
	"require-capability": {"cap -> bool"},
	"install-capability": {"cap -> string"},
	"emit-event":         {"cap -> bool"},

	"create-table":   {"table -> string"},
	"describe-table": {"table -> object"},
	"keys":           {"table -> [string]"},
	"fold-db":        {"table (string object -> bool) (string object -> a) -> [a]"},

	"yield": {"object -> object", "object string -> object"},
}

var (
	arith = []string{"integer integer -> integer", "decimal decimal -> decimal",
		"integer decimal -> decimal", "decimal integer -> decimal"}
	ord      = []string{"integer integer -> bool", "decimal decimal -> bool", "string string -> bool", "time time -> bool", "bool bool -> bool", "unit unit -> bool"}
	rounding = []string{"decimal -> integer", "decimal integer -> decimal"}
)

// sig is one alternative of a native's type; vars counts its variables.
type sig struct {
	params []*ty
	result *ty
	vars   int
}

// call matches arguments of these types against the alternative (of as
// many parameters): the worst verdict, and the result it gives.
func (s sig) call(args []*ty) (verdict, *ty) {
	b := make(bindings, s.vars)
	v := fitsOK
	for i := range args {
		v = worse(v, match(args[i], s.params[i], b))
	}
	return v, subst(s.result, b)
}

// nativeSigs is signatures parsed, once.
var nativeSigs = func() map[string][]sig {
	out := make(map[string][]sig, len(signatures))
	for name, alts := range signatures {
		for _, a := range alts {
			s, err := parseSig(a)
			if err != nil {
				panic(fmt.Sprintf("typecheck: signature of %s %q: %v", name, a, err))
			}
			out[name] = append(out[name], s)
		}
	}
	return out
}()

// parseSig reads one alternative of the signature language above.
func parseSig(src string) (sig, error) {
	toks := strings.Fields(strings.NewReplacer("(", " ( ", ")", " ) ", "[", " [ ", "]", " ] ").Replace(src))
	p := &sigParser{toks: toks, vars: map[string]int{}}
	params, result, err := p.arrow()
	if err != nil {
		return sig{}, err
	}
	if p.pos != len(p.toks) {
		return sig{}, fmt.Errorf("trailing %q", p.toks[p.pos])
	}
	return sig{params: params, result: result, vars: len(p.vars)}, nil
}

type sigParser struct {
	toks []string
	pos  int
	vars map[string]int
}

// arrow reads "T ... -> T".
func (p *sigParser) arrow() ([]*ty, *ty, error) {
	var params []*ty
	for p.pos < len(p.toks) && p.toks[p.pos] != "->" {
		t, err := p.typ()
		if err != nil {
			return nil, nil, err
		}
		params = append(params, t)
	}
	if p.pos == len(p.toks) {
		return nil, nil, fmt.Errorf("no ->")
	}
	p.pos++
	result, err := p.typ()
	return params, result, err
}

func (p *sigParser) typ() (*ty, error) {
	if p.pos == len(p.toks) {
		return nil, fmt.Errorf("a type is missing")
	}
	tok := p.toks[p.pos]
	p.pos++
	switch tok {
	case "integer":
		return tInt, nil
	case "decimal":
		return tDec, nil
	case "string":
		return tStr, nil
	case "bool":
		return tBool, nil
	case "time":
		return tTime, nil
	case "unit":
		return tUnit, nil
	case "guard":
		return tGuard, nil
	case "*":
		return tAny, nil
	case "list":
		return tAnyList, nil
	case "object":
		return tAnyObj, nil
	case "table":
		return tAnyTable, nil
	case "cap":
		return tCapToken, nil
	case "[":
		e, err := p.typ()
		if err != nil {
			return nil, err
		}
		if p.pos == len(p.toks) || p.toks[p.pos] != "]" {
			return nil, fmt.Errorf("] is missing")
		}
		p.pos++
		return listOf(e), nil
	case "(":
		params, result, err := p.arrow()
		if err != nil {
			return nil, err
		}
		if p.pos == len(p.toks) || p.toks[p.pos] != ")" {
			return nil, fmt.Errorf(") is missing")
		}
		p.pos++
		return &ty{kind: kFun, params: params, result: result}, nil
	}
	if len(tok) == 1 && tok[0] >= 'a' && tok[0] <= 'z' {
		v, ok := p.vars[tok]
		if !ok {
			v = len(p.vars)
			p.vars[tok] = v
		}
		return &ty{kind: kVar, v: v}, nil
	}
	return nil, fmt.Errorf("unknown type %q", tok)
}
