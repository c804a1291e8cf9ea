package persist

import (
	"fmt"
	"sync"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/value"
)

// State is what the module helpers need from a state (DB, or block
// execution's versioned state): its reads and its old module versions.
type State interface {
	db.DB
	eval.ModuleVersions
}

// ModuleCache holds the modules rebuilt from records or written, by name
// and hash. A versioned state's views rebuild modules on many goroutines at
// once, so it is locked; the lock is not held while a module is rebuilt,
// which reads (and may rebuild dependencies) through the caller's state.
type ModuleCache struct {
	mu   sync.Mutex
	mods map[ModuleKey]*compiledModule
}

// ModuleKey names a module version: its full name and its hash.
type ModuleKey struct{ Name, Hash string }

// NewModuleCache makes an empty cache.
func NewModuleCache() *ModuleCache {
	return &ModuleCache{mods: map[ModuleKey]*compiledModule{}}
}

// Remember puts a module that was written (and committed) in the cache,
// with the record it was stored as, so that reading that record back (as a
// pinned dependency, say) gives the very same module.
func (c *ModuleCache) Remember(m *eval.Module, rec *eval.ModuleRecord) {
	c.mu.Lock()
	c.mods[ModuleKey{m.Name.String(), m.Hash}] = &compiledModule{rec: *rec, mod: m}
	c.mu.Unlock()
}

// cached is the module built from rec, if there is one.
func (c *ModuleCache) cached(k ModuleKey, rec *eval.ModuleRecord) *eval.Module {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cm, ok := c.mods[k]; ok && sameRecord(&cm.rec, rec) {
		return cm.mod
	}
	return nil
}

// Restore is the codec's resolver for module entries: the cached module
// built from the same record, or a new one compiled over s. restoring
// marks the modules being rebuilt by this caller (one goroutine's state),
// to refuse cycles; it is the caller's because two goroutines rebuilding
// the same module at once is no cycle.
func (c *ModuleCache) Restore(s State, rec eval.ModuleRecord, restoring map[ModuleKey]bool) (*eval.Module, error) {
	k := ModuleKey{rec.Name.String(), rec.Hash}
	if m := c.cached(k, &rec); m != nil {
		return m, nil
	}
	if restoring[k] {
		return nil, fmt.Errorf("persist: module %s {%s} depends on itself", rec.Name, rec.Hash)
	}
	restoring[k] = true
	m, err := eval.RestoreModule(s, rec)
	delete(restoring, k)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Another goroutine may have rebuilt the same record meanwhile: keep
	// the first, so that every reader shares one module.
	if cm, ok := c.mods[k]; ok && sameRecord(&cm.rec, &rec) {
		return cm.mod, nil
	}
	c.mods[k] = &compiledModule{rec: rec, mod: m}
	return m, nil
}

// ModuleRecord is what is stored for m: eval's record, with the
// dependencies it leaves unpinned pinned to the version current in s.
func ModuleRecord(s State, m *eval.Module) eval.ModuleRecord {
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

// EncodeRow encodes value to be stored in s, and returns the record it holds when value is a
// module (its dependencies pinned as of s).
func EncodeRow(s State, value any) ([]byte, *eval.ModuleRecord, error) {
	var rec *eval.ModuleRecord
	enc, err := EncodeEntry(nil, value, func(m *eval.Module) (eval.ModuleRecord, error) {
		r := ModuleRecord(s, m)
		rec = &r
		return r, nil
	})
	return enc, rec, err
}

// PactDef is the codec's resolver for defpact states: the defpact in the
// module version it was started with (the current one when it has that
// hash, else the stored version), or, when that version is unknown, in the
// current one.
func PactDef(s State, mod value.ModuleName, name, hash string) (*eval.Def, error) {
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
