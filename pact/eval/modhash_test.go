package eval

import (
	"testing"

	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/syntax"
	"github.com/ledgernode/ledger-node/pact/value"
)

// P5 module hashes, checked against hashes pinned in the upstream Pact 5
// test suite (kadena-io/pact-5, pact-tests/pact-tests/*.repl). Each case
// replays the upstream file's module definitions in order; every module
// or interface is hashed before it is loaded, and the loaded module is
// then given that hash (as defineModule will once it switches to
// moduleHashP5), so that later modules see their dependencies' P5 hashes.

type modHashStep struct {
	// pre are top-level forms evaluated first (keysets, say).
	pre string
	// data, when set, replaces the message data first (env-data).
	data *value.Object
	src  string
	// want are the expected hashes of the modules and interfaces in src,
	// in order; "" skips one.
	want []string
}

var modHashCases = []struct {
	name string
	// skip, when set, says why the case is known not to match yet: the
	// hashes are computed and logged but not checked.
	skip  string
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
				data: value.NewObject(value.Field{Key: "k", Val: value.NewInt(1)}),
				src:  modHashM("1"),
				want: []string{"qKuZPdSFkGubaGD232KSyayEbUg1e9R47eiDqrpoghs"},
			},
			{
				data: value.NewObject(value.Field{Key: "k", Val: value.NewInt(2)}),
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
	{
		// pact-tests/Pact/Core/Test/PactContinuationTest.hs,
		// testCrossChainYield: the X_YIELD event's module hash (server
		// path, core natives only).
		name: "continuation-cross-chain",
		steps: []modHashStep{{
			src: `(module cross-chain-tester GOV
  (defcap GOV () true)
  (defschema schema-a a-result:string)

  (defpact cross-chain (name)
    (step
      (let*
        ((nameA (+ name "->A"))
         (r:object{schema-a} { "a-result": nameA }))

        (yield r "")
        nameA))

    (step
      (resume { "a-result" := ar }
              (+ ar "->B")))
    ))`,
			want: []string{"kuBrddl82uCHbhV1ECaH7fMf00Pq9lc2mPShU4Us_Jg"},
		}},
	},
	{
		// PactContinuationTest.hs, testNestedCrossChainYield: a qualified
		// call into another module and continue.
		name: "continuation-nested",
		steps: []modHashStep{{
			src: `(module nested-tester GOV
  (defcap GOV () true)
  (defschema schema-a a-result:string)
  (defpact cross-chain (name)
    (step
      (let*
        ((nameA (+ name "->A"))
         (r:object{schema-a} { "a-result": nameA }))

        (yield r "")
        nameA))

    (step
      (resume { "a-result" := ar }
              (+ ar "->B")))
    ))
(module cross-chain-tester GOV
  (defcap GOV () true)
  (defschema schema-a a-result:string)
  (defpact cross-chain (name)
    (step
      (let*
        ((nameA (+ name "->A"))
         (r:object{schema-a} { "a-result": nameA }))
        (nested-tester.cross-chain name)
        (yield r "")
        nameA))

    (step
      (resume { "a-result" := ar }
      (continue (nested-tester.cross-chain name))
              (+ ar "->B")))
    ))`,
			want: []string{"", "J7Ua1U7GmzmmoMpEz3mASyG5aYEPGT6zZAkDZn7bl9I"},
		}},
	},
	{
		// PactContinuationTest.hs, testManagedCaps: the PAY event's module
		// hash for examples/accounts/accounts.pact (which uses the mock
		// system module of pact-tests/cont-scripts/setup-01-system.yaml).
		// Not matched yet; see the package report.
		name: "continuation-accounts",
		skip: "accounts.pact hash not reproduced (unverified: @managed manager, map eta-expansion, if/and/enforce-one, negate, read-with-fields, or the order of its 27 definitions)",
		steps: []modHashStep{{
			pre:  `(define-keyset 'accounts-admin-keyset (read-keyset "ks"))`,
			src:  modHashSystem + modHashAccounts,
			want: []string{"", "xkYy5KYtEkV1WFZ791iCnZjRBx6um5FEe1aU-rPCOv8"},
		}},
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
	in.Data = value.NewObject(value.Field{Key: "ks", Val: value.List{value.String("key")}})
	in.Signers = []value.Signer{{PubKey: "key"}}
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
				if st.pre != "" {
					pf, err := syntax.ParseRepl(tc.name, st.pre)
					if err != nil {
						t.Fatal(err)
					}
					for _, item := range pf.Items {
						if _, err := in.EvalTopLevel(item, true); err != nil {
							t.Fatalf("step %d: %v", si, err)
						}
					}
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
					mn := value.ModuleName{Namespace: in.namespace, Name: name}
					got, err := moduleHashP5(in, item, mn)
					if err != nil {
						t.Fatalf("step %d: hash %s: %v", si, mn, err)
					}
					if mi < len(st.want) && st.want[mi] != "" && got != st.want[mi] {
						if tc.skip != "" {
							t.Logf("step %d: hash of %s = %s, want %s", si, mn, got, st.want[mi])
						} else {
							t.Errorf("step %d: hash of %s = %s, want %s", si, mn, got, st.want[mi])
						}
					}
					mi++
					if _, err := in.EvalTopLevel(item, true); err != nil {
						t.Fatalf("step %d: load %s: %v", si, mn, err)
					}
					in.lookupModule(mn).Hash = got
				}
			}
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
		})
	}
}

