package persist

import (
	"fmt"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// moduleState is what the module helpers need from a state (DB, or a
// Versioned's View): its reads and its old module versions.
type moduleState interface {
	db.DB
	eval.ModuleVersions
}

// moduleCache holds the modules rebuilt from records or written, by name
// and hash; restoring marks those being rebuilt, to refuse cycles.
type moduleCache struct {
	mods      map[modKey]*compiledModule
	restoring map[modKey]bool
}

func newModuleCache() moduleCache {
	return moduleCache{mods: map[modKey]*compiledModule{}, restoring: map[modKey]bool{}}
}

// remember puts a module that was written (and committed) in the cache,
// with the record it was stored as, so that reading that record back (as a
// pinned dependency, say) gives the very same module.
func (c *moduleCache) remember(m *eval.Module, rec *eval.ModuleRecord) {
	c.mods[modKey{m.Name.String(), m.Hash}] = &compiledModule{rec: *rec, mod: m}
}

// restore is the codec's resolver for module entries: the cached module
// built from the same record, or a new one compiled over s.
func (c *moduleCache) restore(s moduleState, rec eval.ModuleRecord) (*eval.Module, error) {
	k := modKey{rec.Name.String(), rec.Hash}
	if cm, ok := c.mods[k]; ok && sameRecord(&cm.rec, &rec) {
		return cm.mod, nil
	}
	if c.restoring[k] {
		return nil, fmt.Errorf("persist: module %s {%s} depends on itself", rec.Name, rec.Hash)
	}
	c.restoring[k] = true
	m, err := eval.RestoreModule(s, rec)
	delete(c.restoring, k)
	if err != nil {
		return nil, err
	}
	c.mods[k] = &compiledModule{rec: rec, mod: m}
	return m, nil
}

// moduleRecord is what is stored for m: eval's record, with the
// dependencies it leaves unpinned pinned to the version current in s.
func moduleRecord(s moduleState, m *eval.Module) eval.ModuleRecord {
	rec := eval.NewModuleRecord(m)
	for i, dep := range rec.Deps {
		if dep.Hash != "" {
			continue
		}
		if v, ok, err := s.Read(db.Modules, "", dep.Name.String()); err == nil && ok {
			if cur, ok := v.(*eval.Module); ok && cur != nil {
				rec.Deps[i].Hash = cur.Hash
			}
		}
	}
	return rec
}

// pactDef is the codec's resolver for defpact states: the defpact in the
// module version it was started with (the current one when it has that
// hash, else the stored version), or, when that version is unknown, in the
// current one.
func pactDef(s moduleState, mod eval.ModuleName, name, hash string) (*eval.Def, error) {
	var cur *eval.Module
	v, ok, err := s.Read(db.Modules, "", mod.String())
	if err != nil {
		return nil, err
	}
	if ok {
		cur, _ = v.(*eval.Module)
	}
	m := cur
	if cur == nil || cur.Hash != hash {
		old, found, err := s.ModuleVersion(mod, hash)
		if err != nil {
			return nil, err
		}
		if found {
			m = old
		}
	}
	if m == nil {
		return nil, fmt.Errorf("persist: defpact %s.%s: module not found", mod, name)
	}
	def := m.Defs[name]
	if def == nil || def.Kind != eval.DefPactKind {
		return nil, fmt.Errorf("persist: defpact %s.%s not found in module version %s", mod, name, m.Hash)
	}
	return def, nil
}
