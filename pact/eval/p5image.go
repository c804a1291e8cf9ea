package eval

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

// fqnKey is a fully qualified name: a definition of one version of a
// module. hash is the module hash's bytes.
type fqnKey struct {
	mod  value.ModuleName
	name string
	hash string
}

// less is P5's derived order on FullyQualifiedName: module name, then
// namespace (none first), then the definition's name, then the hash.
func (a fqnKey) less(b fqnKey) bool {
	if a.mod.Name != b.mod.Name {
		return a.mod.Name < b.mod.Name
	}
	if a.mod.Namespace != b.mod.Namespace {
		if a.mod.Namespace == "" || b.mod.Namespace == "" {
			return a.mod.Namespace == ""
		}
		return a.mod.Namespace < b.mod.Namespace
	}
	if a.name != b.name {
		return a.name < b.name
	}
	return a.hash < b.hash
}

// defTrace is what P5's transitive-dependency walk does in a definition's
// body: a tick per term, and a check of each top-level name referenced, in
// the order met (a managed capability's manager first).
type defTrace struct {
	nodes int
	refs  []fqnKey
}

func (t *defTrace) node() {
	if t != nil {
		t.nodes++
	}
}

func (t *defTrace) ref(k fqnKey) {
	if t != nil {
		t.refs = append(t.refs, k)
	}
}

func (t *defTrace) mark() int {
	if t == nil {
		return 0
	}
	return len(t.refs)
}

// lastRefFirst moves the last reference to position mark.
func (t *defTrace) lastRefFirst(mark int) {
	if t == nil || len(t.refs) <= mark {
		return
	}
	last := t.refs[len(t.refs)-1]
	copy(t.refs[mark+1:], t.refs[mark:len(t.refs)-1])
	t.refs[mark] = last
}

// p5DefImage is one definition as P5 stores it.
type p5DefImage struct {
	kind DefKind
	// walked says the transitive walk enters it (defun, defcap, defpact).
	walked bool
	trace  defTrace
	// size is the estimated size of the Def with its infos; cbor the length
	// of its CBOR encoding.
	size uint64
	cbor int
}

// p5Dep is one entry of a module's dependency map.
type p5Dep struct {
	key fqnKey
	def *p5DefImage
}

// p5Image is a module's or interface's stored data, measured.
type p5Image struct {
	hash  string // the module hash's bytes
	defs  map[string]*p5DefImage
	order []string
	deps  []p5Dep
	// size and cbor measure the Module (or Interface) record with infos.
	size uint64
	cbor int
	// encoded is the length of the stored document: what a read of the
	// module is charged by.
	encoded int
	// dataSize is the estimated size of the whole ModuleData (module and
	// dependency map): what its installation is charged by.
	dataSize uint64
}

// addDef records a definition. Of an interface only the constants and
// schemas are definitions others can load (P5's ifDefToDef).
func (img *p5Image) addDef(d *p5Def, iface bool, t *defTrace, size uint64, cbor int) {
	if iface && d.kind != DefConstant && d.kind != DefSchemaKind {
		return
	}
	di := &p5DefImage{kind: d.kind, size: size, cbor: cbor}
	if t != nil {
		di.trace = *t
	}
	di.walked = !d.sig && (d.kind == DefFun || d.kind == DefCapability || d.kind == DefPactKind)
	if img.defs == nil {
		img.defs = map[string]*p5DefImage{}
	}
	img.defs[d.name] = di
	img.order = append(img.order, d.name)
}

// entries is the number of definitions loading the module adds to a
// transaction's loaded definitions (its own and its dependencies):
// P5's merge cost counts them.
func (img *p5Image) entries() int { return len(img.defs) + len(img.deps) }

// fqnSize and fqnCBOR measure a FullyQualifiedName, a dependency map key.
func fqnSize(k fqnKey) uint64 {
	var w irW
	w.fqn(k.mod, k.name, []byte(k.hash))
	return w.size
}

func fqnCBOR(k fqnKey) int {
	w := irW{cbor: true}
	w.fqn(k.mod, k.name, []byte(k.hash))
	return len(w.b)
}

// finish computes the measures of the whole ModuleData from the module's
// record and its dependencies: the ModuleData (or InterfaceData)
// constructor, the record, and the map of dependencies.
func (img *p5Image) finish() {
	size := uint64(szADT) + img.size + szArray
	n := 2 + img.cbor // list(2), the constructor's tag word, the record
	n += cborHeadLen(uint64(len(img.deps)))
	for _, d := range img.deps {
		size += szTag + fqnSize(d.key) + d.def.size
		n += fqnCBOR(d.key) + d.def.cbor
	}
	img.dataSize = size
	// The document: the version word, then the encoding as a byte string.
	img.encoded = 1 + cborHeadLen(uint64(n)) + n
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

// transitiveDeps is P5's getAllTransitiveDependencies for a module being
// installed: starting from its own definitions, it walks the bodies of the
// definitions found in loaded (which holds the module's own ones too),
// collecting every fully qualified name reached. It returns the
// dependencies (the names reached that are not the module's own) and the
// cost P5 charges: 5 milligas per term walked, ⌈ln |set|⌉·200 for each set
// search and insertion, and ⌈m·ln(n/m+1)⌉·200 for restricting the loaded
// definitions (n of them) to the m names reached. budget bounds the walk
// (upstream fails it as soon as it passes the gas left); past it, the cost
// so far is returned with ok false.
func transitiveDeps(own []fqnKey, loaded map[fqnKey]*p5DefImage, budget gas.MilliGas) (deps []p5Dep, cost gas.MilliGas, ok bool) {
	dep := newFQNSet(own)
	work := newFQNSet(own)
	ownSet := make(map[fqnKey]bool, len(own))
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
	check := func(k fqnKey) bool {
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
		if !found || !d.walked {
			continue
		}
		t := &d.trace
		// The walk's ticks and checks interleave; only their sum and the
		// sets' sizes at each check matter, so the ticks are added first.
		if over(uint64(t.nodes) * 5) {
			return nil, spent, false
		}
		for _, r := range t.refs {
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
			deps = append(deps, p5Dep{key: k, def: d})
		}
	}
	return deps, spent, true
}

// fqnSet is a set of names that pops its smallest (P5's Set.minView).
type fqnSet struct {
	m map[fqnKey]bool
}

func newFQNSet(ks []fqnKey) *fqnSet {
	s := &fqnSet{m: make(map[fqnKey]bool, len(ks))}
	for _, k := range ks {
		s.m[k] = true
	}
	return s
}

func (s *fqnSet) len() int          { return len(s.m) }
func (s *fqnSet) has(k fqnKey) bool { return s.m[k] }
func (s *fqnSet) add(k fqnKey)      { s.m[k] = true }

func (s *fqnSet) popMin() fqnKey {
	var min fqnKey
	first := true
	for k := range s.m {
		if first || k.less(min) {
			min, first = k, false
		}
	}
	delete(s.m, min)
	return min
}

func (s *fqnSet) sorted() []fqnKey {
	out := make([]fqnKey, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].less(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (k fqnKey) String() string {
	return k.mod.String() + "." + k.name + "{" + value.EncodeBase64URL([]byte(k.hash)) + "}"
}
