package eval

import (
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
)

// FuzzPactExecFromJSON feeds PactExecFromJSON, the reader of the defpact state an SPV proof
// carries (an input from any client on the node): whatever the JSON, it returns a state or an
// error, never panics, and refuses nesting past maxNestedPacts.
func FuzzPactExecFromJSON(f *testing.F) {
	nested := `{"pactId":"a","step":0,"stepCount":2,"continuation":{"def":"m.p","args":[]},"yield":null}`
	for _, seed := range []string{
		`{"pactId":"p","step":0,"stepCount":2,"stepHasRollback":false,"continuation":{"def":"m.p","args":[1]},` +
			`"yield":{"data":{"n":1},"provenance":{"targetChainId":"1","moduleHash":"h"},"source":"0"},"nested":{"a":` + nested + `}}`,
		`{"pactId":"p","step":1.5,"stepCount":2,"continuation":{"def":"m.p"}}`,
		`{"nested":{"a":1}}`,
		`{"pactId":"p","step":0,"stepCount":2,"continuation":{"def":"not a name"},"yield":{"data":1}}`,
		`[]`,
	} {
		f.Add(seed)
	}
	in := New(db.NewMemDB())
	f.Fuzz(func(t *testing.T, s string) {
		v, err := value.DecodeJSON([]byte(s))
		if err != nil {
			return
		}
		in.PactExecFromJSON(v)
	})
}

// A proof whose defpact states nest without end is refused at maxNestedPacts.
func TestPactExecFromJSONNestingBounded(t *testing.T) {
	in := New(db.NewMemDB())
	// The defpact named must exist for the reader to go on to the nested states.
	run(t, in, `(module m g (defcap g () true) (defpact p () (step 1) (step 2)))`)
	state := func(nested string) string {
		return `{"pactId":"x","step":0,"stepCount":2,"continuation":{"def":"m.p","args":[]},"nested":{"x":` + nested + `}}`
	}
	leaf := `{"pactId":"x","step":0,"stepCount":2,"continuation":{"def":"m.p","args":[]}}`
	deep := leaf
	for range maxNestedPacts + 1 {
		deep = state(deep)
	}
	v, err := value.DecodeJSON([]byte(deep))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.PactExecFromJSON(v); err == nil || !strings.Contains(err.Error(), "nests more than") {
		t.Fatalf("nesting %d deep: %v", maxNestedPacts+1, err)
	}
	shallow, _ := value.DecodeJSON([]byte(state(state(leaf))))
	pe, err := in.PactExecFromJSON(shallow)
	if err != nil || pe.Nested["x"] == nil || pe.Nested["x"].Nested["x"] == nil {
		t.Fatalf("two nested states: %+v %v", pe, err)
	}
}
