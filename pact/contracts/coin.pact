;; coin.pact
;;
;; The ledger-node coin contract: the native token of every chain, its
;; accounts, transfers on one chain and between chains, gas purchase and
;; settlement, and miner rewards.
;;
;; It is our own code, written to be call-compatible with Kadena's coin v6:
;; the module and interface names, every argument list, result, capability
;; (with its managed or event kind), the cross-chain yield, the account rules
;; and the error texts users see are the same, so wallets, @kadena/client and
;; the node's gas and coinbase code use it without change.
;;
;; This file is the install transaction: the module, then its two tables.
;; The same text must be installed on every chain, so that the module hash
;; recorded in a cross-chain yield is the hash the target chain has. A later
;; upgrade must `bless` the hash of this version, or transfers started under
;; it cannot complete.

(module coin GOVERNANCE
  @doc "The native token. Accounts are rows of 'coin-table' keyed by name, \
       \each with a balance and the guard that controls it."

  (implements fungible-v2)
  (implements fungible-xchain-v1)

  ;; ------------------------------------------------------------------
  ;; Storage

  (defschema coin-schema
    @doc "One account: its balance (never negative) and its guard."
    balance:decimal
    guard:guard)

  (deftable coin-table:{coin-schema})

  (defschema allocation-schema
    @doc "A genesis allocation: an amount locked until DATE, released \
         \once into the account of the same name."
    balance:decimal
    date:time
    guard:guard
    redeemed:bool)

  (deftable allocation-table:{allocation-schema})

  (defschema crosschain-schema
    @doc "What step 0 of 'transfer-crosschain' yields to the target chain."
    receiver:string
    receiver-guard:guard
    amount:decimal
    source-chain:string)

  ;; ------------------------------------------------------------------
  ;; Constants

  (defconst COIN_CHARSET CHARSET_LATIN1
    "Account names are Latin-1 strings.")

  (defconst MINIMUM_PRECISION 12
    "Amounts have at most this many decimal places.")

  (defconst MINIMUM_ACCOUNT_LENGTH 3
    "Shortest account name.")

  (defconst MAXIMUM_ACCOUNT_LENGTH 256
    "Longest account name.")

  (defconst VALID_CHAIN_IDS
    [ "0" "1" "2" "3" "4" "5" "6" "7" "8" "9"
      "10" "11" "12" "13" "14" "15" "16" "17" "18" "19" ]
    "The chains a cross-chain transfer may target.")

  ;; ------------------------------------------------------------------
  ;; Capabilities

  (defcap GOVERNANCE ()
    @doc "No transaction may upgrade the coin contract."
    (enforce false "Enforce non-upgradeability"))

  (defcap GAS ()
    @doc "Granted by the node alone, around buying and redeeming gas."
    true)

  (defcap COINBASE ()
    @doc "Granted by the node alone, for miner rewards and genesis grants."
    true)

  (defcap GENESIS ()
    @doc "Granted by the node alone, in genesis transactions."
    true)

  (defcap REMEDIATE ()
    @doc "Granted by the node alone, in remediation transactions."
    true)

  (defcap DEBIT (sender:string)
    @doc "Taking funds from SENDER: its guard must pass."
    (enforce-guard (at "guard" (read coin-table sender)))
    (enforce (!= sender "") "valid sender"))

  (defcap CREDIT (receiver:string)
    @doc "Adding funds to RECEIVER."
    (enforce (!= receiver "") "valid receiver"))

  (defcap ROTATE (account:string)
    @doc "Signed by the keys of ACCOUNT to allow one guard rotation."
    @managed
    true)

  (defcap TRANSFER:bool (sender:string receiver:string amount:decimal)
    @doc "Signed by SENDER's keys: transfers to RECEIVER of at most AMOUNT \
         \in total."
    @managed amount TRANSFER-mgr
    (enforce (!= sender receiver) "same sender and receiver")
    (enforce-unit amount)
    (enforce (> amount 0.0) "Positive amount")
    (compose-capability (DEBIT sender))
    (compose-capability (CREDIT receiver)))

  (defun TRANSFER-mgr:decimal (managed:decimal requested:decimal)
    @doc "What is left of the signed amount after REQUESTED."
    (let ((remaining (- managed requested)))
      (enforce (>= remaining 0.0)
        (format "TRANSFER exceeded for balance {}" [managed]))
      remaining))

  (defcap TRANSFER_XCHAIN:bool
    (sender:string receiver:string amount:decimal target-chain:string)
    @doc "Signed by SENDER's keys: one cross-chain transfer of at most \
         \AMOUNT to RECEIVER on TARGET-CHAIN."
    @managed amount TRANSFER_XCHAIN-mgr
    (enforce-unit amount)
    (enforce (> amount 0.0) "Cross-chain transfers require a positive amount")
    (compose-capability (DEBIT sender)))

  (defun TRANSFER_XCHAIN-mgr:decimal (managed:decimal requested:decimal)
    @doc "One use of at most the signed amount; nothing is left after it."
    (enforce (<= requested managed)
      (format "TRANSFER_XCHAIN exceeded for balance {}" [managed]))
    0.0)

  (defcap TRANSFER_XCHAIN_RECD:bool
    (sender:string receiver:string amount:decimal source-chain:string)
    @doc "A cross-chain transfer arrived (emitted by step 1)."
    @event
    true)

  (defcap RELEASE_ALLOCATION (account:string amount:decimal)
    @doc "An allocation is released; signatures may be scoped to it."
    @event
    true)

  ;; ------------------------------------------------------------------
  ;; Amounts and account names

  (defun precision:integer ()
    MINIMUM_PRECISION)

  (defun enforce-unit:bool (amount:decimal)
    @doc "AMOUNT must have at most MINIMUM_PRECISION decimal places."
    (enforce (= amount (floor amount MINIMUM_PRECISION))
      (format "Amount violates minimum precision: {}" [amount])))

  (defun validate-account (account:string)
    @doc "ACCOUNT must be Latin-1 and 3 to 256 characters long."
    (enforce (is-charset COIN_CHARSET account)
      (format "Account does not conform to the coin contract charset: {}"
        [account]))
    (let ((len (length account)))
      (enforce (>= len MINIMUM_ACCOUNT_LENGTH)
        (format "Account name does not conform to the min length requirement: {}"
          [account]))
      (enforce (<= len MAXIMUM_ACCOUNT_LENGTH)
        (format "Account name does not conform to the max length requirement: {}"
          [account]))))

  (defun check-reserved:string (account:string)
    @doc "The protocol letter of a reserved name ('k' for \"k:...\"), or \
         \\"\" for an ordinary (vanity) name."
    (let ((head (take 2 account)))
      (if (= (take -1 head) ":")
        (take 1 head)
        "")))

  (defun enforce-reserved:bool (account:string guard:guard)
    @doc "A new account with a reserved name must be the principal of its \
         \guard: \"k:<key>\" needs the keys-all keyset of that one key, and \
         \so on. Vanity names take any guard."
    (let ((protocol (check-reserved account)))
      (cond
        ((validate-principal guard account) true)
        ((= protocol "") true)
        ((= protocol "k")
          (enforce false "Single-key account protocol violation"))
        (enforce false
          (format "Reserved protocol guard violation: {}" [protocol])))))

  ;; ------------------------------------------------------------------
  ;; Gas guards

  (defun gas-only ()
    @doc "Passes only while the node holds GAS: for user guards of \
         \accounts that pay gas without a signature."
    (require-capability (GAS)))

  (defun gas-guard (guard:guard)
    @doc "Passes while GAS is held or when GUARD passes."
    (enforce-one "Enforce either the presence of a GAS cap or keyset"
      [ (gas-only) (enforce-guard guard) ]))

  ;; ------------------------------------------------------------------
  ;; Accounts

  (defun create-account:string (account:string guard:guard)
    (validate-account account)
    (enforce-reserved account guard)
    (insert coin-table account { "balance": 0.0, "guard": guard }))

  (defun get-balance:decimal (account:string)
    (at "balance" (read coin-table account)))

  (defun details:object{fungible-v2.account-details} (account:string)
    (let ((row (read coin-table account)))
      { "account": account
      , "balance": (at "balance" row)
      , "guard": (at "guard" row) }))

  (defun rotate:string (account:string new-guard:guard)
    (with-capability (ROTATE account)
      (enforce
        (or (not (is-principal account))
            (validate-principal new-guard account))
        "It is unsafe for principal accounts to rotate their guard")
      (enforce-guard (at "guard" (read coin-table account)))
      (update coin-table account { "guard": new-guard })))

  ;; ------------------------------------------------------------------
  ;; Ledger primitives: only under DEBIT / CREDIT

  (defun debit:string (account:string amount:decimal)
    @doc "Take AMOUNT from ACCOUNT. Requires DEBIT."
    (validate-account account)
    (enforce (> amount 0.0) "debit amount must be positive")
    (enforce-unit amount)
    (require-capability (DEBIT account))
    (let ((balance (at "balance" (read coin-table account))))
      (enforce (<= amount balance) "Insufficient funds")
      (update coin-table account { "balance": (- balance amount) })))

  (defun credit:string (account:string guard:guard amount:decimal)
    @doc "Add AMOUNT to ACCOUNT, creating it with GUARD if it does not \
         \exist; an existing account must have exactly GUARD. Requires CREDIT."
    (validate-account account)
    (enforce (> amount 0.0) "credit amount must be positive")
    (enforce-unit amount)
    (require-capability (CREDIT account))
    (with-default-read coin-table account
      { "balance": -1.0, "guard": guard }
      { "balance" := balance, "guard" := current }
      (enforce (= current guard) "account guards do not match")
      (if (= balance -1.0)
        (let ((ok (enforce-reserved account guard)))
          (write coin-table account { "balance": amount, "guard": guard }))
        (write coin-table account
          { "balance": (+ balance amount), "guard": current }))))

  ;; ------------------------------------------------------------------
  ;; Transfers

  (defun transfer:string (sender:string receiver:string amount:decimal)
    (enforce (!= sender receiver) "sender cannot be the receiver of a transfer")
    (validate-account sender)
    (validate-account receiver)
    (enforce (> amount 0.0) "transfer amount must be positive")
    (enforce-unit amount)
    (with-capability (TRANSFER sender receiver amount)
      (debit sender amount)
      (credit receiver (at "guard" (read coin-table receiver)) amount)))

  (defun transfer-create:string
    (sender:string receiver:string receiver-guard:guard amount:decimal)
    (enforce (!= sender receiver) "sender cannot be the receiver of a transfer")
    (validate-account sender)
    (validate-account receiver)
    (enforce (> amount 0.0) "transfer amount must be positive")
    (enforce-unit amount)
    (with-capability (TRANSFER sender receiver amount)
      (debit sender amount)
      (credit receiver receiver-guard amount)))

  (defpact transfer-crosschain:string
    (sender:string receiver:string receiver-guard:guard target-chain:string amount:decimal)
    (step
      (with-capability (TRANSFER_XCHAIN sender receiver amount target-chain)
        (validate-account sender)
        (validate-account receiver)
        (enforce (!= target-chain "") "empty target-chain")
        (enforce (!= target-chain (at "chain-id" (chain-data)))
          "cannot run cross-chain transfers to the same chain")
        (enforce (> amount 0.0) "transfer quantity must be positive")
        (enforce-unit amount)
        (enforce (contains target-chain VALID_CHAIN_IDS)
          "target chain is not a valid chainweb chain id")
        (debit sender amount)
        (emit-event (TRANSFER sender "" amount))
        (let ((payload:object{crosschain-schema}
                { "receiver": receiver
                , "receiver-guard": receiver-guard
                , "amount": amount
                , "source-chain": (at "chain-id" (chain-data)) }))
          (yield payload target-chain))))
    (step
      (resume
        { "receiver" := to
        , "receiver-guard" := to-guard
        , "amount" := value
        , "source-chain" := from-chain }
        (emit-event (TRANSFER "" to value))
        (emit-event (TRANSFER_XCHAIN_RECD "" to value from-chain))
        (with-capability (CREDIT to)
          (credit to to-guard value)))))

  ;; ------------------------------------------------------------------
  ;; Gas: the node runs buy-gas before a transaction and redeem-gas after
  ;; it, both holding GAS.

  (defun buy-gas:string (sender:string total:decimal)
    @doc "Take the most the transaction may spend on gas, TOTAL (gas \
         \limit times gas price), from SENDER."
    (validate-account sender)
    (enforce-unit total)
    (enforce (> total 0.0) "gas supply must be a positive quantity")
    (require-capability (GAS))
    (with-capability (DEBIT sender)
      (debit sender total)))

  (defun redeem-gas:string
    (miner:string miner-guard:guard sender:string total:decimal)
    @doc "Settle gas: of the TOTAL bought, the fee (data field 'fee', gas \
         \used times price) goes to MINER, the rest back to SENDER."
    (validate-account sender)
    (validate-account miner)
    (enforce-unit total)
    (require-capability (GAS))
    (let* ((fee (read-decimal "fee"))
           (refund (- total fee)))
      (enforce-unit fee)
      (enforce (>= fee 0.0) "fee must be a non-negative quantity")
      (enforce (>= refund 0.0) "refund must be a non-negative quantity")
      (emit-event (TRANSFER sender miner fee))
      (with-capability (CREDIT sender)
        (if (> refund 0.0)
          (let ((balance (at "balance" (read coin-table sender))))
            (update coin-table sender { "balance": (+ balance refund) }))
          "noop"))
      (with-capability (CREDIT miner)
        (if (> fee 0.0)
          (credit miner miner-guard fee)
          "noop"))))

  (defpact fund-tx (sender:string miner:string miner-guard:guard total:decimal)
    @doc "The two-step gas flow of older chainweb versions: buy-gas, then \
         \(after the transaction) redeem-gas."
    (step (buy-gas sender total))
    (step (redeem-gas miner miner-guard sender total)))

  ;; ------------------------------------------------------------------
  ;; Minting and burning by the node

  (defun coinbase:string (account:string account-guard:guard amount:decimal)
    @doc "Mint AMOUNT into ACCOUNT (created with ACCOUNT-GUARD if needed). \
         \Requires COINBASE."
    (validate-account account)
    (enforce-unit amount)
    (require-capability (COINBASE))
    (emit-event (TRANSFER "" account amount))
    (with-capability (CREDIT account)
      (credit account account-guard amount)))

  (defun remediate:string (account:string amount:decimal)
    @doc "Burn AMOUNT from ACCOUNT. Requires REMEDIATE."
    (validate-account account)
    (enforce (> amount 0.0) "Remediation amount must be positive")
    (enforce-unit amount)
    (require-capability (REMEDIATE))
    (emit-event (TRANSFER "" account amount))
    (let ((balance (at "balance" (read coin-table account))))
      (enforce (<= amount balance) "Insufficient funds")
      (update coin-table account { "balance": (- balance amount) })))

  ;; ------------------------------------------------------------------
  ;; Genesis allocations

  (defun create-allocation-account
    (account:string date:time keyset-ref:string amount:decimal)
    @doc "Genesis only: open ACCOUNT guarded by the keyset named \
         \KEYSET-REF, and lock AMOUNT for it until DATE."
    (require-capability (GENESIS))
    (validate-account account)
    (enforce (>= amount 0.0) "allocation amount must be non-negative")
    (enforce-unit amount)
    (let ((guard:guard (keyset-ref-guard keyset-ref)))
      (create-account account guard)
      (insert allocation-table account
        { "balance": amount
        , "date": date
        , "guard": guard
        , "redeemed": false })))

  (defun release-allocation (account:string)
    @doc "Once the block time reaches its date, move the allocation of \
         \ACCOUNT into its balance. The allocation's guard must pass."
    (validate-account account)
    (with-read allocation-table account
      { "balance" := locked
      , "date" := release
      , "redeemed" := done
      , "guard" := guard }
      (let ((now:time (at "block-time" (chain-data))))
        (enforce (not done) "allocation funds have already been redeemed")
        (enforce (>= now release)
          (format "funds locked until {}. current time: {}" [release now]))
        (with-capability (RELEASE_ALLOCATION account locked)
          (enforce-guard guard)
          (with-capability (CREDIT account)
            (emit-event (TRANSFER "" account locked))
            (credit account guard locked)
            (update allocation-table account
              { "redeemed": true, "balance": 0.0 })
            "Allocation successfully released to main ledger")))))
)

(create-table coin.coin-table)
(create-table coin.allocation-table)
