package eval

import (
	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// DefKind is the kind of a module member.
type DefKind uint8

const (
	DefFun DefKind = iota
	DefConstant
	DefCapability
	DefPactKind
	DefSchemaKind
	DefTableKind
)

func (k DefKind) String() string {
	switch k {
	case DefFun:
		return "defun"
	case DefConstant:
		return "defconst"
	case DefCapability:
		return "defcap"
	case DefPactKind:
		return "defpact"
	case DefSchemaKind:
		return "defschema"
	case DefTableKind:
		return "deftable"
	}
	return "def"
}

// Param is a typed parameter; a nil Type accepts anything.
type Param struct {
	Name string
	Type *value.Type
	// free is Type's free check, when compiling found one (freeCheck).
	free uint8
}

// Def is a module member (or a REPL top-level defun/defconst).
type Def struct {
	Kind   DefKind
	Name   string
	Module *Module // nil for REPL top-level definitions
	Args   []Param
	Ret    *value.Type
	// retFree is Ret's free check, when compiling found one (freeCheck).
	retFree uint8
	Body    []node
	// frameFree says Body keeps no reference to the frame of its
	// arguments once it is evaluated (keepsFrame): the evaluator gives
	// the frame of a call back, for the next call.
	frameFree bool
	Steps     []pactStep
	Doc       string
	Loc       syntax.Span

	// DefConstant: the value, evaluated at load.
	Value value.Value
	// DefCapability
	Managed      capManaged
	ManagedParam int // index of the managed argument, for user-managed caps
	Manager      *Def
	Event        bool
	// DefSchemaKind
	Schema *value.Schema
	// DefTableKind
	Table *value.Table

	// signature-only member of an interface
	Abstract bool
	// syntax, kept to compile the body once all members are known
	fun syntax.Node
}

type capManaged uint8

const (
	capUnmanaged capManaged = iota
	capAutoManaged
	capUserManaged
)

// pactStep is a compiled defpact step.
type pactStep struct {
	Expr     node
	Rollback node // nil without rollback
}

// QualName is the member's qualified name (bare for REPL definitions).
func (d *Def) QualName() value.QualifiedName {
	if d.Module == nil {
		return value.QualifiedName{Name: d.Name}
	}
	return value.QualifiedName{Module: d.Module.Name, Name: d.Name}
}

func (d *Def) fqn() value.FullyQualifiedName {
	if d.Module == nil {
		return value.FullyQualifiedName{Name: d.Name}
	}
	return value.FullyQualifiedName{Module: d.Module.Name, Name: d.Name, Hash: d.Module.Hash}
}

func (d *Def) qualText() string {
	if d.Module == nil {
		return d.Name
	}
	return d.Module.Name.String() + "." + d.Name
}

// Module is a loaded module or interface.
type Module struct {
	Name      value.ModuleName
	Interface bool
	// Governance: a keyset name, or a defcap of the module.
	GovKeyset string
	GovCap    string
	Defs      map[string]*Def
	Order     []string
	Hash      string
	Blessed   map[string]bool
	// Implements lists the interfaces, sorted.
	Implements []value.ModuleName
	Code       string
	Doc        string
	// TxHash is the hash of the transaction that installed this version.
	TxHash string
	// Deps are the modules this one refers to.
	Deps []value.ModuleName

	// image is the module as P5 stores it, measured for gas (package p5).
	image *p5.Image
}

// ModRefValue is the module as a value.
func (m *Module) ModRefValue() *value.ModRef { return value.NewModRef(m.Name, m.Implements) }
