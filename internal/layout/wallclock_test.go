package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shortest is the shortest duration a test may bound: a test that fails when something takes
// longer than this tests the machine, not the code (issue 31). Hang guards are minutes long.
const shortest = time.Minute

// exempt is the comment that lets a short duration stand, on its line or the line above, with
// the reason after it: a poll interval, a wait for something that must not happen, a logical
// time handed to the code under test. Nothing that fails when the machine is slow.
const exempt = "wallclock:"

// TestNoWallClockBounds refuses a test that bounds a duration by a constant under a minute:
// a time.After, time.NewTimer, time.AfterFunc, context.WithTimeout or time.Now().Add of such a
// constant, or an upper bound of one in a comparison (elapsed > 2*time.Second). Tests wait with
// internal/hangguard, whose one timeout is minutes long. A lower bound (a throttle waited at
// least 50 ms) stands: it holds however busy the machine is. Only constants are seen (literals
// and the package's named constants); a duration passed in a variable is for review to catch.
func TestNoWallClockBounds(t *testing.T) {
	root := filepath.Join("..", "..")
	dirConsts := map[string]map[string]map[string]ast.Expr{} // dir -> package -> name -> value
	var found []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git", "hangguard":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.HasSuffix(path, "_test.go") && !strings.Contains(string(src), `"testing"`) {
			return nil
		}
		files++
		bad, err := wallClockBoundsIn(path, src, dirConsts)
		if err != nil {
			return err
		}
		found = append(found, bad...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d test files found under %s: the walk is looking in the wrong place", files, root)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
	if len(found) > 0 {
		t.Logf("wait with internal/hangguard (Until, Recv, After, Context, Deadline), whose limit is minutes; a speed belongs in bench/; a duration that bounds nothing takes a %q comment saying why", exempt)
	}
}

// TestWallClockLint checks the lint itself on sources it must refuse and sources it must let
// stand, so that a change to it cannot silently stop it seeing anything.
func TestWallClockLint(t *testing.T) {
	cases := []struct {
		src  string
		want int
	}{
		{`select { case <-ch: case <-time.After(5 * time.Second): t.Fatal("slow") }`, 1},
		{`ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)`, 1},
		{`deadline := time.Now().Add(1200 * time.Millisecond)`, 1},
		{`if d := time.Since(start); d > 2*time.Second { t.Fatal(d) }`, 1},
		{`if time.Duration(3) * time.Millisecond <= took { t.Fatal(took) }`, 1},
		{`if took > short { t.Fatal(took) }`, 1},
		{`timer := time.NewTimer(short / 2)`, 1},
		{`c.SetReadDeadline(time.Now().Add(time.Second))`, 1},
		// Minutes are a hang guard; lower bounds hold on any machine; a past time is a timestamp.
		{`select { case <-ch: case <-time.After(2 * time.Minute): t.Fatal("hang") }`, 0},
		{`if d := time.Since(start); d < 150*time.Millisecond { t.Fatal(d) }`, 0},
		{`old := time.Now().Add(-time.Minute)`, 0},
		{`if d > long { t.Fatal(d) }`, 0},
		{`time.Sleep(50 * time.Millisecond)`, 0},
		{`if n > 5 { t.Fatal(n) }`, 0},
		{"select {\n// wallclock: a poll interval\ncase <-time.After(50 * time.Millisecond):\n}", 0},
		{"select {\ncase <-time.After(50 * time.Millisecond): // wallclock: nothing may arrive meanwhile\n}", 0},
		{"select {\ncase <-time.After(50 * time.Millisecond): // a poll interval\n}", 1},
		{"// A comment of two lines (wallclock: a\n// poll interval)\nx := time.After(50 * time.Millisecond)", 0},
	}
	for _, c := range cases {
		src := "package p\nconst short = 3 * time.Second\nconst long = 2 * time.Minute\nfunc f() {\n" + c.src + "\n}\n"
		bad, err := wallClockBounds("case.go", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if len(bad) != c.want {
			t.Errorf("%q: %d findings, want %d: %v", c.src, len(bad), c.want, bad)
		}
	}
}

// wallClockBounds returns the short duration bounds in one file, each as "file:line: what".
func wallClockBounds(path string, src []byte) ([]string, error) {
	return wallClockBoundsIn(path, src, map[string]map[string]map[string]ast.Expr{})
}

// wallClockBoundsIn is wallClockBounds with the constants of each directory's packages read
// once into cache: a bound is often named in a sibling file.
func wallClockBoundsIn(path string, src []byte, cache map[string]map[string]map[string]ast.Expr) ([]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	pkgs, ok := cache[dir]
	if !ok {
		pkgs = map[string]map[string]ast.Expr{}
		if siblings, err := filepath.Glob(filepath.Join(dir, "*.go")); err == nil {
			for _, s := range siblings {
				if f, err := parser.ParseFile(token.NewFileSet(), s, nil, 0); err == nil {
					if pkgs[f.Name.Name] == nil {
						pkgs[f.Name.Name] = map[string]ast.Expr{}
					}
					collectConsts(f, pkgs[f.Name.Name])
				}
			}
		}
		cache[dir] = pkgs
	}
	consts := map[string]ast.Expr{}
	for k, v := range pkgs[file.Name.Name] {
		consts[k] = v
	}
	collectConsts(file, consts)
	exemptLines := map[int]bool{}
	for _, g := range file.Comments {
		if strings.Contains(g.Text(), exempt) {
			for line := fset.Position(g.Pos()).Line; line <= fset.Position(g.End()).Line+1; line++ {
				exemptLines[line] = true
			}
		}
	}
	ev := evaluator{consts: consts}
	var bad []string
	report := func(n ast.Node, what string, d time.Duration) {
		pos := fset.Position(n.Pos())
		if exemptLines[pos.Line] {
			return
		}
		bad = append(bad, fmt.Sprintf("%s:%d: %s %v, under %v", path, pos.Line, what, d, shortest))
	}
	short := func(e ast.Expr) (time.Duration, bool) {
		v, isDuration, ok := ev.eval(e, 0)
		return time.Duration(v), ok && isDuration && v > 0 && v < float64(shortest)
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			var arg ast.Expr
			what := ""
			switch {
			case isSelector(n.Fun, "time", "After"), isSelector(n.Fun, "time", "NewTimer"), isSelector(n.Fun, "time", "AfterFunc"):
				what, arg = "a timer of", n.Args[0]
			case isSelector(n.Fun, "context", "WithTimeout") && len(n.Args) == 2:
				what, arg = "a context timeout of", n.Args[1]
			case isTimeNowAdd(n) && len(n.Args) == 1:
				what, arg = "a deadline of", n.Args[0]
			}
			if arg != nil {
				if d, ok := short(arg); ok {
					report(n, what, d)
				}
			}
		case *ast.BinaryExpr:
			// An upper bound: x > c, x >= c, c < x, c <= x.
			var bound ast.Expr
			switch n.Op {
			case token.GTR, token.GEQ:
				bound = n.Y
			case token.LSS, token.LEQ:
				bound = n.X
			}
			if bound != nil {
				if d, ok := short(bound); ok {
					report(n, "an upper bound of", d)
				}
			}
		}
		return true
	})
	return bad, nil
}

