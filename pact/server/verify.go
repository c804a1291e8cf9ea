package server

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/typecheck"
	"github.com/ledgernode/ledger-node/pact/value"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// verify (DECISIONS.md, "verify on pact -s"): parse, resolve and check
// modules without keeping anything, and report one finding per problem.
//
// Request: {"modules": [SOURCE, ...], "data": OBJECT?}. Each SOURCE is
// Pact code (modules, interfaces and the top-level forms around them, such
// as (namespace ...) or (define-keyset ...)); the sources are loaded in
// order into a throwaway in-memory interpreter, so later ones may use
// earlier ones. data is the message data of that load (for read-keyset and
// the like). A single string is accepted for "modules" too.
//
// Response: {"output": [FINDING, ...]}, empty when all is well, where
// FINDING is
//
//	{"type": "Error"|"Warning", "text": MESSAGE,
//	 "info": "modules[I]:LINE:COLUMN",
//	 "span": {"startLine", "startColumn", "endLine", "endColumn"}}
//
// Lines and columns count from 1. The checks:
//   - syntax: the source parses;
//   - loading: every form evaluates (names resolve, schemas and tables
//     exist, interfaces are implemented, constants have their declared
//     types, ...). A module governed by a keyset that is not defined gets
//     a stand-in keyset, and (namespace N) a stand-in namespace, so that
//     a module can be checked on its own;
//   - static types: a call of a function of the same module must pass as
//     many arguments as it declares, and a literal argument (or a literal
//     returned as a function's last expression) must have the declared
//     type;
//   - type inference (package typecheck), on each module that loads: a
//     type error is an Error, a check whose types are unknown a Warning;
//   - warnings: a defun argument or result without a type annotation, and
//     what the interpreter warns about while loading (deprecated natives).
//
// There is no SMT solver: @model properties are parsed, not proven.

type finding struct {
	Type string   `json:"type"`
	Text string   `json:"text"`
	Info string   `json:"info"`
	Span spanJSON `json:"span"`
}

type spanJSON struct {
	StartLine   int32 `json:"startLine"`
	StartColumn int32 `json:"startColumn"`
	EndLine     int32 `json:"endLine"`
	EndColumn   int32 `json:"endColumn"`
}

// standInKey is the public key of the stand-in keysets verify creates.
const standInKey = "0000000000000000000000000000000000000000000000000000000000000000"

type verifyRequest struct {
	Modules json.RawMessage `json:"modules"`
	Data    json.RawMessage `json:"data"`
}

// Verify answers the verify endpoint.
func (e *Engine) Verify(ctx context.Context, body []byte) ([]byte, error) {
	var req verifyRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, contractapi.Reject("Malformed request body: %v", err)
	}
	var sources []string
	if err := json.Unmarshal(req.Modules, &sources); err != nil {
		var one string
		if err1 := json.Unmarshal(req.Modules, &one); err1 != nil {
			return nil, contractapi.Reject(`Malformed request body: "modules" must be a list of Pact sources (strings)`)
		}
		sources = []string{one}
	}
	if len(sources) == 0 {
		return nil, contractapi.Reject(`Malformed request body: "modules" is missing or empty`)
	}
	var data value.Value = value.NewObject()
	if len(req.Data) > 0 && string(req.Data) != "null" {
		v, err := value.DecodeJSON(req.Data)
		if err != nil {
			return nil, contractapi.Reject("Malformed request body: data: %v", err)
		}
		data = v
	}
	// Verifying evaluates the sources' top-level forms, so it runs under
	// the bounds of a command, and one at a time with commands: memory is
	// bounded by one evaluation's, whoever sends the work.
	e.mu.Lock()
	if e.closed.Load() {
		e.mu.Unlock()
		return nil, contractapi.ErrClosed
	}
	out := verifySources(sources, data, e.flags, e)
	e.mu.Unlock()
	if out == nil {
		out = []finding{}
	}
	return json.Marshal(map[string]any{"output": out})
}

