package eval

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Restoring modules from a persistent database.
//
// A compiled *Module is a graph of Defs and resolved code that cannot be
// stored as such. A persistent DB stores a ModuleRecord instead (the source
// as written and what installing it decided: hash, blessed hashes, tx hash,
// governance, dependency versions) and rebuilds the module with
// RestoreModule by compiling the source again, the way defineModule and
// defineInterface do, minus everything that belongs to installing: no
// governance or namespace checks, no gas, no write to the database, and the
// stored hash is kept (tables and capability tokens carry it).
//
// A module refers to its dependencies' members by the versions that were
// installed when it was compiled: after an upgrade of a dependency, the
// dependent keeps calling the old code (and the old code's tables carry the
// old hash) until it is itself reinstalled. A record therefore pins each
// dependency to the hash it was compiled against, and RestoreModule resolves
// a pinned dependency through ModuleVersions when the database offers it;
// other lookups, and databases without version history, resolve by name.

// ModuleRecord is the stored form of a module or interface.
type ModuleRecord struct {
	Name      value.ModuleName
	Interface bool
	// Code is Module.Code: the module's source as written.
	Code   string
	Hash   string
	TxHash string
	// Blessed are the blessed hashes (declared and inherited), sorted.
	Blessed []string
	// GovKeyset or GovCap is the governance (both empty for interfaces).
	GovKeyset string
	GovCap    string
	// Deps are the modules the code refers to, sorted by name (ns first
	// as value.CompareModuleNames orders them), each with the hash of the version
	// it was compiled against; an empty Hash means "the current version".
	Deps []ModuleDep
}

// ModuleDep is one dependency of a stored module.
type ModuleDep struct {
	Name value.ModuleName
	Hash string
}

// ModuleVersions is implemented by databases that keep every installed
// version of a module, so that RestoreModule can rebuild a module against
// the dependency versions it was compiled with. found is false when the
// version is unknown.
type ModuleVersions interface {
	ModuleVersion(name value.ModuleName, hash string) (m *Module, found bool, err error)
}

// NewModuleRecord is what a persistent DB stores for m. Dependencies whose
// members m's code calls are pinned to the hash of the version the calls
// were compiled against; the others (modules used only as module
// references, or imported without being called) are left unpinned, for the
// caller to pin to the version current at the time of writing if it can.
func NewModuleRecord(m *Module) ModuleRecord {
	rec := ModuleRecord{
		Name:      m.Name,
		Interface: m.Interface,
		Code:      m.Code,
		Hash:      m.Hash,
		TxHash:    m.TxHash,
		GovKeyset: m.GovKeyset,
		GovCap:    m.GovCap,
	}
	rec.Blessed = slices.Sorted(maps.Keys(m.Blessed))
	pins := map[value.ModuleName]string{}
	for _, name := range m.Order {
		walkDefRefs(m.Defs[name], func(ref *Def) {
			if dm := ref.Module; dm != nil && dm != m && dm.Name != m.Name {
				pins[dm.Name] = dm.Hash
			}
		})
	}
	for _, dep := range m.Deps {
		if _, ok := pins[dep]; !ok && dep != m.Name {
			pins[dep] = ""
		}
	}
	for name, h := range pins {
		rec.Deps = append(rec.Deps, ModuleDep{Name: name, Hash: h})
	}
	slices.SortFunc(rec.Deps, func(a, b ModuleDep) int { return value.CompareModuleNames(a.Name, b.Name) })
	return rec
}

// RestoreModule rebuilds a module or interface from its record, resolving
// its dependencies through d (pinned versions through d's ModuleVersions,
// when d implements it). The result is a fresh *Module: callers that read
// the same record repeatedly should cache it.
//
// Constants are evaluated again; they are pure, so they get the values they
// had. REPL natives are not available: a module that calls them (allowed in
// the REPL with env-enable-repl-natives) does not restore.
func RestoreModule(d db.DB, rec ModuleRecord) (*Module, error) {
	m, err := restoreModule(d, rec)
	if err != nil {
		return nil, fmt.Errorf("restore module %s: %w", rec.Name, err)
	}
	return m, nil
}

func restoreModule(d db.DB, rec ModuleRecord) (*Module, error) {
	if rec.Name.Name == "" || rec.Hash == "" {
		return nil, errors.New("record without name or hash")
	}
	f, err := syntax.ParseProgram("<stored "+rec.Name.String()+">", rec.Code)
	if err != nil {
		return nil, err
	}
	if len(f.Items) != 1 {
		return nil, fmt.Errorf("stored code has %d top-level forms, want 1", len(f.Items))
	}
	var name string
	var doc *syntax.Doc
	var body []syntax.Decl
	switch x := f.Items[0].(type) {
	case *syntax.Module:
		if rec.Interface {
			return nil, errors.New("stored code is a module, the record an interface")
		}
		name, doc, body = x.Name, x.Doc, x.Body
	case *syntax.Interface:
		if !rec.Interface {
			return nil, errors.New("stored code is an interface, the record a module")
		}
		name, doc, body = x.Name, x.Doc, x.Body
	default:
		return nil, errors.New("stored code is not a module or interface")
	}
	if name != rec.Name.Name {
		return nil, fmt.Errorf("stored code defines %q", name)
	}

	pd := &pinnedDB{DB: d, pins: make(map[string]ModuleDep, len(rec.Deps))}
	pd.versions, _ = d.(ModuleVersions)
	for _, dep := range rec.Deps {
		if dep.Hash != "" {
			pd.pins[dep.Name.String()] = dep
		}
	}
	m, err := compileStored(pd, rec, f.Items[0], body, docText(doc), false)
	if err != nil && len(rec.Deps) > 0 {
		// In the REPL, module code may call the members of modules loaded
		// earlier in the session by their bare names (the session's
		// top-level imports, which are not stored). Those modules are
		// among the dependencies: compile again with them imported.
		if m2, err2 := compileStored(pd, rec, f.Items[0], body, docText(doc), true); err2 == nil {
			return m2, nil
		}
	}
	return m, err
}

