package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// P5 module hashes, checked against hashes pinned in the upstream Pact 5
// test suite (kadena-io/pact-5, pact-tests/pact-tests/*.repl). Each case
// replays the upstream file's module definitions in order; every module
// or interface is hashed before it is loaded, and the loaded module is
// then given that hash (as defineModule will once it switches to
// moduleHashP5), so that later modules see their dependencies' P5 hashes.

type modHashStep struct {
	// data, when set, replaces the message data first (env-data).
	data *Object
	src  string
	// want are the expected hashes of the modules and interfaces in src,
	// in order; "" skips one.
	want []string
}

var modHashCases = []struct {
	name  string
	steps []modHashStep
}{
	{
		// partial-app-errors.repl: the hash in the expected error message
		// "... for function m.f.{nv2apbz7...} supplied ...".
		name: "partial-app-errors",
		steps: []modHashStep{{
			src: `(module m g (defcap g () true)

  (defun f:integer (a:integer b:integer c:string) (do a b))
)`,
			want: []string{"nv2apbz7RTDv53cf46_3VX1msHQzBgTEqfxumYRGdf8"},
		}},
	},
	{
		// imports.repl: (use m "52-WL...") pins m's hash.
		name: "imports",
		steps: []modHashStep{
			{
				src: `(module m G
  (defcap G () true)
  (defun f () true)
)`,
				want: []string{"52-WL_as7YnpYIZWKOvvxFUCpC7F5Hxe2xm7S7TOHEc"},
			},
			{
				src: `(module n H
  (use m "52-WL_as7YnpYIZWKOvvxFUCpC7F5Hxe2xm7S7TOHEc"
    [])

  (defcap H () true)
  (defun g () true)
)

(module o I
  (use m [f])

  (defcap I () true)
  (defun h () true)
)

(module p J
  (use m "52-WL_as7YnpYIZWKOvvxFUCpC7F5Hxe2xm7S7TOHEc"
    [f])

  (defcap J () true)
  (defun i () true)
)

(interface iface

  (defschema p
    flag:bool
    other-field:string)

  (defconst pushin:object{p} {'flag:true, 'other-field:"future"})
  )

(module m g

  (use iface)
  (defcap g () true)

  (defun get-pushin:object{p} () pushin)
  (defconst obj2:object{p} {'flag:false, 'other-field:"yt"})
  )`,
			},
		},
	},
	{
		// leftpad.repl: impure v3 blesses impure v1's hash.
		name: "leftpad",
		steps: []modHashStep{{
			src: `(module leftpad 'k
  (defconst VERSION 1)
  (defun left-pad (s i)
    (+ (fold (+) "" (make-list i " ")) s)))

(module impure 'k
  (defconst VERSION 1)
  (defschema foo-schema value:integer)
  (deftable foo:{foo-schema})
  (defun ins (k v) (insert foo k v)))

(use leftpad)
(use impure)

(module dep 'k
  (defun dep-leftpad () (left-pad "hello" 3))
  (defun dep-impure (k v) (ins k { "value": v })))`,
			want: []string{"", "GJs2NrH3KhRHB6dk-P_QVc0Hsl6gF3PE1HPlIKRyYO0", ""},
		}},
	},
	{
		// modulehash.repl: a defconst read from the message data, a
		// dependency's hash.
		name: "modulehash",
		steps: []modHashStep{
			{
				data: NewObject(Field{Key: "k", Val: NewInt(1)}),
				src:  modHashM("1"),
				want: []string{"qKuZPdSFkGubaGD232KSyayEbUg1e9R47eiDqrpoghs"},
			},
			{
				data: NewObject(Field{Key: "k", Val: NewInt(2)}),
				src:  modHashM("1"),
				want: []string{"auoL6ISoyHwxhzTs5dwvCZUZLP1r53ijK-3zVbJh50I"},
			},
			{
				src:  modHashM("2"),
				want: []string{"D0WKIRJUOzdT2S0dKD6WAY5VgWVSCDJMl_4pKTt_ZSM"},
			},
			{
				src:  modHashN,
				want: []string{"9qHMWe0If_hD55bZpThFQV1pM1Z6dlMU3s605r9CFJE"},
			},
			{
				src:  modHashM("3") + modHashN,
				want: []string{"xx7zLkXzFusqgJwxPWLqqiqhqJGdIdyUQ3I6crkCblY", "JN9dKCIoSGJEGDe6iZIWP_g7xm0XeaAqlZl9Se7iGJY"},
			},
		},
	},
	{
		// yield.repl: the module-hash of the X_YIELD and X_RESUME events.
		name: "yield",
		steps: []modHashStep{{
			src: `(module yieldtest 'k

  "Define two tests: 'tester' executes a single-chain pact and ensures rollbacks \
  \and 'cross-chain' executes a cross-chain pact and step behavior works         \
  \properly."

  (defschema schema-a a-result:string)

  (defpact tester (name)
    (step-with-rollback
     (let*
         ((nameA (+ name "->A"))
          (r:object{schema-a} { "a-result": nameA }))

       (yield r)
       nameA)

     "rollback-a")

    (step
      (resume { "a-result" := ar }
          (+ ar "->B")))
    )


  (defpact cross-chain (name)
    (step
     (let*
         ((nameA (+ name "->A"))
          (r:object{schema-a} { "a-result": nameA }))

       (yield r "1")
       nameA))

    (step
     (resume { "a-result" := ar }
             (+ ar "->B")))
    )
)`,
			want: []string{"cTWOjIB4CTO1nsnKFpyfXqGHbLMvefSmYO4s97BbrZE"},
		}},
	},
	{
		// caps.repl: "Invalid event capability events.NON.{F9iU...}".
		name: "caps-events",
		steps: []modHashStep{{
			src: `(module events G
  (defcap G () true)
  (defcap TOP (msg:string)
    @event
    (compose-capability (COMPOSED 1))
    (compose-capability (MIDDLE)))

  (defcap MIDDLE ()
    (compose-capability (COMPOSED 1)) ;; shouldn't fire twice
    (compose-capability (COMPOSED 2)) ;; should fire
    )

  (defcap COMPOSED (i:integer)
    @event
    true)

  (defun go(msg:string)
    (with-capability (TOP msg)
      1))


  (defcap EV () @event (enforce false "always fail"))

  (defcap MGD (i:integer) @managed (enforce false "always fail"))

  (defcap NON () true)

  (defun emit-ev ()
    (emit-event (EV)))

  (defun emit-mgd ()
    (emit-event (MGD 1)))

  (defun emit-non-event ()
    (emit-event (NON)))

)`,
			want: []string{"F9iUeU_dKXOSaeZhmFY7g-LfMJ7SMBpG5BhNWhxhhxE"},
		}},
	},
	{
		// caps.repl, legacy events: A's module-hash before and after its
		// upgrade.
		name: "caps-legacy-events",
		steps: []modHashStep{
			{
				src: `(module A g
  (defcap g () true)
  (defconst A_VERSION:integer 1)
  (defcap A_EVENT (a:integer)
   @event
   1
   )

   (defun emit-a(a:integer) (emit-event (A_EVENT a))))


(module B g
 (defcap g () true)
 (use A)
 (defun call-a () (emit-a 420)))`,
				want: []string{"eUXxnKczPNGardQAz-nFnoIpp0e90I63XHq1mvQ0s7A", ""},
			},
			{
				src: ` (module A g
  (defcap g () true)
  (defconst A_VERSION:integer 2)
  (defcap A_EVENT (a:integer b:integer)
   @event
   1
   )

   (defun emit-a(a:integer) (emit-event (A_EVENT a a))))`,
				want: []string{"YkqNXWA9pNH9cFhfOM4fwPvi427v5jjo29tb6mFNAXA"},
			},
		},
	},
}