// verifySources loads the sources into a throwaway interpreter under e's
// work budget and element limit (all sources share one budget; verify
// charges no gas, so the gas rate plays no part), and collects the
// findings.
func verifySources(sources []string, data value.Value, flags map[string]bool, e *Engine) []finding {
	mem := db.NewMemDB()
	in := eval.New(mem)
	e.budget(in)
	in.Data = data
	in.Flags = flags
	in.Signers = []value.Signer{{PubKey: standInKey}}
	var out []finding
	var current syntax.Span
	in.Warn = func(s string) { out = append(out, newFinding("Warning", s, current)) }
	if _, err := mem.BeginTx(db.Transactional); err != nil {
		return []finding{newFinding("Error", err.Error(), syntax.Span{})}
	}
	defer mem.RollbackTx()
	for i, src := range sources {
		name := "modules[" + strconv.Itoa(i) + "]"
		f, err := syntax.ParseProgram(name, src)
		if err != nil {
			loc := syntax.Span{File: name}
			if se, ok := err.(*syntax.Error); ok {
				loc = se.Loc
			}
			out = append(out, newFinding("Error", syntaxMessage(err), loc))
			continue
		}
		in.SetSource(name, src)
		for _, item := range f.Items {
			current = item.Span()
			provide(in, mem, item)
			switch x := item.(type) {
			case *syntax.Module:
				out = append(out, checkDecls(x.Name, x.Body, false)...)
			case *syntax.Interface:
				out = append(out, checkDecls(x.Name, x.Body, true)...)
			}
			if _, err := in.EvalTopLevel(item, false); err != nil {
				err = e.budgetError(in, err)
				loc := item.Span()
				msg := err.Error()
				if ee, ok := err.(*value.Error); ok {
					msg = ee.Msg
					if ee.Located {
						loc = ee.Loc
					}
				}
				out = append(out, newFinding("Error", msg, loc))
				continue
			}
			out = typecheckItem(in, item, out)
		}
	}
	return out
}

// typecheckItem adds what package typecheck finds in the module or
// interface item just installed: its type errors (but one where a check
// above already reported that place), and, as warnings, the checks it could
// not decide (an empty output claims that every check passed).
func typecheckItem(in *eval.Interp, item syntax.TopLevel, out []finding) []finding {
	var name string
	switch x := item.(type) {
	case *syntax.Module:
		name = x.Name
	case *syntax.Interface:
		name = x.Name
	default:
		return out
	}
	m := in.LookupModule(name)
	if m == nil {
		return out
	}
	rep, err := typecheck.Check(in, m)
	if err != nil {
		return append(out, newFinding("Warning", err.Error(), item.Span()))
	}
	reported := map[string]bool{}
	for _, f := range out {
		if f.Type == "Error" {
			reported[f.Info] = true
		}
	}
	for _, f := range rep.Errors {
		nf := newFinding("Error", "Type error in "+m.Name.String()+"."+f.Def+": "+f.Msg, f.Span)
		if !reported[nf.Info] {
			out = append(out, nf)
		}
	}
	for _, f := range rep.Undecided {
		out = append(out, newFinding("Warning", "Type check undecided in "+m.Name.String()+"."+f.Def+": "+f.Msg, f.Span))
	}
	return out
}

func syntaxMessage(err error) string {
	if se, ok := err.(*syntax.Error); ok {
		return se.Msg
	}
	return err.Error()
}

func newFinding(typ, text string, loc syntax.Span) finding {
	return finding{
		Type: typ,
		Text: text,
		Info: loc.File + ":" + strconv.Itoa(int(loc.Start.Line)) + ":" + strconv.Itoa(int(loc.Start.Col)),
		Span: spanJSON{loc.Start.Line, loc.Start.Col, loc.End.Line, loc.End.Col},
	}
}

