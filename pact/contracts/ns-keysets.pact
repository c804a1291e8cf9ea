;; ns-keysets.pact
;;
;; The last namespace step of genesis: the operator keysets, which ns.pact
;; left passing unsigned so that genesis could use them, are rotated to the
;; real keys. Redefining a keyset enforces the old one, which still passes.
;;
;; Data read: "ns-operate-keyset" (writes the ns registry; user and admin of
;; the `kadena` namespace), "util-ns-users" (deploys in `util`) and
;; "util-ns-admin" (administers `util`).

(define-keyset "ns-operate-keyset" (read-keyset "ns-operate-keyset"))
(define-keyset "util-ns-users" (read-keyset "util-ns-users"))
(define-keyset "util-ns-admin" (read-keyset "util-ns-admin"))
