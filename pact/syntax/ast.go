package syntax

import (
	"math/big"
	"strings"
)

// The syntax tree mirrors upstream's parse tree (Pact.Core.Syntax.ParseTree)
// without desugaring: special forms such as if, and, or, cond, enforce and
// with-capability are plain applications here; the evaluator recognises them
// by name. Every node records its source span in Loc.

// Node is implemented by every node of the tree.
type Node interface {
	// Span is the node's source range.
	Span() Span
	// String renders the node as Pact source (see Format).
	String() string
}

// Expr is an expression.
type Expr interface {
	TopLevel
	exprNode()
}

// TopLevel is a form that may appear at the top of a program: a module, an
// interface, a use, an expression, or (in REPL scripts only) a defun or
// defconst.
type TopLevel interface {
	Node
	topLevelNode()
}

// Decl is an item in a module or interface body: a definition (Defun,
// DefCap, DefConst, DefSchema, DefTable, DefPact) or an extension (Use,
// Implements, Bless).
type Decl interface {
	Node
	declNode()
}

// Type is a type annotation: PrimType, ListType, ModRefType or SchemaType.
type Type interface {
	Node
	typeNode()
}

// PropExpr is one element of an @model property list. Models are parsed and
// kept but not interpreted (formal verification is not supported), so they
// are a loose token tree: PropAtom, PropKeyword, PropDelim, PropSeq and the
// literals IntLit, DecimalLit, StringLit and BoolLit.
type PropExpr interface {
	Node
	propNode()
}

// File is a parsed program or REPL script.
type File struct {
	Name  string
	Items []TopLevel
}

// ---------------------------------------------------------------------------
// Names

// NameKind says which form a Name was written in.
type NameKind uint8

const (
	BareName      NameKind = iota // name
	QualifiedName                 // mod.name or ns.mod.name
	DynamicName                   // modref::member
)

// Name is a reference to a definition or variable.
type Name struct {
	Kind NameKind
	// Namespace is set for ns.mod.name.
	Namespace string
	// Module is the module of a qualified name, or the module-reference
	// variable of a dynamic name.
	Module string
	// Name is the bare name, or the member of a qualified or dynamic name.
	Name string
}

func (n Name) String() string {
	switch n.Kind {
	case QualifiedName:
		if n.Namespace != "" {
			return n.Namespace + "." + n.Module + "." + n.Name
		}
		return n.Module + "." + n.Name
	case DynamicName:
		return n.Module + "::" + n.Name
	}
	return n.Name
}

// ModuleName names a module or interface, optionally in a namespace.
type ModuleName struct {
	Namespace string
	Name      string
}

func (m ModuleName) String() string {
	if m.Namespace != "" {
		return m.Namespace + "." + m.Name
	}
	return m.Name
}

// Arg is a named parameter, let binder name, binding target or schema field,
// with an optional type (nil when none was written; for a schema field that
// means any type).
type Arg struct {
	Loc  Span
	Name string
	Type Type
}

// Field is an object key written as a string or symbol literal.
type Field struct {
	Loc  Span
	Name string
}

// Doc is a documentation string, written as @doc "..." or as a bare string.
type Doc struct {
	Loc  Span
	Text string
	// Ann is true for the @doc form.
	Ann bool
}

// Model is an @model [...] annotation.
type Model struct {
	Loc   Span
	Props []PropExpr
}

// ---------------------------------------------------------------------------
// Expressions

