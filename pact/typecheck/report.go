package typecheck

import (
	"strconv"
	"strings"
)

// Failed says whether the module has type errors.
func (r *Report) Failed() bool { return len(r.Errors) > 0 }

// ErrorText is the type errors, one a line, under a line naming the
// module.
func (r *Report) ErrorText() string {
	var b strings.Builder
	b.WriteString("Typecheck failed for module " + r.Module.String() + ": " + plural(len(r.Errors), "type error"))
	for _, f := range r.Errors {
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}

// maxUndecidedShown bounds the undecided checks a summary lists.
const maxUndecidedShown = 5

// UndecidedText says how many checks could not be decided and where the
// first were; "" when every check was decided.
func (r *Report) UndecidedText() string {
	if len(r.Undecided) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Typecheck of module " + r.Module.String() + " found no type errors, but " +
		strconv.Itoa(len(r.Undecided)) + " of " + strconv.Itoa(r.Checks) +
		" checks could not be decided (the types involved are unknown):")
	for i, f := range r.Undecided {
		if i == maxUndecidedShown {
			b.WriteString("\n  and " + strconv.Itoa(len(r.Undecided)-i) + " more")
			break
		}
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}
