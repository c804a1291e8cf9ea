package pretty

import (
	"strings"
	"testing"
)

func TestListFitsOrBreaks(t *testing.T) {
	short := []Doc{Text("a"), Text("b")}
	if got := Render(Cat(Text("keys: "), List(short))); got != "keys: [a, b]" {
		t.Errorf("a list that fits: %q", got)
	}
	// Past 80 columns the list breaks before each separator, with
	// prettyprinter's "[ " and " ]".
	long := []Doc{Text(strings.Repeat("x", 40)), Text(strings.Repeat("y", 40))}
	want := "[ " + strings.Repeat("x", 40) + "\n, " + strings.Repeat("y", 40) + " ]"
	if got := Render(List(long)); got != want {
		t.Errorf("a list that does not fit:\n%s\nwant\n%s", got, want)
	}
	braces := EncloseSep(Text("{"), Text("}"), Text(","), []Doc{Text("k: 1"), Text("p: 2")})
	if got := Render(braces); got != "{k: 1,p: 2}" {
		t.Errorf("encloseSep: %q", got)
	}
}
