package yamlerr

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestText(t *testing.T) {
	type conf struct {
		Port    int      `yaml:"port"`
		Verbose bool     `yaml:"verbose"`
		Flags   []string `yaml:"flags"`
	}
	for _, c := range []struct{ doc, want string }{
		{"port: 1\nfoo: 2\n", "line 2: unknown key foo"},
		{"port: eighty\n", `line 1: "eighty" is a string, but an integer is expected`},
		{"verbose: maybe\n", `line 1: "maybe" is a string, but true or false is expected`},
		{"flags: 3\n", `line 1: "3" is an integer, but a list is expected`},
	} {
		var v conf
		dec := yaml.NewDecoder(strings.NewReader(c.doc))
		dec.KnownFields(true)
		err := dec.Decode(&v)
		if err == nil {
			t.Fatalf("%q decoded", c.doc)
		}
		if got := Text(err); got != c.want {
			t.Errorf("%q: %q, want %q", c.doc, got, c.want)
		}
	}
}
