;; gas-payer-v1.pact
;;
;; The interface of gas stations: modules whose coin account pays the gas of
;; other users' transactions. The node acquires a signed GAS_PAYER capability
;; before buying gas; the module's account guard then passes because the
;; capability composed what the guard requires.

(interface gas-payer-v1
  "Gas stations: modules that pay gas for their users."

  (defcap GAS_PAYER:bool (user:string limit:integer price:decimal)
    @doc "The declaring module agrees to pay gas for USER, up to LIMIT \
         \units at PRICE. It should check whatever it needs (the \
         \transaction data the node adds, gas price and limit) and \
         \compose the capability that its gas-payer guard requires.")

  (defun create-gas-payer-guard:guard ()
    @doc "A guard for the module's coin account that passes while \
         \GAS_PAYER (and so coin.GAS) is in force, usually a user guard \
         \requiring coin.GAS and a private capability GAS_PAYER composes.")
)
