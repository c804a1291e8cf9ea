;; util-guards.pact
;;
;; Guard utilities in the `util` namespace, with the module and function
;; names Kadena's networks have (`util.guards`, `util.guards1`), so that
;; contracts and scripts written for them work here. Our own code; neither
;; module can be upgraded.
;;
;; Installed in genesis right after ns.pact, while "util-ns-users" still
;; passes unsigned. The development genesis uses util.guards1 for the guard
;; of the cross-chain gas account "kadena-xchain-gas".

(namespace "util")

(module guards AUTONOMOUS
  "Guards over the block time, and guards combining two guards."

  (defcap AUTONOMOUS ()
    (enforce false "Non-upgradeable"))

  (defun chain-time:time ()
    (at "block-time" (chain-data)))

  (defun enforce-time:bool (date:time msg:string test:bool)
    (enforce test (format "Chain time must be {} {}" [msg date])))

  (defun enforce-after-date:bool (date:time)
    (enforce-time date "after" (> (chain-time) date)))

  (defun enforce-at-after-date:bool (date:time)
    (enforce-time date "at or after" (>= (chain-time) date)))

  (defun enforce-before-date:bool (date:time)
    (enforce-time date "before" (< (chain-time) date)))

  (defun enforce-at-before-date:bool (date:time)
    (enforce-time date "at or before" (<= (chain-time) date)))

  (defun after-date:guard (date:time)
    "Passes once the block time is after DATE."
    (create-user-guard (enforce-after-date date)))

  (defun at-after-date:guard (date:time)
    "Passes once the block time is DATE or later."
    (create-user-guard (enforce-at-after-date date)))

  (defun before-date:guard (date:time)
    "Passes while the block time is before DATE."
    (create-user-guard (enforce-before-date date)))

  (defun at-before-date:guard (date:time)
    "Passes while the block time is DATE or earlier."
    (create-user-guard (enforce-at-before-date date)))

  (defun enforce-and:bool (a:guard b:guard)
    (enforce-guard a)
    (enforce-guard b))

  (defun enforce-or:bool (a:guard b:guard)
    (enforce-one (format "Enforce {} or {}" [a b])
      [ (enforce-guard a) (enforce-guard b) ]))

  (defun guard-and:guard (a:guard b:guard)
    "Passes when both A and B pass."
    (create-user-guard (enforce-and a b)))

  (defun guard-or:guard (a:guard b:guard)
    "Passes when A or B passes."
    (create-user-guard (enforce-or a b)))
)

(module guards1 AUTONOMOUS
  "Guards over lists of guards and over the gas price and limit of the \
  \transaction, for gas-paying accounts."

  (defcap AUTONOMOUS ()
    (enforce false "Non-upgradeable"))

  (defun enforce-guard-all:bool (guards:[guard])
    "Every guard of GUARDS must pass."
    (map (enforce-guard) guards)
    true)

  (defun try-enforce-guard:bool (g:guard)
    (try false (enforce-guard g)))

  (defun enforce-guard-any:bool (guards:[guard])
    "At least one guard of GUARDS must pass."
    (enforce (contains true (map (try-enforce-guard) guards))
      "None of the guards passed"))

  (defun guard-all:guard (guards:[guard])
    "Passes when every guard of GUARDS (not empty) passes."
    (enforce (> (length guards) 0) "Guard list cannot be empty")
    (create-user-guard (enforce-guard-all guards)))

  (defun guard-any:guard (guards:[guard])
    "Passes when one guard of GUARDS (not empty) passes."
    (enforce (> (length guards) 0) "Guard list cannot be empty")
    (create-user-guard (enforce-guard-any guards)))

  (defun chain-gas-price ()
    "The transaction's gas price."
    (at "gas-price" (chain-data)))

  (defun chain-gas-limit ()
    "The transaction's gas limit."
    (at "gas-limit" (chain-data)))

  (defun chain-gas-notional ()
    "Gas price times gas limit: the most the transaction may pay."
    (* (chain-gas-price) (chain-gas-limit)))

  (defun enforce-below-gas-price:bool (gasPrice:decimal)
    (enforce (< (chain-gas-price) gasPrice)
      (format "Gas Price must be smaller than {}" [gasPrice])))

  (defun enforce-below-or-at-gas-price:bool (gasPrice:decimal)
    (enforce (<= (chain-gas-price) gasPrice)
      (format "Gas Price must be smaller than or equal to {}" [gasPrice])))

  (defun enforce-below-gas-limit:bool (gasLimit:integer)
    (enforce (< (chain-gas-limit) gasLimit)
      (format "Gas Limit must be smaller than {}" [gasLimit])))

  (defun enforce-below-or-at-gas-limit:bool (gasLimit:integer)
    (enforce (<= (chain-gas-limit) gasLimit)
      (format "Gas Limit must be smaller than or equal to {}" [gasLimit])))

  (defun enforce-below-gas-notional:bool (gasNotional:decimal)
    (enforce (< (chain-gas-notional) gasNotional)
      (format "Gas Limit * Gas Price must be smaller than {}" [gasNotional])))

  (defun enforce-below-or-at-gas-notional:bool (gasNotional:decimal)
    (enforce (<= (chain-gas-notional) gasNotional)
      (format "Gas Limit * Gas Price must be smaller than or equal to {}"
        [gasNotional])))

  (defun max-gas-price:guard (gasPrice:decimal)
    "Passes while the gas price is at most GASPRICE."
    (create-user-guard (enforce-below-or-at-gas-price gasPrice)))

  (defun max-gas-limit:guard (gasLimit:integer)
    "Passes while the gas limit is at most GASLIMIT."
    (create-user-guard (enforce-below-or-at-gas-limit gasLimit)))

  (defun max-gas-notional:guard (gasNotional:decimal)
    "Passes while gas price times gas limit is at most GASNOTIONAL."
    (create-user-guard (enforce-below-or-at-gas-notional gasNotional)))
)
