package eval

import (
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Loading modules, as P5 charges it. P5 keeps, per transaction, the
// modules it has read (esLoaded's loModules) and every definition they
// brought, their stored dependencies included (loAllLoaded). Reading a
// module that is not loaded yet costs its stored encoding's length / 200 +
// 10 milligas; when the read is a name resolution (lookupModuleData), adding
// its definitions to those already loaded costs loaded × added × 10 more.
// A loaded module costs nothing to read again until the transaction ends.
//
// Our interpreter reads modules from the database at will; the charges are
// made where P5 reads, through loadModule and loadModuleData.

// txLoaded is the loaded state of a transaction: the modules read, in
// order, and (built only when needed: most transactions read one module)
// the union of their definitions.
type txLoaded struct {
	mods []loadedMod
	// count is the number of distinct definitions loaded.
	count int
	defs  map[p5.DefKey]*p5.DefImage
}

type loadedMod struct {
	name value.ModuleName
	img  *p5.Image
}

func (l *txLoaded) reset() {
	l.mods = l.mods[:0]
	l.count = 0
	l.defs = nil
}

func (l *txLoaded) has(mn value.ModuleName) bool {
	for i := range l.mods {
		if l.mods[i].name == mn {
			return true
		}
	}
	return false
}

// add records a module as loaded, with its definitions and dependencies.
func (l *txLoaded) add(mn value.ModuleName, img *p5.Image) {
	if len(l.mods) == 0 && img != nil {
		l.count = img.Entries()
	} else if img != nil {
		defs := l.defMap()
		addImage(defs, mn, img)
		l.count = len(defs)
	}
	l.mods = append(l.mods, loadedMod{mn, img})
}

// defMap is P5's loAllLoaded: every loaded definition by its fully
// qualified name.
func (l *txLoaded) defMap() map[p5.DefKey]*p5.DefImage {
	if l.defs == nil {
		l.defs = map[p5.DefKey]*p5.DefImage{}
		for _, m := range l.mods {
			addImage(l.defs, m.name, m.img)
		}
	}
	return l.defs
}

func addImage(defs map[p5.DefKey]*p5.DefImage, mn value.ModuleName, img *p5.Image) {
	if img == nil {
		return
	}
	for _, name := range img.Order {
		defs[p5.DefKey{Module: mn, Name: name, Hash: img.Hash}] = img.Defs[name]
	}
	for _, d := range img.Deps {
		defs[d.Key] = d.Def
	}
}

// saved and restore keep a copy of the loaded state (P5 restores it after
// evaluating a module's governance and its constants).
func (l *txLoaded) saved() txLoaded {
	return txLoaded{mods: append([]loadedMod(nil), l.mods...), count: l.count}
}

// loadedCount is the size of P5's loAllLoaded: the loaded definitions and
// the REPL's top-level ones.
func (in *Interp) loadedCount() int { return in.loaded.count + len(in.replDefs) }

// loadModule is P5's lookupModule: the module, read and charged when this
// transaction has not loaded it yet. A missing module costs nothing.
func (in *Interp) loadModule(mn value.ModuleName) (*Module, error) {
	return in.loadCharged(mn, false)
}

// loadModuleData is P5's lookupModuleData, used by name resolution: a
// first read also pays for merging the module's definitions into the
// loaded ones.
func (in *Interp) loadModuleData(mn value.ModuleName) (*Module, error) {
	return in.loadCharged(mn, true)
}

func (in *Interp) loadCharged(mn value.ModuleName, merge bool) (*Module, error) {
	m := in.lookupModule(mn)
	if m == nil || !in.metered() || in.loaded.has(mn) || in.loading == m {
		return m, nil
	}
	img := m.image
	encoded, entries := 0, 0
	if img != nil {
		encoded, entries = img.Encoded, img.Entries()
	}
	if err := in.chargeModuleOp("MOpLoadModule", gas.ModuleLoad(in.cfg(), encoded), int64(encoded), 0); err != nil {
		return nil, err
	}
	if merge {
		l := in.loadedCount()
		if err := in.chargeModuleOp("MOpMergeDeps", gas.MergeDeps(l, entries), int64(l), int64(entries)); err != nil {
			return nil, err
		}
	}
	in.loaded.add(mn, img)
	return m, nil
}

// chargeModuleOp is GModuleOp.
func (in *Interp) chargeModuleOp(op string, c gas.MilliGas, n, m int64) error {
	if !in.metered() {
		return nil
	}
	return in.charge(c, &gasWhat{k: gkModule, op: op, n: n, m: m})
}

// loadedAt is a module loaded through a name resolution at loc: the
// charge's error, if any, located there.
func (in *Interp) loadDataAt(mn value.ModuleName, loc syntax.Span) (*Module, error) {
	m, err := in.loadModuleData(mn)
	if err != nil {
		return nil, located(err, loc)
	}
	return m, nil
}

// resolveModuleData is P5's: the module as named, or (for a name without
// namespace) in the current namespace, read as name resolution reads.
func (in *Interp) resolveModuleData(mn value.ModuleName) (*Module, error) {
	m, err := in.loadModuleData(mn)
	if m != nil || err != nil || mn.Namespace != "" || in.namespace == "" {
		return m, err
	}
	return in.loadModuleData(value.ModuleName{Namespace: in.namespace, Name: mn.Name})
}
