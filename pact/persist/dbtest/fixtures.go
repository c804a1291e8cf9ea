package dbtest

import "github.com/ledgernode/ledger-node/pact/value"

// KeysetData is the data of keysets: pairs of a name and its one key.
func KeysetData(kv ...string) *value.Object {
	var fs []value.Field
	for i := 0; i < len(kv); i += 2 {
		fs = append(fs, value.Field{Key: kv[i], Val: value.List{value.String(kv[i+1])}})
	}
	return value.NewObject(fs...)
}

// BankSrc installs a keyset, a namespace, an interface and a module with a table, a
// capability and a defpact: what a state must keep across a restart.
const BankSrc = `
(define-keyset 'gov-ks (read-keyset "gov"))
(define-namespace 'free (read-keyset "user") (keyset-ref-guard 'gov-ks))
(namespace 'free)
(interface shape
  (defconst UNIT:decimal 1.0)
  (defun area:decimal (size:decimal)))
(module bank 'gov-ks
  @doc "accounts"
  (implements shape)
  (defschema account balance:decimal guard:guard since:time)
  (deftable accounts:{account})
  (defconst FEE:decimal 0.10)
  (defconst START (time "2024-01-01T00:00:00Z"))
  (defcap OWNER (id:string) (enforce-guard (at "guard" (read accounts id))))
  (defun area:decimal (size:decimal) (* size size))
  (defun open-account (id:string g:guard)
    (insert accounts id { "balance": 0.0, "guard": g, "since": START }))
  (defun deposit (id:string amt:decimal)
    (with-read accounts id { "balance" := b } (update accounts id { "balance": (+ b amt) })))
  (defun balance:decimal (id:string) (at "balance" (read accounts id)))
  (defun withdraw (id:string amt:decimal)
    (with-capability (OWNER id)
      (with-read accounts id { "balance" := b }
        (enforce (>= b amt) "insufficient funds")
        (update accounts id { "balance": (- b amt) }))))
  (defpact transfer (from:string to:string amt:decimal)
    (step (do (withdraw from amt) (yield { "amt": amt, "to": to }) "debited"))
    (step (resume { "amt" := a, "to" := t } (do (deposit t a) "credited")))))
(create-table accounts)
(namespace "")
`

// ModuleV1 and ModuleV2 are two versions of a module (name by %s; V2 also takes a line
// of code, such as a bless) whose rows record the version that wrote them.
const ModuleV1 = `
(module %s 'gov-ks
  (defschema entry v:integer)
  (deftable entries:{entry})
  (defun version:integer () 1)
  (defun add-entry (k:string) (insert entries k { "v": (version) }))
  (defun get-entry (k:string) (at "v" (read entries k))))
`

const ModuleV2 = `
(module %s 'gov-ks
  %s
  (defschema entry v:integer)
  (deftable entries:{entry})
  (defun version:integer () 2)
  (defun add-entry (k:string) (insert entries k { "v": (version) }))
  (defun get-entry (k:string) (at "v" (read entries k))))
`
