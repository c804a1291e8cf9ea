package pactbench

import (
	"fmt"
	"strings"
)

// GeneratedModule writes a module of exactly lines lines: a schema, a table,
// a writer, then defconsts and defuns (some calling the previous one, some
// reading the table) until the length is reached.
func GeneratedModule(lines int) string {
	var b strings.Builder
	n := 0
	w := func(format string, a ...any) {
		fmt.Fprintf(&b, format+"\n", a...)
		n++
	}
	w("(module gen GOV")
	w(`  @doc "A generated module for the load benchmark."`)
	w("  (defcap GOV () true)")
	w("  (defschema account balance:decimal owner:string nonce:integer)")
	w("  (deftable accounts:{account})")
	w("  (defun credit:string (id:string amount:decimal)")
	w("    (with-default-read accounts id {'balance: 0.0, 'owner: id, 'nonce: 0} {'balance := bal, 'nonce := k}")
	w("      (write accounts id {'balance: (+ bal amount), 'owner: id, 'nonce: (+ k 1)})))")
	for i := 0; ; i++ {
		if n+1 >= lines {
			break
		}
		w("  (defconst RATE-%d:decimal %d.%03d)", i, i%7, i*37%1000)
		switch {
		case n+7 <= lines && i%5 == 3:
			w("  (defun g%d:decimal (id:string)", i)
			w(`    @doc "Balance of id scaled by RATE-%d."`, i)
			w("    (with-default-read accounts id")
			w("      {'balance: 0.0}")
			w("      {'balance := bal}")
			w("      (* bal RATE-%d)))", i)
		case n+7 <= lines:
			w("  (defun f%d:decimal (x:decimal n:integer)", i)
			w(`    @doc "Step %d of a chain of scaled sums."`, i)
			w("    (let ((k (* RATE-%d (dec n))))", i)
			w("      (if (> n 0)")
			if i == 0 {
				w("          (+ x k)")
			} else {
				prev := i - 1
				if prev%5 == 3 {
					prev--
				}
				w("          (+ x (f%d k (- n 1)))", prev)
			}
			w("          (- k x))))")
		}
	}
	w(")")
	return b.String()
}
