package value

import (
	"slices"
	"sort"
)

// This file holds the structured values: names, keysets and the other
// guard kinds, module references, capability tokens and table references.
// They are plain data here; enforcing a guard, acquiring a capability or
// reading a table is the evaluator's business.

// ModuleName is a module or interface name, optionally namespaced. An
// empty Namespace means the root namespace.
type ModuleName struct {
	Name      string
	Namespace string
}

// String renders `ns.name` or `name` (P5 renderModuleName).
func (m ModuleName) String() string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "." + m.Name
}

// CompareModuleNames is Haskell's derived Ord for ModuleName: the name
// first, then the namespace (root before any namespace).
func CompareModuleNames(a, b ModuleName) int {
	switch {
	case a.Name < b.Name:
		return -1
	case a.Name > b.Name:
		return 1
	case a.Namespace == b.Namespace:
		return 0
	case a.Namespace < b.Namespace:
		return -1
	}
	return 1
}

// QualifiedName is a module member: `mod.name` or `ns.mod.name`.
type QualifiedName struct {
	Module ModuleName
	Name   string
}

func (q QualifiedName) String() string { return q.Module.String() + "." + q.Name }

// FullyQualifiedName is a module member pinned to a module hash, as
// capability tokens carry it. Hash is the unpadded base64url text.
type FullyQualifiedName struct {
	Module ModuleName
	Name   string
	Hash   string
}

// QualName drops the hash.
func (f FullyQualifiedName) QualName() QualifiedName {
	return QualifiedName{Module: f.Module, Name: f.Name}
}

// String renders P5's `mod.name.{hash}`; without a hash just `mod.name`.
func (f FullyQualifiedName) String() string {
	if f.Hash == "" {
		return f.QualName().String()
	}
	return f.QualName().String() + ".{" + f.Hash + "}"
}

// Keyset predicates built into Pact.
const (
	KeysAll = "keys-all"
	KeysAny = "keys-any"
	Keys2   = "keys-2"
)

// Guard is implemented by the six guard kinds. Every guard has
// Kind() == KindGuard.
type Guard interface {
	Value
	isGuard()
}

// KeySet is a set of public keys (sorted, unique) with a predicate: one of
// the built-in names or a user function's (qualified or bare) name.
type KeySet struct {
	Keys []string
	Pred string
}

// NewKeySet sorts and deduplicates the keys. An empty predicate means
// keys-all.
func NewKeySet(keys []string, pred string) *KeySet {
	ks := slices.Clone(keys)
	sort.Strings(ks)
	ks = slices.Compact(ks)
	if pred == "" {
		pred = KeysAll
	}
	return &KeySet{Keys: ks, Pred: pred}
}

// KeySetRef is a guard naming a keyset defined with define-keyset.
// Namespace is empty for an unqualified (legacy) name.
type KeySetRef struct {
	Name      string
	Namespace string
}

// Text is the keyset name as written: `ns.name` or `name`.
func (r *KeySetRef) Text() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "." + r.Name
}

// UserGuard is `(create-user-guard (f args...))`: the function and its
// already evaluated arguments.
type UserGuard struct {
	Fun  QualifiedName
	Args []Value
}

// CapabilityGuard is built by create-capability-guard (no pact id) and
// create-capability-pact-guard (with the defpact id).
type CapabilityGuard struct {
	Name      QualifiedName
	Args      []Value
	PactID    string
	HasPactID bool
}

// ModuleGuard is `(create-module-guard "name")` made inside Module.
type ModuleGuard struct {
	Module ModuleName
	Name   string
}

// PactGuard is `(create-pact-guard "name")` made inside defpact PactID.
type PactGuard struct {
	PactID string
	Name   string
}

func (*KeySet) Kind() Kind          { return KindGuard }
func (*KeySetRef) Kind() Kind       { return KindGuard }
func (*UserGuard) Kind() Kind       { return KindGuard }
func (*CapabilityGuard) Kind() Kind { return KindGuard }
func (*ModuleGuard) Kind() Kind     { return KindGuard }
func (*PactGuard) Kind() Kind       { return KindGuard }

