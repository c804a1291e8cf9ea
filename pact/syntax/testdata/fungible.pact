;; fungible.pact: the interface implemented by token.pact.
;; Written for this project's parser and evaluator tests.

(interface fungible-token-v1
  @doc "Operations every fungible token ledger offers: balances, \
       \managed transfers on one chain and across chains, and \
       \account administration."
  @model [ (defproperty positive (amount:decimal) (> amount 0.0)) ]

  (defschema account-details
    @doc "What details returns for an account."
    account:string
    balance:decimal
    guard:guard)

  (defconst MAX-ACCOUNT-LENGTH:integer 256
    "The longest account name any implementation accepts.")

  ;; Capabilities -------------------------------------------------------------

  (defcap TRANSFER:bool (sender:string receiver:string amount:decimal)
    @doc "Scopes a signature to a transfer of at most AMOUNT."
    @managed amount TRANSFER-mgr)

  (defun TRANSFER-mgr:decimal (managed:decimal requested:decimal)
    @doc "Spends REQUESTED from the MANAGED allowance.")

  (defcap TRANSFER_XCHAIN:bool
    (sender:string receiver:string amount:decimal target-chain:string)
    @doc "Scopes a signature to a cross-chain transfer."
    @managed amount TRANSFER_XCHAIN-mgr)

  (defun TRANSFER_XCHAIN-mgr:decimal (managed:decimal requested:decimal))

  (defcap TRANSFER_XCHAIN_RECD:bool
    (sender:string receiver:string amount:decimal source-chain:string)
    @event)

  ;; Functions ----------------------------------------------------------------

  (defun transfer:string (sender:string receiver:string amount:decimal)
    @doc "Move AMOUNT from SENDER to the existing account RECEIVER."
    @model [ (property (positive amount))
             (property (!= sender receiver)) ])

  (defun transfer-create:string
    ( sender:string
      receiver:string
      receiver-guard:guard
      amount:decimal )
    @doc "Like transfer, creating RECEIVER with RECEIVER-GUARD if needed.")

  (defpact transfer-crosschain:string
    ( sender:string
      receiver:string
      receiver-guard:guard
      target-chain:string
      amount:decimal )
    @doc "Debit on this chain, then credit on TARGET-CHAIN.")

  (defun get-balance:decimal (account:string))

  (defun details:object{account-details} (account:string))

  (defun precision:integer ()
    "Number of decimal places amounts may have.")

  (defun enforce-unit:bool (amount:decimal))

  (defun create-account:string (account:string guard:guard))

  (defun rotate:string (account:string new-guard:guard))
)
