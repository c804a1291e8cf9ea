;; ns.pact
;;
;; The namespace policy and the namespaces every ledger-node chain starts
;; with. Install transaction, run in genesis (where root definitions are
;; allowed and nobody signs). Afterwards the node runs ordinary transactions
;; with `ns.validate` as the policy for defining new namespaces.
;;
;; Call-compatible with Kadena's `ns` v2 (same functions, table, constants
;; and messages) with one deliberate difference: a registered namespace may
;; be administered by any kind of guard (keyset references, user guards,
;; ...). Kadena's v2 computes a principal namespace first for every guard and
;; so rejects every admin guard that is not a keyset.
;;
;; Data read: "ns-admin-keyset" (who may upgrade this module) and
;; "ns-genesis-keyset", which must be {"keys": [], "pred": "="}: a keyset
;; that passes with no signature. The operator keysets start as that keyset
;; so that this unsigned transaction (and util-guards.pact after it) may use
;; them; ns-keysets.pact then rotates them to the real keys.

(define-keyset "ns-admin-keyset" (read-keyset "ns-admin-keyset"))
(define-keyset "ns-operate-keyset" (read-keyset "ns-genesis-keyset"))
(define-keyset "util-ns-users" (read-keyset "ns-genesis-keyset"))
(define-keyset "util-ns-admin" (read-keyset "ns-genesis-keyset"))

(module ns GOVERNANCE
  @doc "Who may define which namespace. Principal namespaces (\"n_\" and \
       \40 hex digits derived from a keyset) belong to that keyset; other \
       \names must be registered, active, and defined with the registered \
       \admin guard."

  (defschema reg-entry
    @doc "A registered namespace: its admin guard and whether it may be \
         \defined."
    admin-guard:guard
    active:bool)

  (deftable registry:{reg-entry})

  (defcap GOVERNANCE ()
    (enforce-keyset "ns-admin-keyset"))

  (defcap OPERATE ()
    @doc "Writing the registry."
    (enforce-keyset "ns-operate-keyset"))

  (defconst GUARD_SUCCESS (create-user-guard (success))
    "A guard anyone passes.")

  (defconst GUARD_FAILURE (create-user-guard (failure))
    "A guard nobody passes.")

  (defun success ()
    true)

  (defun failure ()
    (enforce false "Disabled"))

  (defun validate-name (name)
    @doc "A registry name: non-empty, under 64 characters, Latin-1."
    (enforce (!= name "") "Empty name not allowed")
    (enforce (< (length name) 64) "Name must be less than 64 characters long")
    (enforce (is-charset CHARSET_LATIN1 name) "Name must be in latin1 charset"))

  (defun create-principal-namespace:string (g:guard)
    @doc "The principal namespace of keyset G: \"n_\" and the first 40 hex \
         \digits of the hash of G. Only single-key (k:) and multi-key (w:) \
         \keysets have one."
    (let ((protocol (typeof-principal (create-principal g))))
      (enforce (contains protocol ["k:" "w:"])
        (format "Unsupported guard protocol: {}" [protocol]))
      (+ "n_" (take 40 (int-to-str 16 (str-to-int 64 (hash g)))))))

  (defun is-principal-namespace:bool (ns-name:string g:guard)
    @doc "Whether NS-NAME is the principal namespace of G. False, rather \
         \than a failure, for guards that have none."
    (and (contains (typeof-principal (create-principal g)) ["k:" "w:"])
         (= ns-name (create-principal-namespace g))))

  (defun validate:bool (ns-name:string ns-admin:guard)
    @doc "The namespace policy: may NS-NAME be defined with admin guard \
         \NS-ADMIN? Yes for the principal namespace of NS-ADMIN; otherwise \
         \NS-NAME must be registered, active, with exactly NS-ADMIN as its \
         \admin guard."
    (if (is-principal-namespace ns-name ns-admin)
      true
      (with-default-read registry ns-name
        { "admin-guard": ns-admin, "active": false }
        { "admin-guard" := registered, "active" := active }
        (enforce active "Inactive or unregistered namespace")
        (enforce (= ns-admin registered) "Admin guard must match guard in registry")
        true)))

  (defun write-registry:string (ns-name:string guard:guard active:bool)
    @doc "Register NS-NAME with admin GUARD, or change its entry. Requires \
         \the operator keyset."
    (with-capability (OPERATE)
      (validate-name ns-name)
      (write registry ns-name { "admin-guard": guard, "active": active })
      "Register entry written"))

  (defun query:object{reg-entry} (ns-name:string)
    (read registry ns-name))
)

(create-table ns.registry)

;; kadena: the operators'. user, free: anyone deploys, nobody redefines.
;; util: shared utilities, deployed and administered by the util keysets.
(ns.write-registry "kadena" (keyset-ref-guard "ns-operate-keyset") true)
(ns.write-registry "user" ns.GUARD_FAILURE true)
(ns.write-registry "free" ns.GUARD_FAILURE true)
(ns.write-registry "util" (keyset-ref-guard "util-ns-admin") true)

(define-namespace "kadena"
  (keyset-ref-guard "ns-operate-keyset")
  (keyset-ref-guard "ns-operate-keyset"))
(define-namespace "user" ns.GUARD_SUCCESS ns.GUARD_FAILURE)
(define-namespace "free" ns.GUARD_SUCCESS ns.GUARD_FAILURE)
(define-namespace "util"
  (keyset-ref-guard "util-ns-users")
  (keyset-ref-guard "util-ns-admin"))