func (*KeySet) isGuard()          {}
func (*KeySetRef) isGuard()       {}
func (*UserGuard) isGuard()       {}
func (*CapabilityGuard) isGuard() {}
func (*ModuleGuard) isGuard()     {}
func (*PactGuard) isGuard()       {}

func (g *KeySet) String() string          { return Pretty(g) }
func (g *KeySetRef) String() string       { return Pretty(g) }
func (g *UserGuard) String() string       { return Pretty(g) }
func (g *CapabilityGuard) String() string { return Pretty(g) }
func (g *ModuleGuard) String() string     { return Pretty(g) }
func (g *PactGuard) String() string       { return Pretty(g) }

// ModRef is a module reference value (a module name used as a value, typed
// `module{iface...}`). Implemented lists the interfaces the module
// implements, sorted and unique. Two references are equal when they name
// the same module, whatever their interface lists.
type ModRef struct {
	Module      ModuleName
	Implemented []ModuleName
}

// NewModRef sorts and deduplicates the interface list.
func NewModRef(m ModuleName, implemented []ModuleName) *ModRef {
	imp := slices.Clone(implemented)
	slices.SortFunc(imp, CompareModuleNames)
	imp = slices.CompactFunc(imp, func(a, b ModuleName) bool { return a == b })
	return &ModRef{Module: m, Implemented: imp}
}

func (*ModRef) Kind() Kind         { return KindModRef }
func (r *ModRef) String() string   { return Pretty(r) }
func (*CapToken) Kind() Kind       { return KindCapToken }
func (c *CapToken) String() string { return Pretty(c) }
func (*Table) Kind() Kind          { return KindTable }
func (t *Table) String() string    { return Pretty(t) }

// CapToken is a capability token: a defcap applied to its arguments, as
// produced by `(CAP args)` outside the capability forms.
type CapToken struct {
	Name FullyQualifiedName
	Args []Value
}

// Table is a reference to a deftable: the table's name, its module, the
// hash of the module version it belongs to, and its schema.
type Table struct {
	Name   string
	Module ModuleName
	Hash   string
	Schema Schema

	// full caches FullName for tables made by NewTable; it is the key of
	// every row access.
	full string
}

// NewTable makes a table reference with its full name computed once.
func NewTable(name string, m ModuleName, hash string, s Schema) *Table {
	t := &Table{Name: name, Module: m, Hash: hash, Schema: s}
	t.full = t.Module.String() + "_" + t.Name
	return t
}

// FullName is P5's renderTableName, `mod_table`, which is how tables are
// displayed.
func (t *Table) FullName() string {
	if t.full != "" {
		return t.full
	}
	return t.Module.String() + "_" + t.Name
}

// Schema is a defschema: its qualified name and typed fields, sorted by
// field name.
type Schema struct {
	Name   QualifiedName
	Fields []SchemaField
}

// SchemaField is one field of a schema.
type SchemaField struct {
	Name string
	Type Type
}

// TypeKind enumerates P5's runtime type language.
type TypeKind uint8

const (
	TyPrim      TypeKind = iota // integer, decimal, string, bool, time, guard, unit
	TyList                      // [T]
	TyAnyList                   // list
	TyModRef                    // module{i1, i2}
	TyObject                    // object{schema}
	TyAnyObject                 // object
	TyTable                     // table{schema}
	TyCapToken                  // cap-token
	TyAny                       // *
)

// Type is a P5 type, as schemas and typed arguments carry them.
type Type struct {
	Kind    TypeKind
	Prim    string       // TyPrim: "integer", "decimal", "string", "bool", "time", "guard", "unit"
	Elem    *Type        // TyList
	Schema  *Schema      // TyObject, TyTable
	ModRefs []ModuleName // TyModRef, sorted
}