func collectConsts(f *ast.File, into map[string]ast.Expr) {
	ast.Inspect(f, func(n ast.Node) bool {
		g, ok := n.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			return true
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					into[name.Name] = vs.Values[i]
				}
			}
		}
		return true
	})
}

func isSelector(e ast.Expr, pkg, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != name {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// isTimeNowAdd reports whether call is time.Now().Add(...).
func isTimeNowAdd(call *ast.CallExpr) bool {
	s, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != "Add" {
		return false
	}
	inner, ok := s.X.(*ast.CallExpr)
	return ok && isSelector(inner.Fun, "time", "Now")
}

// evaluator folds the constant expressions durations are written in: literals, time's units,
// named constants, time.Duration(...) conversions, and + - * /.
type evaluator struct{ consts map[string]ast.Expr }

var units = map[string]time.Duration{"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond,
	"Millisecond": time.Millisecond, "Second": time.Second, "Minute": time.Minute, "Hour": time.Hour}

func (ev evaluator) eval(e ast.Expr, depth int) (v float64, isDuration, ok bool) {
	if depth > 20 {
		return 0, false, false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT && e.Kind != token.FLOAT {
			return 0, false, false
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(e.Value, "_", ""), 64)
		return f, false, err == nil
	case *ast.ParenExpr:
		return ev.eval(e.X, depth+1)
	case *ast.SelectorExpr:
		if id, ok := e.X.(*ast.Ident); ok && id.Name == "time" {
			if u, ok := units[e.Sel.Name]; ok {
				return float64(u), true, true
			}
		}
	case *ast.Ident:
		if c, ok := ev.consts[e.Name]; ok {
			return ev.eval(c, depth+1)
		}
	case *ast.UnaryExpr:
		if e.Op == token.SUB {
			v, d, ok := ev.eval(e.X, depth+1)
			return -v, d, ok
		}
	case *ast.CallExpr:
		if isSelector(e.Fun, "time", "Duration") && len(e.Args) == 1 {
			v, _, ok := ev.eval(e.Args[0], depth+1)
			return v, true, ok
		}
	case *ast.BinaryExpr:
		x, xd, xok := ev.eval(e.X, depth+1)
		y, yd, yok := ev.eval(e.Y, depth+1)
		if !xok || !yok {
			return 0, false, false
		}
		switch e.Op {
		case token.MUL:
			return x * y, xd || yd, true
		case token.QUO:
			if y == 0 {
				return 0, false, false
			}
			return x / y, xd && !yd, true
		case token.ADD:
			return x + y, xd || yd, true
		case token.SUB:
			return x - y, xd || yd, true
		}
	}
	return 0, false, false
}