// provide creates the stand-ins a form needs: the governance keyset of a
// module, the namespace of (namespace N).
func provide(in *eval.Interp, mem *db.MemDB, item syntax.TopLevel) {
	standIn := value.NewKeySet([]string{standInKey}, value.KeysAll)
	switch x := item.(type) {
	case *syntax.Module:
		if x.Gov.Cap {
			return
		}
		names := []string{x.Gov.Name}
		if ns := in.Namespace(); ns != "" && !strings.Contains(x.Gov.Name, ".") {
			names = append(names, ns+"."+x.Gov.Name)
		}
		for _, n := range names {
			if _, found, _ := mem.Read(db.KeySets, "", n); !found {
				mem.Write(db.KeySets, "", n, standIn, db.Write)
			}
		}
	case *syntax.App:
		v, ok := x.Fn.(*syntax.Var)
		if !ok || v.Name.Kind != syntax.BareName || v.Name.Name != "namespace" || len(x.Args) != 1 {
			return
		}
		lit, ok := x.Args[0].(*syntax.StringLit)
		if !ok || lit.Value == "" {
			return
		}
		if _, found, _ := mem.Read(db.Namespaces, "", lit.Value); !found {
			mem.Write(db.Namespaces, "", lit.Value, &eval.Namespace{Name: lit.Value, User: standIn, Admin: standIn}, db.Write)
		}
	}
}

// signature is what a call of a module's function is checked against.
type signature struct {
	name string
	args []syntax.Arg
	ret  syntax.Type
}

// checkDecls is the static part of verify over one module or interface.
func checkDecls(module string, body []syntax.Decl, iface bool) []finding {
	c := &checker{module: module, sigs: map[string]*signature{}}
	for _, d := range body {
		switch x := d.(type) {
		case *syntax.Defun:
			c.sigs[x.Name] = &signature{name: x.Name, args: x.Args, ret: x.Ret}
		case *syntax.DefPact:
			c.sigs[x.Name] = &signature{name: x.Name, args: x.Args, ret: x.Ret}
		}
	}
	for _, d := range body {
		switch x := d.(type) {
		case *syntax.Defun:
			if !iface {
				for _, a := range x.Args {
					if a.Type == nil {
						c.warn(a.Loc, "Missing type annotation for argument "+a.Name+" of "+module+"."+x.Name)
					}
				}
				if x.Ret == nil {
					c.warn(x.NameLoc, "Missing return type annotation for "+module+"."+x.Name)
				}
			}
			c.body(x.Args, x.Body)
			c.checkReturn(x.Name, x.Ret, x.Body)
		case *syntax.DefCap:
			c.body(x.Args, x.Body)
		case *syntax.DefPact:
			for _, st := range x.Steps {
				c.body(x.Args, []syntax.Expr{st.Expr})
				if st.Rollback != nil {
					c.body(x.Args, []syntax.Expr{st.Rollback})
				}
			}
		case *syntax.DefConst:
			c.expr(x.Value, nil)
		}
	}
	return c.out
}

type checker struct {
	module string
	sigs   map[string]*signature
	out    []finding
}

func (c *checker) errorAt(loc syntax.Span, msg string) {
	c.out = append(c.out, newFinding("Error", msg, loc))
}
func (c *checker) warn(loc syntax.Span, msg string) {
	c.out = append(c.out, newFinding("Warning", msg, loc))
}

// scope is the set of local names in scope (they shadow module members).
type scope struct {
	names  map[string]bool
	parent *scope
}

func (s *scope) has(n string) bool {
	for ; s != nil; s = s.parent {
		if s.names[n] {
			return true
		}
	}
	return false
}

func (s *scope) with(names ...string) *scope {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return &scope{names: m, parent: s}
}

func argNames(args []syntax.Arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.Name
	}
	return out
}

func (c *checker) body(args []syntax.Arg, body []syntax.Expr) {
	s := (*scope)(nil).with(argNames(args)...)
	for _, x := range body {
		c.expr(x, s)
	}
}

