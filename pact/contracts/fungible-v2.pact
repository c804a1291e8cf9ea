;; fungible-v2.pact
;;
;; The KIP-0002 fungible token interface, as the ledger-node development
;; network installs it. Every member keeps the upstream name, argument list,
;; argument types and result type, so that modules written against Kadena's
;; `fungible-v2` (DEXes, marmalade, wallets taking `module{fungible-v2}`
;; references) accept our `coin` unchanged.

(interface fungible-v2
  "Fungible tokens (KIP-0002): accounts with guards and balances, \
  \same-chain and cross-chain transfers, and the TRANSFER capability that \
  \wallets sign to bound what a transaction may move."

  (defschema account-details
    @doc "What 'details' returns for one account."
    account:string
    balance:decimal
    guard:guard)

  (defcap TRANSFER:bool (sender:string receiver:string amount:decimal)
    @doc "Signed by the SENDER's keys to allow transfers to RECEIVER \
         \totalling at most AMOUNT within one transaction."
    @managed amount TRANSFER-mgr)

  (defun TRANSFER-mgr:decimal (managed:decimal requested:decimal)
    @doc "Manager of TRANSFER: takes REQUESTED off the MANAGED remainder \
         \(3.0 managed, 1.0 requested: 2.0 left) and fails below zero.")

  (defun transfer:string (sender:string receiver:string amount:decimal)
    @doc "Move AMOUNT from SENDER to RECEIVER. Both accounts must exist.")

  (defun transfer-create:string
    (sender:string receiver:string receiver-guard:guard amount:decimal)
    @doc "Move AMOUNT from SENDER to RECEIVER, creating RECEIVER with \
         \RECEIVER-GUARD when it does not exist; an existing RECEIVER must \
         \have exactly that guard.")

  (defpact transfer-crosschain:string
    (sender:string receiver:string receiver-guard:guard target-chain:string amount:decimal)
    @doc "Two steps. Step 0, on this chain, takes AMOUNT from SENDER and \
         \yields it to TARGET-CHAIN (a different chain). Step 1, on \
         \TARGET-CHAIN and continued with an SPV proof of step 0, credits \
         \RECEIVER, creating it with RECEIVER-GUARD if needed.")

  (defun get-balance:decimal (account:string)
    @doc "The balance of ACCOUNT; fails if it does not exist.")

  (defun details:object{account-details} (account:string)
    @doc "Account name, balance and guard of ACCOUNT; fails if it does \
         \not exist.")

  (defun precision:integer ()
    @doc "How many decimal places an amount may have.")

  (defun enforce-unit:bool (amount:decimal)
    @doc "Fail unless AMOUNT has at most 'precision' decimal places.")

  (defun create-account:string (account:string guard:guard)
    @doc "Open ACCOUNT with a zero balance, controlled by GUARD.")

  (defun rotate:string (account:string new-guard:guard)
    @doc "Replace the guard of ACCOUNT with NEW-GUARD. The current guard \
         \must pass first.")
)
