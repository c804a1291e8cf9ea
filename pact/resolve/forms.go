package resolve

// Form is a special form: recognised by its head, its arguments not
// evaluated as a function's are.
type Form uint8

const (
	FormIf Form = iota
	FormAnd
	FormOr
	FormEnforce
	FormEnforceOne
	FormWithCapability
	FormTry
	FormCreateUserGuard
	FormDo
	FormError
	FormPure
)

var forms = map[string]Form{
	"if":                FormIf,
	"and":               FormAnd,
	"or":                FormOr,
	"enforce":           FormEnforce,
	"enforce-one":       FormEnforceOne,
	"with-capability":   FormWithCapability,
	"try":               FormTry,
	"create-user-guard": FormCreateUserGuard,
	"do":                FormDo,
	"error":             FormError,
	"pure":              FormPure,
}

// LookupForm is the special form a bare name heads, if it heads one.
func LookupForm(name string) (Form, bool) {
	f, ok := forms[name]
	return f, ok
}

// p5FormArity is what P5's desugarer accepts of a form; and, or and enforce
// take any arity (at another than two they are functions).
var p5FormArity = map[Form]int{FormIf: 3, FormEnforceOne: 2, FormTry: 2, FormError: 1, FormPure: 1, FormCreateUserGuard: 1}