func modHashM(mdfn string) string {
	return `(module m m-gov
  (defcap m-gov () true)

  (defconst fconst:integer (read-integer "k"))

  (defun mdfn () ` + mdfn + `)

  (defpact mdpact ()
    (step 1))

  (defschema sc a:integer)

  (deftable mdtbl:{sc})
  )
`
}

const modHashN = `(module n gg
  (use m)
  (defcap gg () true)

  (defconst nfconst:integer (read-integer "k"))

  (defun nf () (mdfn))

  )
`

// newModHashInterp is an interpreter whose signer satisfies keyset 'k.
func newModHashInterp(t *testing.T) *Interp {
	t.Helper()
	in := New(db.NewMemDB())
	in.Data = NewObject(Field{Key: "ks", Val: List{String("key")}})
	in.Signers = []Signer{{PubKey: "key"}}
	x, err := syntax.ParseExpr("setup", `(define-keyset 'k (read-keyset "ks"))`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.EvalTopLevel(x, true); err != nil {
		t.Fatal(err)
	}
	return in
}

func TestModuleHashP5(t *testing.T) {
	for _, tc := range modHashCases {
		t.Run(tc.name, func(t *testing.T) {
			in := newModHashInterp(t)
			for si, st := range tc.steps {
				if st.data != nil {
					in.Data = st.data
				}
				f, err := syntax.ParseRepl(tc.name, st.src)
				if err != nil {
					t.Fatalf("step %d: %v", si, err)
				}
				mi := 0
				for _, item := range f.Items {
					var name string
					switch x := item.(type) {
					case *syntax.Module:
						name = x.Name
					case *syntax.Interface:
						name = x.Name
					default:
						if _, err := in.EvalTopLevel(item, true); err != nil {
							t.Fatalf("step %d: %v", si, err)
						}
						continue
					}
					mn := ModuleName{Namespace: in.namespace, Name: name}
					got, err := moduleHashP5(in, item, mn)
					if err != nil {
						t.Fatalf("step %d: hash %s: %v", si, mn, err)
					}
					if mi < len(st.want) && st.want[mi] != "" && got != st.want[mi] {
						t.Errorf("step %d: hash of %s = %s, want %s", si, mn, got, st.want[mi])
					}
					mi++
					if _, err := in.EvalTopLevel(item, true); err != nil {
						t.Fatalf("step %d: load %s: %v", si, mn, err)
					}
					in.lookupModule(mn).Hash = got
				}
			}
		})
	}
}
