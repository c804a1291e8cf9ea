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
			p5.SortDeps(img.Deps)
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
// transaction's loaded definitions (p5.Image.DepClosure), the images of
// the modules its definitions name read as lookupModule reads them.
func (in *Interp) depClosure(m *Module, img *p5.Image) []p5.Dep {
	return img.DepClosure(m.Name, func(mn value.ModuleName) (value.ModuleName, *p5.Image) {
		if dm := in.lookupModule(mn); dm != nil && dm.image != nil {
			return dm.Name, dm.image
		}
		return mn, nil
	})
}
