package eval

import (
	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/p5"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// Installing a module or interface, as P5 charges it (Pact.Core.Compile's
// interpretTopLevel and evalTopLevel): after the governance, the renamer
// reads the modules the code names (charged as loads), the desugared module
// is charged by its estimated size (400 mg a byte), the constants are
// evaluated (charged as any evaluation), the module is hashed (100 mg a
// byte), a module's transitive dependencies are searched (charged by the
// walk), and the stored data is charged by its estimated size (200 mg a
// byte).

// beginInstall starts installing module or interface x as m: its source, the
// transaction that installs it and its hash, from P5's steps up to the hash
// (p5Install), or, where those do not run to the end (code that does not
// resolve, which the compiler then reports), the hash of the formatted code.
func (in *Interp) beginInstall(x syntax.Node, m *Module) (img *p5.Image, h *p5Hasher, charged bool, err error) {
	m.Code = in.source(x)
	m.TxHash = in.TxHash
	hash, img, h, charged, err := in.p5Install(x, m.Name)
	if err != nil {
		return nil, nil, false, err
	}
	if hash == "" {
		hash = value.HashBytes([]byte(syntax.Format(x)))
	}
	m.Hash = hash
	return img, h, charged, nil
}

// p5Install runs the steps up to the hash: it returns the module's hash and
// its image (the stored record, without its dependency map). charged is
// false when the code does not resolve: the compiler then reports why.
func (in *Interp) p5Install(x syntax.Node, mn value.ModuleName) (hash string, img *p5.Image, h *p5Hasher, charged bool, err error) {
	h = newP5Hasher(in, x, mn)
	txh := txHashBytes(in.TxHash)
	if in.metered() {
		size, err := h.desugarPass(x, txh)
		if err != nil {
			if isGasError(err) {
				return "", nil, nil, false, err
			}
			// The compiler reports the failure in its own words.
			return "", nil, nil, false, nil
		}
		if err := in.chargeModuleOp("MOpDesugarModule", gas.Desugar(in.cfg(), size), int64(size), 0); err != nil {
			return "", nil, nil, false, err
		}
		saved := in.loaded.saved()
		h.consts, h.constsErr = h.evalConsts(true)
		h.constsDone = true
		in.loaded = saved
		if h.constsErr != nil {
			return "", nil, nil, false, h.constsErr
		}
		charged = true
	}
	hash, size, err := h.hashPass(x)
	if err != nil {
		return "", nil, nil, false, nil
	}
	if charged {
		size += uint64(len(h.placeholder) + len(txh))
		if err := in.chargeHash(size); err != nil {
			return "", nil, nil, false, err
		}
	}
	hb, _ := value.DecodeBase64URL(hash)
	img, err = h.imagePass(x, hb, txh)
	if err != nil {
		return "", nil, nil, false, nil
	}
	return hash, img, h, charged, nil
}

func isGasError(err error) bool {
	e, ok := err.(*value.Error)
	return ok && e.Kind == value.ErrGas
}

// txHashBytes is the transaction hash's bytes (a module records the hash
// of the transaction that installed it).
func txHashBytes(s string) []byte {
	b, err := value.DecodeBase64URL(s)
	if err != nil {
		return []byte(s)
	}
	return b
}

// installDeps completes a module's image with its dependencies and, when
// charged, pays for the search and for the write. A module's dependencies
// are the definitions its own reach, transitively (P5 5.1); an interface's
// are the loaded definitions of the modules its code names.
func (in *Interp) installDeps(m *Module, img *p5.Image, h *p5Hasher, charged bool) error {
	if img == nil {
		return nil
	}
	if m.Interface {
		if charged {
			for k, d := range in.loaded.defMap() {
				if h.depMods[k.Module] {
					img.Deps = append(img.Deps, p5.Dep{Key: k, Def: d})
				}
			}
			sortDeps(img.Deps)
		}
	} else if charged {
		loadedDefs := in.loaded.defMap()
		loaded := make(map[p5.DefKey]*p5.DefImage, len(loadedDefs)+len(img.Order)+len(in.replDefs))
		for k, d := range loadedDefs {
			loaded[k] = d
		}
		own := img.OwnKeys(m.Name)
		for i, k := range own {
			loaded[k] = img.Defs[img.Order[i]]
		}
		// The REPL's top-level definitions are among the loaded ones.
		for name := range in.replDefs {
			loaded[p5.DefKey{Module: value.ModuleName{Name: "#repl"}, Name: name}] = &p5.DefImage{}
		}
		deps, cost, ok := p5.TransitiveDeps(own, loaded, in.Gas.Remaining())
		if err := in.chargeModuleOp("MOpFindTransitiveDep", cost, int64(cost), 0); err != nil {
			return err
		}
		if !ok {
			return &value.Error{Kind: value.ErrGas, Msg: in.Gas.ExceededText()}
		}
		img.Deps = deps
	} else {
		img.Deps = in.depClosure(m, img)
	}
	img.Finish()
	if charged {
		sz := img.DataSize
		if budget := in.Gas.SizeBudget(); sz > budget {
			// P5 stops estimating past what the gas left can pay for, and
			// charges what it counted; that fails.
			return in.chargeConst(gasMul(budget+1, in.cfg().SizeOfBytePenalty))
		}
		return in.chargeWrite(sz)
	}
	return nil
}

// depClosure is a module's transitive dependencies computed without a
// transaction's loaded definitions (when installing without gas, or
// rebuilding a stored module): the definitions reached from its own, found
// among its own and in the images of the modules they name.
func (in *Interp) depClosure(m *Module, img *p5.Image) []p5.Dep {
	known := map[p5.DefKey]*p5.DefImage{}
	own := img.OwnKeys(m.Name)
	for i, k := range own {
		known[k] = img.Defs[img.Order[i]]
	}
	seenMod := map[value.ModuleName]bool{m.Name: true}
	provide := func(k p5.DefKey) *p5.DefImage {
		if d, ok := known[k]; ok {
			return d
		}
		if !seenMod[k.Module] {
			seenMod[k.Module] = true
			if dm := in.lookupModule(k.Module); dm != nil && dm.image != nil {
				for _, kk := range dm.image.OwnKeys(dm.Name) {
					known[kk] = dm.image.Defs[kk.Name]
				}
				for _, dep := range dm.image.Deps {
					known[dep.Key] = dep.Def
				}
			}
		}
		return known[k]
	}
	reached := map[p5.DefKey]bool{}
	work := append([]p5.DefKey(nil), own...)
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
	ownSet := map[p5.DefKey]bool{}
	for _, k := range own {
		ownSet[k] = true
	}
	var deps []p5.Dep
	for k := range reached {
		if ownSet[k] {
			continue
		}
		if d := provide(k); d != nil {
			deps = append(deps, p5.Dep{Key: k, Def: d})
		}
	}
	sortDeps(deps)
	return deps
}

func sortDeps(deps []p5.Dep) {
	for i := 1; i < len(deps); i++ {
		for j := i; j > 0 && deps[j].Key.Less(deps[j-1].Key); j-- {
			deps[j], deps[j-1] = deps[j-1], deps[j]
		}
	}
}