// compileStored compiles a stored module's body as defineModule and
// defineInterface do, minus installing. With importDeps, the dependencies
// are in scope as top-level imports.
func compileStored(d db.DB, rec ModuleRecord, x syntax.Node, body []syntax.Decl, doc string, importDeps bool) (*Module, error) {
	loc := x.Span()
	in := New(d)
	in.namespace = rec.Name.Namespace
	if importDeps {
		for _, dep := range rec.Deps {
			if dm := in.lookupModule(dep.Name); dm != nil {
				in.addTopUse(useImport{mod: dm})
			}
		}
	}
	m := &Module{
		Name:      rec.Name,
		Interface: rec.Interface,
		GovKeyset: rec.GovKeyset,
		GovCap:    rec.GovCap,
		Defs:      map[string]*Def{},
		Blessed:   make(map[string]bool, len(rec.Blessed)),
		Hash:      rec.Hash,
		Code:      rec.Code,
		Doc:       doc,
		TxHash:    rec.TxHash,
	}
	for _, h := range rec.Blessed {
		m.Blessed[h] = true
	}
	c := &compiler{renamer: renamer{in: in, mod: m, allowRepl: true, stored: make(map[value.ModuleName]bool, len(rec.Deps))}}
	for _, dep := range rec.Deps {
		c.stored[dep.Name] = true
	}
	if err := c.declare(body); err != nil {
		return nil, err
	}
	if !m.Interface {
		in.loading = m
	}
	err := c.compileBodies(body)
	in.loading = nil
	if err != nil {
		return nil, err
	}
	if !m.Interface {
		if err := in.checkImplements(m, loc, false); err != nil {
			return nil, err
		}
	}
	for dep := range c.deps {
		m.Deps = append(m.Deps, dep)
	}
	slices.SortFunc(m.Deps, value.CompareModuleNames)
	m.image = storedImage(in, x, m)
	return m, nil
}

// storedImage measures a rebuilt module as P5 stores it (for the gas of
// reading it, and of installing modules that depend on it). It is computed
// as installing computed it, against the pinned dependencies; a module
// whose image cannot be computed (none should) is charged as empty.
func storedImage(in *Interp, x syntax.Node, m *Module) *p5.Image {
	h := newP5Hasher(in, x, m.Name)
	hb, err := value.DecodeBase64URL(m.Hash)
	if err != nil {
		return nil
	}
	img, err := h.imagePass(x, hb, txHashBytes(m.TxHash))
	if err != nil {
		return nil
	}
	if !m.Interface {
		img.Deps = in.depClosure(m, img)
	} else {
		// An interface stored the loaded definitions of the modules its
		// code names: those modules' own and their dependencies.
		seen := map[p5.DefKey]bool{}
		for mn := range h.depMods {
			dm := in.lookupModule(mn)
			if dm == nil || dm.image == nil {
				continue
			}
			for _, k := range dm.image.OwnKeys(dm.Name) {
				if !seen[k] {
					seen[k] = true
					img.Deps = append(img.Deps, p5.Dep{Key: k, Def: dm.image.Defs[k.Name]})
				}
			}
			for _, d := range dm.image.Deps {
				if !seen[d.Key] {
					seen[d.Key] = true
					img.Deps = append(img.Deps, d)
				}
			}
		}
		p5.SortDeps(img.Deps)
	}
	img.Finish()
	return img
}

// pinnedDB is the database a restored module is compiled against: module
// lookups of pinned dependencies go to the pinned version.
type pinnedDB struct {
	db.DB
	versions ModuleVersions       // nil when the database keeps no versions
	pins     map[string]ModuleDep // by full name
}

func (p *pinnedDB) Read(d db.Domain, table, key string) (any, bool, error) {
	if d == db.Modules && p.versions != nil {
		if dep, ok := p.pins[key]; ok {
			m, found, err := p.versions.ModuleVersion(dep.Name, dep.Hash)
			if err != nil {
				return nil, false, err
			}
			if found {
				return m, true, nil
			}
		}
	}
	return p.DB.Read(d, table, key)
}

// Write is refused: restoring a module must not change the database.
func (p *pinnedDB) Write(db.Domain, string, string, any, db.WriteType) error {
	return errors.New("restoring a module: write refused")
}

// CreateTable is refused for the same reason.
func (p *pinnedDB) CreateTable(string) error {
	return errors.New("restoring a module: create-table refused")
}