// modHashSystem is the mock system module of pact-5's
// pact-tests/cont-scripts/setup-01-system.yaml.
const modHashSystem = `(module system 'k
    (defschema sysdata curtime:time)
    (deftable systbl:{sysdata})
    (defconst KEY "sys")
    (defun set-system-time (curtime) (write systbl KEY { 'curtime: curtime }))
    (defun get-system-time () (at 'curtime (read systbl KEY)))
  )
`

// modHashAccounts is the accounts module of pact-5's
// examples/accounts/accounts.pact (comments and the module docstring
// dropped; neither is part of the hash).
const modHashAccounts = `(module accounts 'accounts-admin-keyset

  (use system)

  (defschema account
    "Row type for accounts table."
     balance:decimal
     amount:decimal
     ccy:string
     rowguard:guard
     date:time
     data:object
     )

  (deftable accounts:{account}
    "Main table for accounts module.")

  (defcap USER_GUARD (id)
    (with-read accounts id { "rowguard" := g }
               (enforce-guard g)))

  (defcap TRANSFER () true)

  (defcap ADMIN ()
    (enforce-keyset 'accounts-admin-keyset))

  (defcap PAY (sender:string receiver:string amount:decimal)
    "Demonstrates managed signature capabilities"
    @managed amount manage-PAY
    (compose-capability (USER_GUARD sender)))

  (defun manage-PAY (mgd recd)
    "Demonstrates managed caps, enforces linear constraint on amount."

    (let ((bal:decimal (- mgd recd)))
      (enforce (>= bal 0.0) "insufficient balance")
      bal))

  (defun pay (sender:string receiver:string amount:decimal date)
    "Demonstrate managed capability PAY"
    (with-capability (PAY sender receiver amount)
                     (transfer sender receiver amount date)))

  (defun create-account (address guard ccy date)
    (with-capability (ADMIN)
      (insert accounts address
      { "balance": 0.0
      , "amount": 0.0
      , "ccy": ccy
      , "rowguard": guard
      , "date": date
      , "data": { "note": "Created account" }
      }
    )))

  (defun transfer (src dest amount date)
    "transfer AMOUNT from SRC to DEST"
    (with-capability (TRANSFER)
      (debit src amount date { "transfer-to": dest })
      (credit dest amount date { "transfer-from": src })
      "Transfer succeeded"))

  (defun read-account-user (id)
    "Read data for account ID"
    (with-capability (USER_GUARD id)
      (with-read accounts id
                { "balance":= b
                , "ccy":= c }
        { "balance": b, "ccy": c })))

  (defun read-account-admin (id)
    "Read data for account ID, admin version"
    (with-capability (ADMIN)
      (read accounts id ['balance 'ccy 'rowguard 'data 'date 'amount])))

  (defun account-keys ()
    "Get all account keys"
    (with-capability (ADMIN)
      (keys accounts)))

  (defun check-balance (balance amount)
    (enforce (<= amount balance) "Insufficient funds"))

  (defun fund-account (address amount date)
    (with-capability (ADMIN)
      (update accounts address
              { "balance": amount
              , "amount": amount
              , "date": date
              , "data": { "note": "Admin account funding" } }
      )))

  (defun read-all ()
    (with-capability (ADMIN)
      (map (read-account-admin) (keys accounts))))

  (defpact payment (payer payer-entity payee payee-entity amount date)
    "Debit PAYER at PAYER-ENTITY then credit PAYEE at PAYEE-ENTITY for AMOUNT on DATE"
    (step-with-rollback
      (with-capability (TRANSFER)
        (debit payer amount date
          { "payee": payee
          , "payee-entity": payee-entity
          , "ref": (pact-id)
          }))
      (with-capability (TRANSFER)
        (credit payer amount date
          { "ref": (pact-id), "note": "rollback" })))

    (step
      (with-capability (TRANSFER)
        (credit payee amount date
          { "payer": payer
          , "payer-entity": payer-entity
          , "ref": (pact-id)
          })))
  )

  (defun debit (acct amount date data)
    "Debit AMOUNT from ACCT balance recording DATE and DATA"
    (require-capability (TRANSFER))
    (with-capability (USER_GUARD acct)
      (with-read accounts acct
                { "balance":= balance
                }
        (check-balance balance amount)
        (update accounts acct
                { "balance": (- balance amount)
                , "amount": (- amount)
                , "date": date
                , "data": data
                }
          ))))

 (defun credit (acct amount date data)
   "Credit AMOUNT to ACCT balance recording DATE and DATA"
   (require-capability (TRANSFER))
     (with-read accounts acct
                { "balance":= balance }
       (update accounts acct
              { "balance": (+ balance amount)
              , "amount": amount
              , "date": date
              , "data": data
              }
      )))

  (defconst ESCROW_ACCT "escrow-account")

  (defpact two-party-escrow (deb-acct cred-acct
                             escrow-amount:decimal timeout)
    "Simple two-party escrow pact"
    (step-with-rollback
      (init-escrow deb-acct escrow-amount)
      (cancel-escrow timeout deb-acct cred-acct escrow-amount))
    (step
      (finish-escrow deb-acct cred-acct
                     escrow-amount)))

  (defun init-escrow (deb-acct amount)

    (with-capability (USER_GUARD deb-acct)
      (with-read accounts deb-acct { 'ccy:= ccy }
        (let ((pact-acct (new-pact-account ESCROW_ACCT ccy)))
          (transfer deb-acct pact-acct amount (get-system-time))))))

  (defun cancel-escrow (timeout deb-acct cred-acct amount)
    (with-capability (CANCEL-ESCROW deb-acct cred-acct timeout)
      (transfer (get-pact-account ESCROW_ACCT) deb-acct amount (get-system-time))))

  (defun finish-escrow (deb-acct cred-acct
                        escrow-amount:decimal)
    (with-capability (USER_GUARD deb-acct)
      (with-capability (USER_GUARD cred-acct)
        (let* ((price (read-decimal "final-price"))
               (delta (- escrow-amount price))
               (escrow-acct (get-pact-account ESCROW_ACCT)))
          (enforce (>= escrow-amount price) "Price cannot negotiate up")
          (transfer escrow-acct cred-acct price (get-system-time))
          (if (> delta 0.0)
            (transfer escrow-acct deb-acct delta (get-system-time))
            "noop")
          (format "Escrow completed with {} paid and {} refunded" [price delta])
          ))))

  (defcap CANCEL-ESCROW (deb-acct cred-acct timeout)
    "Capability to cancel an escrow between DEB-ACCT and CRED-ACCT within TIMEOUT"
    (let ((systime (get-system-time)))
      (enforce-one
        "Cancel can only be effected by creditor, or debitor after timeout"
        [(compose-capability (USER_GUARD cred-acct))
         (and (compose-capability (USER_GUARD deb-acct))
              (enforce (>= systime timeout) "Cancel timeout not expired for debitor cancel"))
        ])))

  (defun get-pact-account (pfx:string) (format "{}-{}" [pfx (pact-id)]))

  (defun new-pact-account (pfx ccy)
    (let ((a (get-pact-account pfx)))
      (insert accounts a
        { "balance": 0.0
        , "amount": 0.0
        , "ccy": ccy
        , "rowguard": (create-pact-guard pfx)
        , "date": (get-system-time)
        , "data": { "note": "Created pact account" }
        }
      )
      a))

)

`
