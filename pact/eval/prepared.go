package eval

import (
	"sync/atomic"

	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// A Prepared is a top-level form parsed once and evaluated again and again,
// by one interpreter or by many (a node evaluates coin.buy-gas and
// coin.redeem-gas in every transaction, each with an interpreter of its
// own, on every chain). An expression's compiled forms are kept and used
// again while what compiling them read is unchanged, so that each
// evaluation does not pay the desugaring and name resolution again. Its gas
// is the same: the module reads that name resolution charges for are made
// again, in the same order.
//
// A Prepared may be shared by interpreters on several goroutines: the kept
// compiled forms are never modified, only replaced.
type Prepared struct {
	item syntax.TopLevel
	// forms are the compiled forms kept, the latest last: one for each
	// state of what compiling reads that the form was evaluated in (each
	// chain's modules, for instance, are modules of their own).
	forms atomic.Pointer[[]*compiledForm]
}

// maxCompiledForms bounds a Prepared's compiled forms; the oldest goes.
const maxCompiledForms = 64

// Prepare makes item a Prepared.
func Prepare(item syntax.TopLevel) *Prepared { return &Prepared{item: item} }

// Form is the top-level form p evaluates.
func (p *Prepared) Form() syntax.TopLevel { return p.item }

// Compiled is how many compiled forms p keeps.
func (p *Prepared) Compiled() int {
	if fs := p.forms.Load(); fs != nil {
		return len(*fs)
	}
	return 0
}

// compiledForm is an expression's compiled form and what compiling it read:
// it is valid for an interpreter whose top-level scope (compileScope), REPL
// flag and namespace are the same, and whose database gives the same module
// for every read in reads, in turn.
type compiledForm struct {
	n         node
	scope     *compileScope
	repl      bool
	namespace string
	reads     []moduleRead
}

// moduleRead is one module read of name resolution: charged (loadCharged,
// merging when merge) or not (lookupModule), where, and what it gave.
type moduleRead struct {
	name    value.ModuleName
	merge   bool
	charged bool
	loc     syntax.Span
	mod     *Module
}

// compileScope stands for what compiling a top-level form reads from the
// interpreter besides the database and the namespace: its natives, REPL
// definitions and top-level imports. An interpreter gets a new one
// whenever any of them changes; coreScope is every fresh interpreter's
// (the core natives, nothing defined, nothing imported), so that forms
// compiled by one serve the next.
type compileScope struct{ _ byte }

var coreScope = &compileScope{}

// scopeChanged is called after a change to the natives, the REPL
// definitions or the top-level imports.
func (in *Interp) scopeChanged() { in.topScope = &compileScope{} }

// addTopUse brings u's names into the top-level scope.
func (in *Interp) addTopUse(u useImport) {
	in.topUses = append(in.topUses, u)
	in.scopeChanged()
}

// EvalPrepared evaluates p as EvalTopLevel evaluates its form, compiling an
// expression only when none of its kept compiled forms is valid here.
func (in *Interp) EvalPrepared(p *Prepared, repl bool) (value.Value, error) {
	x, ok := p.item.(syntax.Expr)
	if !ok || in.Coverage != nil || in.loading != nil {
		return in.EvalTopLevel(p.item, repl)
	}
	in.startTopLevel()
	n, err := in.compilePrepared(p, x, repl)
	if err != nil {
		return nil, err
	}
	return in.evalTopExpr(n, x)
}

// compilePrepared is x's compiled form: a kept one that is valid, its
// module reads made again; else compiled now, and kept when it compiles.
func (in *Interp) compilePrepared(p *Prepared, x syntax.Expr, repl bool) (node, error) {
	var forms []*compiledForm
	old := p.forms.Load()
	if old != nil {
		forms = *old
	}
	if f, err := in.keptForm(forms, repl); f != nil || err != nil {
		return f, err
	}
	f := &compiledForm{scope: in.topScope, repl: repl, namespace: in.namespace}
	c := &compiler{renamer: renamer{in: in, allowRepl: repl, charged: true, reads: &f.reads}}
	n, err := c.expr(x)
	if err != nil {
		return nil, err
	}
	f.n = n
	kept := make([]*compiledForm, 0, min(len(forms)+1, maxCompiledForms))
	kept = append(kept, forms[max(0, len(forms)+1-maxCompiledForms):]...)
	kept = append(kept, f)
	// A form compiled meanwhile by another goroutine may be lost: it is
	// compiled again when next wanted.
	p.forms.CompareAndSwap(old, &kept)
	return n, nil
}

// keptForm makes the module reads of the kept forms compiled in this
// interpreter's scope, REPL flag and namespace, and returns the node of
// the one whose reads all give what they gave it; nil when none does.
//
// Compiling is deterministic: forms whose reads gave the same modules so
// far make the same next read. So the reads are made once, in turn, each
// narrowing the forms that are still valid, as compiling would make them;
// when none is left, compiling again reads the modules read so far as
// they were just read (and charged: loaded, they are not charged twice).
func (in *Interp) keptForm(forms []*compiledForm, repl bool) (node, error) {
	var f *compiledForm
	for i := len(forms) - 1; i >= 0; i-- {
		if g := forms[i]; g.scope == in.topScope && g.repl == repl && g.namespace == in.namespace {
			f = g
			break
		}
	}
	if f == nil {
		return nil, nil
	}
	for i := range f.reads {
		rd := &f.reads[i]
		var m *Module
		if rd.charged {
			var err error
			if m, err = in.loadCharged(rd.name, rd.merge); err != nil {
				// What the renamer returns for the same failed read
				// (renamer.load).
				return nil, located(err, rd.loc)
			}
		} else {
			m = in.lookupModule(rd.name)
		}
		if m != rd.mod {
			if f = in.otherForm(forms, f, i, m); f == nil {
				return nil, nil
			}
		}
	}
	return f.n, nil
}

// otherForm is a kept form, valid in the same scope as f, whose first i
// reads gave what f's did and whose read i gave m; nil if none.
func (in *Interp) otherForm(forms []*compiledForm, f *compiledForm, i int, m *Module) *compiledForm {
	for j := len(forms) - 1; j >= 0; j-- {
		g := forms[j]
		if g == f || g.scope != f.scope || g.repl != f.repl || g.namespace != f.namespace ||
			len(g.reads) <= i || g.reads[i].mod != m {
			continue
		}
		same := true
		for k := range i + 1 {
			a, b := &g.reads[k], &f.reads[k]
			if a.name != b.name || a.merge != b.merge || a.charged != b.charged || k < i && a.mod != b.mod {
				same = false
				break
			}
		}
		if same {
			return g
		}
	}
	return nil
}