type (
	// Var is a name in expression position: x, coin.transfer,
	// free.coin.transfer, or m::transfer.
	Var struct {
		Loc  Span
		Name Name
	}

	// IntLit is an integer literal. Integers are unbounded, so the digits
	// are kept as written (with an optional leading '-'); use Value.
	IntLit struct {
		Loc  Span
		Text string
	}

	// DecimalLit is a decimal literal INT.DIGITS. The parts are kept as
	// written so the literal keeps its number of places (1.50 has 2).
	DecimalLit struct {
		Loc  Span
		Int  string // digits before the point, with an optional leading '-'
		Frac string // digits after the point, 1 to 255 of them
	}

	// StringLit is a string or symbol literal ('abc is the string "abc").
	StringLit struct {
		Loc   Span
		Value string
	}

	// BoolLit is true or false.
	BoolLit struct {
		Loc   Span
		Value bool
	}

	// UnitLit is ().
	UnitLit struct {
		Loc Span
	}

	// List is a list literal [a b c] or [a, b, c].
	List struct {
		Loc   Span
		Elems []Expr
	}

	// Object is an object literal {"k": v, 'k2: v2}.
	Object struct {
		Loc    Span
		Fields []ObjectField
	}

	// App is an application (f args...). Special forms such as if, and,
	// cond and with-capability are applications of those names.
	App struct {
		Loc  Span
		Fn   Expr
		Args []Expr
	}

	// Binding is a binding form {"k" := x, ...} among an application's
	// arguments, as in (with-read tbl key {"balance" := b} body...). As
	// upstream does, the arguments after the binding form become its Body,
	// so (bind o {"a" := a} (f a)) is App{bind, [o, Binding{a, [(f a)]}]}.
	// Loc runs from '{' to the end of the body.
	Binding struct {
		Loc   Span
		Binds []Bind
		Body  []Expr
	}

	// Let is (let ((x e) ...) body...) or, with Star, let*.
	Let struct {
		Loc     Span
		Star    bool
		Binders []Binder
		Body    []Expr
	}

	// Lambda is (lambda (args) body...).
	Lambda struct {
		Loc  Span
		Args []Arg
		Body []Expr
	}
)

// ObjectField is one key: value entry of an object literal.
type ObjectField struct {
	Key   Field
	Value Expr
}

// Bind is one "key" := var entry of a binding form.
type Bind struct {
	Key Field
	Var Arg
}

// Binder is one (name[:type] expr) entry of a let.
type Binder struct {
	Loc   Span
	Var   Arg
	Value Expr
}

// Value returns the integer's value. The digits were checked by the lexer,
// so it fails only on a hand-built node.
func (x *IntLit) Value() (*big.Int, bool) { return ParseDigits(x.Text) }

// Places is the number of digits after the point.
func (x *DecimalLit) Places() int { return len(x.Frac) }

// Unscaled returns the decimal as an integer mantissa: the value is
// Unscaled / 10^Places. -1.50 gives -150.
func (x *DecimalLit) Unscaled() (*big.Int, bool) {
	return ParseDigits(x.Int + x.Frac)
}

// ---------------------------------------------------------------------------
// Types

// Prim is a primitive type name.
type Prim string

// The primitive types. PrimList and PrimObject are the unparameterised
// "list" and "object".
const (
	PrimInteger Prim = "integer"
	PrimDecimal Prim = "decimal"
	PrimString  Prim = "string"
	PrimBool    Prim = "bool"
	PrimTime    Prim = "time"
	PrimGuard   Prim = "guard"
	PrimKeyset  Prim = "keyset"
	PrimUnit    Prim = "unit"
	PrimList    Prim = "list"
	PrimObject  Prim = "object"
)

func primType(s string) (Prim, bool) {
	switch p := Prim(s); p {
	case PrimInteger, PrimDecimal, PrimString, PrimBool, PrimTime, PrimGuard,
		PrimKeyset, PrimUnit, PrimList, PrimObject:
		return p, true
	}
	return "", false
}

type (
	// PrimType is a primitive type such as integer or list.
	PrimType struct {
		Loc  Span
		Prim Prim
	}

	// ListType is [T].
	ListType struct {
		Loc  Span
		Elem Type
	}

	// ModRefType is module{iface1, ns.iface2}.
	ModRefType struct {
		Loc        Span
		Interfaces []ModuleName
	}

	// SchemaType is object{schema} or, with Table, table{schema}. The
	// schema name is bare or qualified.
	SchemaType struct {
		Loc    Span
		Table  bool
		Schema Name
	}
)

// ---------------------------------------------------------------------------
// Definitions