func (c *checker) expr(x syntax.Expr, s *scope) {
	switch x := x.(type) {
	case *syntax.App:
		c.call(x, s)
		c.expr(x.Fn, s)
		for _, a := range x.Args {
			c.expr(a, s)
		}
	case *syntax.List:
		for _, e := range x.Elems {
			c.expr(e, s)
		}
	case *syntax.Object:
		for _, f := range x.Fields {
			c.expr(f.Value, s)
		}
	case *syntax.Binding:
		names := make([]string, len(x.Binds))
		for i, b := range x.Binds {
			names[i] = b.Var.Name
		}
		inner := s.with(names...)
		for _, e := range x.Body {
			c.expr(e, inner)
		}
	case *syntax.Let:
		inner := s
		for _, b := range x.Binders {
			if x.Star {
				c.expr(b.Value, inner)
				inner = inner.with(b.Var.Name)
			} else {
				c.expr(b.Value, s)
			}
		}
		if !x.Star {
			names := make([]string, len(x.Binders))
			for i, b := range x.Binders {
				names[i] = b.Var.Name
			}
			inner = s.with(names...)
		}
		for _, e := range x.Body {
			c.expr(e, inner)
		}
	case *syntax.Lambda:
		inner := s.with(argNames(x.Args)...)
		for _, e := range x.Body {
			c.expr(e, inner)
		}
	}
}

// call checks an application of one of the module's functions.
func (c *checker) call(app *syntax.App, s *scope) {
	v, ok := app.Fn.(*syntax.Var)
	if !ok {
		return
	}
	var sig *signature
	switch v.Name.Kind {
	case syntax.BareName:
		if !s.has(v.Name.Name) {
			sig = c.sigs[v.Name.Name]
		}
	case syntax.QualifiedName:
		if v.Name.Module == c.module {
			sig = c.sigs[v.Name.Name]
		}
	}
	if sig == nil {
		return
	}
	qual := c.module + "." + sig.name
	if len(app.Args) != len(sig.args) {
		c.errorAt(app.Loc, "Invalid number of arguments in call of "+qual+": expected "+
			strconv.Itoa(len(sig.args))+", got "+strconv.Itoa(len(app.Args)))
		return
	}
	for i, a := range app.Args {
		want := sig.args[i].Type
		if got, ok := literalType(a); ok && want != nil && !typeAccepts(want, got) {
			c.errorAt(a.Span(), "Type mismatch in call of "+qual+": argument "+sig.args[i].Name+
				" has type "+want.String()+", got "+article(got)+" literal")
		}
	}
}

// checkReturn checks a literal last expression against the declared
// result type.
func (c *checker) checkReturn(name string, ret syntax.Type, body []syntax.Expr) {
	if ret == nil || len(body) == 0 {
		return
	}
	last := body[len(body)-1]
	if got, ok := literalType(last); ok && !typeAccepts(ret, got) {
		c.errorAt(last.Span(), "Type mismatch in the result of "+c.module+"."+name+": declared "+
			ret.String()+", returns "+article(got)+" literal")
	}
}

// literalType names the type of a literal expression.
func literalType(x syntax.Expr) (string, bool) {
	switch x.(type) {
	case *syntax.IntLit:
		return "integer", true
	case *syntax.DecimalLit:
		return "decimal", true
	case *syntax.StringLit:
		return "string", true
	case *syntax.BoolLit:
		return "bool", true
	case *syntax.UnitLit:
		return "unit", true
	case *syntax.List:
		return "list", true
	case *syntax.Object:
		return "object", true
	}
	return "", false
}

// typeAccepts reports whether a value of the literal type got can have
// the declared type t.
func typeAccepts(t syntax.Type, got string) bool {
	switch t := t.(type) {
	case *syntax.PrimType:
		return string(t.Prim) == got
	case *syntax.ListType:
		return got == "list"
	case *syntax.SchemaType:
		return !t.Table && got == "object"
	}
	return false
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
