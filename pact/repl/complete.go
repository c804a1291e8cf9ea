package repl

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// keywords are the special forms and definition keywords, which are not
// natives but are worth completing as much as the natives are (P5's REPL
// completes its special forms too).
var keywords = []string{
	"and", "bless", "cond", "create-user-guard", "defcap", "defconst", "defpact",
	"defschema", "defun", "deftable", "enforce", "enforce-one", "if", "implements",
	"interface", "lambda", "let", "let*", "module", "or", "step",
	"step-with-rollback", "try", "use", "with-capability",
}

// Names returns every name the interactive REPL completes, sorted and
// without duplicates: the core and REPL natives, the special forms, the
// names of the installed modules and interfaces, and each of their
// members qualified by the module's name (coin.transfer,
// ns.mod.fn). A module of the current namespace is offered under its
// short name as well, as the code may call it so.
//
// It reads the runner's database as it is now, so a module loaded a
// moment ago is offered at the next completion.
func (r *Runner) Names() []string {
	set := make(map[string]struct{}, 512)
	add := func(s string) { set[s] = struct{}{} }
	for _, names := range [][]string{eval.CoreNativeNames, ReplNativeNames, keywords} {
		for _, n := range names {
			add(n)
		}
	}
	ns := ""
	if r.In != nil {
		ns = r.In.Namespace()
	}
	if r.DB != nil {
		// A database failure only costs the module names: completion
		// is a convenience and must not interrupt typing.
		keys, _ := r.DB.Keys(db.Modules, "")
		for _, k := range keys {
			v, ok, err := r.DB.Read(db.Modules, "", k)
			if err != nil || !ok {
				continue
			}
			m, ok := v.(*eval.Module)
			if !ok {
				continue
			}
			names := []string{k}
			if ns != "" && strings.HasPrefix(k, ns+".") {
				names = append(names, strings.TrimPrefix(k, ns+"."))
			}
			for _, mn := range names {
				add(mn)
				for d := range m.Defs {
					add(mn + "." + d)
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Complete returns the names (see Names) that start with prefix, sorted.
func (r *Runner) Complete(prefix string) []string {
	var out []string
	for _, n := range r.Names() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// CompleteWord completes the word that ends at byte offset pos of line,
// the way a line editor's tab key wants it: the line before the word,
// the candidates for the whole word, and the line after pos. The word is
// the run of characters before pos that may appear in a name. Inside a
// string literal the word is the string so far and the candidates are
// file names (for load), as P5's REPL completes them; in a comment
// nothing is completed.
func (r *Runner) CompleteWord(line string, pos int) (head string, completions []string, tail string) {
	if pos < 0 || pos > len(line) {
		pos = len(line)
	}
	// Byte by byte, to know where the string the cursor is in opened.
	var b Balance
	open := -1
	for i := 0; i < pos; i++ {
		was := b.state
		b.Feed(line[i : i+1])
		if was == scanCode && b.state == scanString {
			open = i + 1
		}
	}
	switch {
	case b.state == scanString && open >= 0:
		return line[:open], completeFile(line[open:pos], line[pos:]), line[pos:]
	case b.InString() || b.state == scanComment:
		return line[:pos], nil, line[pos:]
	}
	start := pos
	for start > 0 && !isWordBreak(line[start-1]) {
		start--
	}
	word := line[start:pos]
	if word == "" {
		// Tab on nothing would list every name: not a completion.
		return line[:pos], nil, line[pos:]
	}
	return line[:start], r.Complete(word), line[pos:]
}

// completeFile completes a file name typed in a string literal, relative
// to the working directory: the names in its directory that start with
// what is typed, a directory with a slash after it and a file with the
// closing quote (unless one follows already). Names starting with a dot
// are offered only when the dot is typed.
func completeFile(typed, after string) []string {
	if strings.ContainsAny(typed, "\\\n") {
		// An escape: what the string holds is not what is typed.
		return nil
	}
	dir, prefix := filepath.Split(typed)
	entries, err := os.ReadDir(cmp.Or(dir, "."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(cmp.Or(dir, "."), name)); err == nil {
				isDir = st.IsDir()
			}
		}
		switch {
		case isDir:
			name += "/"
		case !strings.HasPrefix(after, "\""):
			name += "\""
		}
		out = append(out, dir+name)
	}
	slices.Sort(out)
	return out
}

// isWordBreak reports whether c ends a name: white space, the delimiters,
// quotes, the comment sign and the type annotation colon.
func isWordBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '(', ')', '[', ']', '{', '}', '"', '\'', ',', ';', ':', '`':
		return true
	}
	return false
}