type (
	// Defun is (defun name[:ret] (args) [doc/model] body...). In an
	// interface it is a signature and Body is empty.
	Defun struct {
		Loc     Span
		Name    string
		NameLoc Span
		Ret     Type
		Args    []Arg
		Doc     *Doc
		Model   *Model
		Body    []Expr
	}

	// DefCap is (defcap name[:ret] (args) [doc/model] [meta] body...). In an
	// interface it is a signature and Body is empty.
	DefCap struct {
		Loc     Span
		Name    string
		NameLoc Span
		Ret     Type
		Args    []Arg
		Doc     *Doc
		Model   *Model
		Meta    *CapMeta
		Body    []Expr
	}

	// DefConst is (defconst name[:type] value [doc]).
	DefConst struct {
		Loc     Span
		Name    string
		NameLoc Span
		Type    Type
		Value   Expr
		Doc     *Doc
	}

	// DefSchema is (defschema name [doc/model] fields...). A field without
	// a type accepts any value.
	DefSchema struct {
		Loc     Span
		Name    string
		NameLoc Span
		Doc     *Doc
		Model   *Model
		Fields  []Arg
	}

	// DefTable is (deftable name:{schema} [doc]).
	DefTable struct {
		Loc     Span
		Name    string
		NameLoc Span
		Schema  Name
		Doc     *Doc
	}

	// DefPact is (defpact name[:ret] (args) [doc/model] steps...). In an
	// interface it is a signature and Steps is empty.
	DefPact struct {
		Loc     Span
		Name    string
		NameLoc Span
		Ret     Type
		Args    []Arg
		Doc     *Doc
		Model   *Model
		Steps   []*Step
	}

	// Use is (use mod ["hash"] [[names...]]).
	Use struct {
		Loc    Span
		Module ModuleName
		// HasHash says a hash string was given (it may be empty).
		HasHash bool
		Hash    string
		// HasImports says an import list was given (it may be empty).
		HasImports bool
		Imports    []string
	}

	// Implements is (implements iface).
	Implements struct {
		Loc       Span
		Interface ModuleName
	}

	// Bless is (bless "hash").
	Bless struct {
		Loc  Span
		Hash string
	}

	// Module is (module name gov [doc/model] decls...).
	Module struct {
		Loc     Span
		Name    string
		NameLoc Span
		Gov     Governance
		Doc     *Doc
		Model   *Model
		Body    []Decl
	}

	// Interface is (interface name [doc/model] decls...).
	Interface struct {
		Loc     Span
		Name    string
		NameLoc Span
		Doc     *Doc
		Model   *Model
		Body    []Decl
	}
)

// CapMeta is a defcap's @event or @managed annotation.
type CapMeta struct {
	Loc Span
	// Event is true for @event; otherwise this is @managed.
	Event bool
	// Manager is nil for an auto-managed capability (@managed alone); for
	// @managed PARAM MGR it names the manager function and Param the
	// managed argument.
	Param   string
	Manager *Name
}

// Governance is a module's governance: a keyset name (written as a string or
// symbol) or, with Cap, the name of a defcap in the module.
type Governance struct {
	Loc  Span
	Name string
	Cap  bool
}

// Step is one step of a defpact: (step [entity] expr [@model]) or
// (step-with-rollback [entity] expr rollback [@model]). Entity is the legacy
// ignored form and may be nil; Rollback is nil for a plain step.
type Step struct {
	Loc      Span
	Entity   Expr
	Expr     Expr
	Rollback Expr
	Model    *Model
}

// ---------------------------------------------------------------------------
// Model properties

type (
	// PropAtom is a name inside @model.
	PropAtom struct {
		Loc  Span
		Name Name
	}

	// PropKeyword is the keyword let or lambda inside @model.
	PropKeyword struct {
		Loc     Span
		Keyword Kind
	}

	// PropDelim is one of { } : , inside @model.
	PropDelim struct {
		Loc   Span
		Delim Kind
	}

	// PropSeq is a parenthesised (or, with Brackets, bracketed) sequence
	// inside @model.
	PropSeq struct {
		Loc      Span
		Brackets bool
		Items    []PropExpr
	}
)

// ---------------------------------------------------------------------------
// Interface plumbing

