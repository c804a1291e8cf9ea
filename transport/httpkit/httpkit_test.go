package httpkit

import (
	"strings"
	"testing"
)

func TestSplitPath(t *testing.T) {
	var buf [MaxSegments][]byte
	for in, want := range map[string]string{
		"/":                          "",
		"/info":                      "info",
		"/info/":                     "info",
		"/a/b/c":                     "a|b|c",
		"/a//b":                      "!",
		"//":                         "", // fasthttp normalises it to "/" anyway
		"":                           "!",
		"info":                       "!",
		"/a/b/c/d/e/f/g/h/i/j/k/l":   "a|b|c|d|e|f|g|h|i|j|k|l",
		"/a/b/c/d/e/f/g/h/i/j/k/l/m": "!",
		// Each segment is percent-decoded on its own: %2F is a byte of its segment.
		"/a%2Fb/c":  "a/b|c",
		"/%73end":   "send",
		"/100%/%zz": "100%|%zz",
	} {
		segs, ok := SplitPath([]byte(in), &buf)
		got := "!"
		if ok {
			parts := make([]string, len(segs))
			for i, s := range segs {
				parts[i] = string(s)
			}
			got = strings.Join(parts, "|")
		}
		if got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`: `"plain"`, `a"b\c`: `"a\"b\\c"`, "tab\tnl\n\x01": `"tab\tnl\n\u0001"`,
		"é✓": `"é✓"`, "bad\xffutf8": `"bad\ufffdutf8"`,
	} {
		if got := string(AppendJSONString(nil, in)); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

func TestSplitProblem(t *testing.T) {
	for in, want := range map[string]string{
		"info":                         ": a path starts with /",
		"/a//b":                        ": empty path segment (paths are not normalized: // is not /)",
		"/a/b/c/d/e/f/g/h/i/j/k/l/m/n": ": more than 12 path segments",
	} {
		if got := SplitProblem([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestEcho(t *testing.T) {
	long := strings.Repeat("a", 130)
	for in, want := range map[string]string{
		"/info":    "/info",
		"a b":      `"a b"`,
		`say "hi"`: `"say \"hi\""`,
		"\xff":     `"\xff"`,
		long:       strings.Repeat("a", 120) + "…",
	} {
		if got := Echo([]byte(in)); got != want {
			t.Errorf("Echo(%q) = %s, want %s", in, got, want)
		}
	}
	if got := EchoText([]byte("text/html, */*"), true); got != "text/html, */*" {
		t.Errorf("EchoText with spaces: %s", got)
	}
}
