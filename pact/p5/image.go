package p5

import (
	"math"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/value"
)

// A module's Pact 5 image: what P5 stores for a module (its ModuleData:
// the module and the definitions of other modules it depends on), measured
// as P5's gas charges need it. P5 charges a module's installation by the
// estimated size of that data, its loading by the length of its CBOR
// encoding, the merge of a loaded module into a transaction's definitions
// by their number, and the search for a module's transitive dependencies by
// a walk of the definitions' bodies. Our modules are compiled from source,
// so the image is computed from the desugared IR (modhash.go) when a module
// is installed or rebuilt, and kept with the compiled module.

// DefKey is a fully qualified name: a definition of one version of a
// module. Hash is the module hash's bytes.
type DefKey struct {
	Module value.ModuleName
	Name   string
	Hash   string
}

// Less is P5's derived order on FullyQualifiedName: module name, then
// namespace (none first), then the definition's name, then the hash.
func (a DefKey) Less(b DefKey) bool {
	if a.Module.Name != b.Module.Name {
		return a.Module.Name < b.Module.Name
	}
	if a.Module.Namespace != b.Module.Namespace {
		if a.Module.Namespace == "" || b.Module.Namespace == "" {
			return a.Module.Namespace == ""
		}
		return a.Module.Namespace < b.Module.Namespace
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Hash < b.Hash
}

// DefTrace is what P5's transitive-dependency walk does in a definition's
// body: a tick per term, and a check of each top-level name referenced, in
// the order met (a managed capability's manager first).
type DefTrace struct {
	nodes int
	Refs  []DefKey
}

func (t *DefTrace) Node() {
	if t != nil {
		t.nodes++
	}
}

func (t *DefTrace) Ref(k DefKey) {
	if t != nil {
		t.Refs = append(t.Refs, k)
	}
}

func (t *DefTrace) Mark() int {
	if t == nil {
		return 0
	}
	return len(t.Refs)
}

// LastRefFirst moves the last reference to position mark.
func (t *DefTrace) LastRefFirst(mark int) {
	if t == nil || len(t.Refs) <= mark {
		return
	}
	last := t.Refs[len(t.Refs)-1]
	copy(t.Refs[mark+1:], t.Refs[mark:len(t.Refs)-1])
	t.Refs[mark] = last
}

// DefImage is one definition as P5 stores it.
type DefImage struct {
	// walked says the transitive walk enters it (defun, defcap, defpact).
	Walked bool
	Trace  DefTrace
	// size is the estimated size of the Def with its infos; cbor the length
	// of its CBOR encoding.
	size uint64
	cbor int
}

// Dep is one entry of a module's dependency map.
type Dep struct {
	Key DefKey
	Def *DefImage
}

// Image is a module's or interface's stored data, measured.
type Image struct {
	Hash  string // the module hash's bytes
	Defs  map[string]*DefImage
	Order []string
	Deps  []Dep
	// size and cbor measure the Module (or Interface) record with infos.
	Size uint64
	CBOR int
	// encoded is the length of the stored document: what a read of the
	// module is charged by.
	Encoded int
	// dataSize is the estimated size of the whole ModuleData (module and
	// dependency map): what its installation is charged by.
	DataSize uint64
}

// AddDef records the definition name, its measures and what P5's
// transitive-dependency walk does in it; walked says the walk enters it
// (a defun, defcap or defpact that is not an interface's signature).
func (img *Image) AddDef(name string, walked bool, t *DefTrace, size uint64, cbor int) {
	di := &DefImage{Walked: walked, size: size, cbor: cbor}
	if t != nil {
		di.Trace = *t
	}
	if img.Defs == nil {
		img.Defs = map[string]*DefImage{}
	}
	img.Defs[name] = di
	img.Order = append(img.Order, name)
}

// OwnKeys are the fully qualified names of a module's own definitions.
func (img *Image) OwnKeys(mn value.ModuleName) []DefKey {
	keys := make([]DefKey, len(img.Order))
	for i, name := range img.Order {
		keys[i] = DefKey{Module: mn, Name: name, Hash: img.Hash}
	}
	return keys
}

// Entries is the number of definitions loading the module adds to a
// transaction's loaded definitions (its own and its dependencies):
// P5's merge cost counts them.
func (img *Image) Entries() int { return len(img.Defs) + len(img.Deps) }

// fqnSize and fqnCBOR measure a FullyQualifiedName, a dependency map key.
func fqnSize(k DefKey) uint64 {
	var w Writer
	w.FQN(k.Module, k.Name, []byte(k.Hash))
	return w.Size
}

func fqnCBOR(k DefKey) int {
	w := Writer{CBOR: true}
	w.FQN(k.Module, k.Name, []byte(k.Hash))
	return len(w.Buf)
}

// Finish computes the measures of the whole ModuleData from the module's
// record and its dependencies: the ModuleData (or InterfaceData)
// constructor, the record, and the map of dependencies.
func (img *Image) Finish() {
	size := uint64(SizeADT) + img.Size + SizeArray
	n := 2 + img.CBOR // list(2), the constructor's tag word, the record
	n += cborHeadLen(uint64(len(img.Deps)))
	for _, d := range img.Deps {
		size += SizeTag + fqnSize(d.Key) + d.Def.size
		n += fqnCBOR(d.Key) + d.Def.cbor
	}
	img.DataSize = size
	// The document: the version word, then the encoding as a byte string.
	img.Encoded = 1 + cborHeadLen(uint64(n)) + n
}

func cborHeadLen(n uint64) int {
	switch {
	case n < 24:
		return 1
	case n <= 0xff:
		return 2
	case n <= 0xffff:
		return 3
	case n <= 0xffffffff:
		return 5
	}
	return 9
}

// TransitiveDeps is P5's getAllTransitiveDependencies for a module being
// installed: starting from its own definitions, it walks the bodies of the
// definitions found in loaded (which holds the module's own ones too),
// collecting every fully qualified name reached. It returns the
// dependencies (the names reached that are not the module's own) and the
// cost P5 charges: 5 milligas per term walked, ⌈ln |set|⌉·200 for each set
// search and insertion, and ⌈m·ln(n/m+1)⌉·200 for restricting the loaded
// definitions (n of them) to the m names reached. budget bounds the walk
// (upstream fails it as soon as it passes the gas left); past it, the cost
// so far is returned with ok false.
func TransitiveDeps(own []DefKey, loaded map[DefKey]*DefImage, budget gas.MilliGas) (deps []Dep, cost gas.MilliGas, ok bool) {
	dep := newFQNSet(own)
	work := newFQNSet(own)
	ownSet := make(map[DefKey]bool, len(own))
	for _, k := range own {
		ownSet[k] = true
	}
	var spent gas.MilliGas
	over := func(add uint64) bool {
		spent = spent.Add(gas.MilliGas(add))
		return spent > budget
	}
	search := func(s *fqnSet) bool {
		if s.len() == 0 {
			return false
		}
		return over(uint64(math.Ceil(math.Log(float64(s.len())))) * 200)
	}
	check := func(k DefKey) bool {
		if search(dep) {
			return true
		}
		if !dep.has(k) {
			if search(dep) || search(work) {
				return true
			}
			work.add(k)
			dep.add(k)
		}
		return false
	}
	for work.len() > 0 {
		k := work.popMin()
		d, found := loaded[k]
		if !found || !d.Walked {
			continue
		}
		t := &d.Trace
		// The walk's ticks and checks interleave; only their sum and the
		// sets' sizes at each check matter, so the ticks are added first.
		if over(uint64(t.nodes) * 5) {
			return nil, spent, false
		}
		for _, r := range t.Refs {
			if check(r) {
				return nil, spent, false
			}
		}
	}
	n, m := float64(len(loaded)), float64(dep.len())
	if len(loaded) > 0 {
		spent = spent.Add(gas.MilliGas(uint64(math.Ceil(m*math.Log(n/m+1))) * 200))
	}
	for _, k := range dep.sorted() {
		// A name not among the loaded definitions (none should be) has
		// nothing to store.
		if d := loaded[k]; d != nil && !ownSet[k] {
			deps = append(deps, Dep{Key: k, Def: d})
		}
	}
	return deps, spent, true
}

// DepClosure is the transitive dependencies of the module mn, whose image
// img is, computed without a transaction's loaded definitions (installing
// without gas, rebuilding a stored module): the definitions reached from
// its own, found among its own and in the images of the modules they name.
// imageOf reads such a module, once each, when the walk first needs one of
// its definitions: its name as installed and its image (nil: none, its
// definitions are not found). Nothing is charged; the result is sorted.
func (img *Image) DepClosure(mn value.ModuleName, imageOf func(value.ModuleName) (value.ModuleName, *Image)) []Dep {
	known := map[DefKey]*DefImage{}
	own := img.OwnKeys(mn)
	for i, k := range own {
		known[k] = img.Defs[img.Order[i]]
	}
	seenMod := map[value.ModuleName]bool{mn: true}
	provide := func(k DefKey) *DefImage {
		if d, ok := known[k]; ok {
			return d
		}
		if !seenMod[k.Module] {
			seenMod[k.Module] = true
			if name, mi := imageOf(k.Module); mi != nil {
				for _, kk := range mi.OwnKeys(name) {
					known[kk] = mi.Defs[kk.Name]
				}
				for _, dep := range mi.Deps {
					known[dep.Key] = dep.Def
				}
			}
		}
		return known[k]
	}
	reached := map[DefKey]bool{}
	work := append([]DefKey(nil), own...)
	for _, k := range own {
		reached[k] = true
	}
	for len(work) > 0 {
		k := work[len(work)-1]
		work = work[:len(work)-1]
		d := provide(k)
		if d == nil || !d.Walked {
			continue
		}
		for _, r := range d.Trace.Refs {
			if !reached[r] {
				reached[r] = true
				work = append(work, r)
			}
		}
	}
	ownSet := map[DefKey]bool{}
	for _, k := range own {
		ownSet[k] = true
	}
	var deps []Dep
	for k := range reached {
		if ownSet[k] {
			continue
		}
		if d := provide(k); d != nil {
			deps = append(deps, Dep{Key: k, Def: d})
		}
	}
	SortDeps(deps)
	return deps
}

// SortDeps orders a dependency map's entries as P5 stores them (by
// DefKey.Less), in place.
func SortDeps(deps []Dep) {
	for i := 1; i < len(deps); i++ {
		for j := i; j > 0 && deps[j].Key.Less(deps[j-1].Key); j-- {
			deps[j], deps[j-1] = deps[j-1], deps[j]
		}
	}
}

// fqnSet is a set of names that pops its smallest (P5's Set.minView).
type fqnSet struct {
	m map[DefKey]bool
}

func newFQNSet(ks []DefKey) *fqnSet {
	s := &fqnSet{m: make(map[DefKey]bool, len(ks))}
	for _, k := range ks {
		s.m[k] = true
	}
	return s
}

func (s *fqnSet) len() int          { return len(s.m) }
func (s *fqnSet) has(k DefKey) bool { return s.m[k] }
func (s *fqnSet) add(k DefKey)      { s.m[k] = true }

func (s *fqnSet) popMin() DefKey {
	var min DefKey
	first := true
	for k := range s.m {
		if first || k.Less(min) {
			min, first = k, false
		}
	}
	delete(s.m, min)
	return min
}

func (s *fqnSet) sorted() []DefKey {
	out := make([]DefKey, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Less(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (k DefKey) String() string {
	return k.Module.String() + "." + k.Name + "{" + value.EncodeBase64URL([]byte(k.Hash)) + "}"
}