func (x *Var) Span() Span         { return x.Loc }
func (x *IntLit) Span() Span      { return x.Loc }
func (x *DecimalLit) Span() Span  { return x.Loc }
func (x *StringLit) Span() Span   { return x.Loc }
func (x *BoolLit) Span() Span     { return x.Loc }
func (x *UnitLit) Span() Span     { return x.Loc }
func (x *List) Span() Span        { return x.Loc }
func (x *Object) Span() Span      { return x.Loc }
func (x *App) Span() Span         { return x.Loc }
func (x *Binding) Span() Span     { return x.Loc }
func (x *Let) Span() Span         { return x.Loc }
func (x *Lambda) Span() Span      { return x.Loc }
func (x *PrimType) Span() Span    { return x.Loc }
func (x *ListType) Span() Span    { return x.Loc }
func (x *ModRefType) Span() Span  { return x.Loc }
func (x *SchemaType) Span() Span  { return x.Loc }
func (x *Defun) Span() Span       { return x.Loc }
func (x *DefCap) Span() Span      { return x.Loc }
func (x *DefConst) Span() Span    { return x.Loc }
func (x *DefSchema) Span() Span   { return x.Loc }
func (x *DefTable) Span() Span    { return x.Loc }
func (x *DefPact) Span() Span     { return x.Loc }
func (x *Use) Span() Span         { return x.Loc }
func (x *Implements) Span() Span  { return x.Loc }
func (x *Bless) Span() Span       { return x.Loc }
func (x *Module) Span() Span      { return x.Loc }
func (x *Interface) Span() Span   { return x.Loc }
func (x *Step) Span() Span        { return x.Loc }
func (x *PropAtom) Span() Span    { return x.Loc }
func (x *PropKeyword) Span() Span { return x.Loc }
func (x *PropDelim) Span() Span   { return x.Loc }
func (x *PropSeq) Span() Span     { return x.Loc }

func (*Var) exprNode()        {}
func (*IntLit) exprNode()     {}
func (*DecimalLit) exprNode() {}
func (*StringLit) exprNode()  {}
func (*BoolLit) exprNode()    {}
func (*UnitLit) exprNode()    {}
func (*List) exprNode()       {}
func (*Object) exprNode()     {}
func (*App) exprNode()        {}
func (*Binding) exprNode()    {}
func (*Let) exprNode()        {}
func (*Lambda) exprNode()     {}

func (*Var) topLevelNode()        {}
func (*IntLit) topLevelNode()     {}
func (*DecimalLit) topLevelNode() {}
func (*StringLit) topLevelNode()  {}
func (*BoolLit) topLevelNode()    {}
func (*UnitLit) topLevelNode()    {}
func (*List) topLevelNode()       {}
func (*Object) topLevelNode()     {}
func (*App) topLevelNode()        {}
func (*Binding) topLevelNode()    {}
func (*Let) topLevelNode()        {}
func (*Lambda) topLevelNode()     {}
func (*Module) topLevelNode()     {}
func (*Interface) topLevelNode()  {}
func (*Use) topLevelNode()        {}
func (*Defun) topLevelNode()      {}
func (*DefConst) topLevelNode()   {}

func (*Defun) declNode()      {}
func (*DefCap) declNode()     {}
func (*DefConst) declNode()   {}
func (*DefSchema) declNode()  {}
func (*DefTable) declNode()   {}
func (*DefPact) declNode()    {}
func (*Use) declNode()        {}
func (*Implements) declNode() {}
func (*Bless) declNode()      {}

func (*PrimType) typeNode()   {}
func (*ListType) typeNode()   {}
func (*ModRefType) typeNode() {}
func (*SchemaType) typeNode() {}

func (*PropAtom) propNode()    {}
func (*PropKeyword) propNode() {}
func (*PropDelim) propNode()   {}
func (*PropSeq) propNode()     {}
func (*IntLit) propNode()      {}
func (*DecimalLit) propNode()  {}
func (*StringLit) propNode()   {}
func (*BoolLit) propNode()     {}

// String renders the file as Pact source, one top-level form per line.
func (f *File) String() string {
	var b strings.Builder
	for _, it := range f.Items {
		b.WriteString(Format(it))
		b.WriteByte('\n')
	}
	return b.String()
}
