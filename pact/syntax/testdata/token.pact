;; token.pact: a sample fungible token written for this project's parser and
;; evaluator tests. It implements fungible-token-v1 (fungible.pact) and uses
;; every definition form: defcap with @managed and @event, defconst,
;; defschema, deftable, defun and defpact with step and step-with-rollback.

(module token GOVERNANCE
  @doc "A fungible token with managed transfers, allowances, vesting, \
       \cross-chain transfers and escrow."
  @model
    [ (defproperty conserves-mass
        (= (column-delta accounts 'balance) 0.0))
      (defproperty valid-account-id (account:string)
        (and (>= (length account) MIN-ACCOUNT-LENGTH)
             (<= (length account) MAX-ACCOUNT-LENGTH)))
    ]

  (implements fungible-token-v1)
  (bless "rrMRYRmLo1AmDFJ3C4NhZMqQbmkKWuNmUa_XsdTfGHk")

  ;; Schemas and tables ------------------------------------------------------

  (defschema account-row
    @doc "One row per account."
    @model [ (invariant (>= balance 0.0)) ]
    balance:decimal
    guard:guard)

  (defschema allowance-row
    owner:string
    spender:string
    remaining:decimal)

  (defschema vesting-row
    "A schedule that releases AMOUNT in equal parts between START and END."
    account:string
    amount:decimal
    released:decimal
    start:time
    end:time
    parts:integer)

  (defschema escrow-row
    buyer:string
    seller:string
    amount:decimal
    state:string
    memo)

  (deftable accounts:{account-row}
    @doc "Balances and guards.")
  (deftable allowances:{allowance-row})
  (deftable vesting:{vesting-row} "Vesting schedules by id.")
  (deftable escrows:{escrow-row})

  ;; Constants ---------------------------------------------------------------

  (defconst PRECISION:integer 12
    @doc "Amounts are multiples of 10^-12.")

  (defconst MIN-ACCOUNT-LENGTH 3)
  (defconst MAX-ACCOUNT-LENGTH:integer 256)
  (defconst MAX-SUPPLY:decimal 1000000000.0 "No more than this is ever minted.")
  (defconst ZERO 0.0)
  (defconst ESCROW-OPEN "open")
  (defconst ESCROW-SETTLED 'settled)
  (defconst VALID-CHAINS:[string]
    (map (int-to-str 10) (enumerate 0 19))
    "Chain ids transfers may target.")
  (defconst FEE-SCHEDULE
    { 'small: 0.001, 'medium: 0.0005, "large": 0.00025 }
    @doc "Fee rate by tier.")
  (defconst TIERS [1000.0, 100000.0, 10000000.0])

  ;; Capabilities ------------------------------------------------------------

  (defcap GOVERNANCE ()
    @doc "Upgrades need the admin keyset."
    (enforce-keyset "token-admin"))

  (defcap INTERNAL () "Guards functions only the module may call." true)

  (defcap DEBIT:bool (sender:string)
    (enforce-guard (at 'guard (read accounts sender)))
    (enforce (!= sender "") "valid sender"))

  (defcap CREDIT:bool (receiver:string)
    (enforce (!= receiver "") "valid receiver"))

  (defcap ROTATE (account:string)
    @doc "One rotation per signature."
    @managed
    true)

  (defcap TRANSFER:bool (sender:string receiver:string amount:decimal)
    @managed amount TRANSFER-mgr
    (enforce (!= sender receiver) "same sender and receiver")
    (enforce-unit amount)
    (enforce (> amount 0.0) "Positive amount")
    (compose-capability (DEBIT sender))
    (compose-capability (CREDIT receiver)))

  (defun TRANSFER-mgr:decimal (managed:decimal requested:decimal)
    (let ((remaining (- managed requested)))
      (enforce (>= remaining 0.0)
        (format "TRANSFER exceeded for balance {}" [managed]))
      remaining))

  (defcap TRANSFER_XCHAIN:bool
    (sender:string receiver:string amount:decimal target-chain:string)
    @managed amount TRANSFER_XCHAIN-mgr
    (enforce-unit amount)
    (enforce (> amount 0.0) "Cross-chain transfers need a positive amount")
    (compose-capability (DEBIT sender)))

  (defun TRANSFER_XCHAIN-mgr:decimal (managed:decimal requested:decimal)
    (enforce (>= managed requested)
      (format "TRANSFER_XCHAIN exceeded for balance {}" [managed]))
    0.0)

  (defcap TRANSFER_XCHAIN_RECD:bool
    (sender:string receiver:string amount:decimal source-chain:string)
    @event true)

  (defcap MINT:bool (account:string amount:decimal)
    @doc "Minting needs governance."
    @event
    (compose-capability (GOVERNANCE))
    (compose-capability (CREDIT account)))

  (defcap BURN:bool (account:string amount:decimal)
    @event
    (compose-capability (DEBIT account)))

  (defcap APPROVE:bool (owner:string spender:string amount:decimal)
    @event
    (enforce-guard (at 'guard (read accounts owner))))

  (defcap ESCROW (id:string)
    @doc "Held by the escrow defpact while funds are locked."
    true)

  ;; Helpers -----------------------------------------------------------------

  (defun enforce-unit:bool (amount:decimal)
    @doc "Amounts may not be finer than PRECISION."
    (enforce (= (floor amount PRECISION) amount)
      (format "Amount violates minimum precision: {}" [amount])))

  (defun validate-account (account:string)
    (let ((len (length account)))
      (enforce (and (>= len MIN-ACCOUNT-LENGTH) (<= len MAX-ACCOUNT-LENGTH))
        (format "Account name length must be between {} and {}"
          [MIN-ACCOUNT-LENGTH, MAX-ACCOUNT-LENGTH]))
      (enforce (is-charset CHARSET_LATIN1 account)
        "Account name must be Latin-1")))

  (defun validate-principal (account:string guard:guard)
    (if (is-principal account)
        (enforce (validate-principal guard account)
          "Principal account does not match its guard")
        true))

  (defun precision:integer () PRECISION)

  (defun fee-for:decimal (amount:decimal)
    @doc "The transfer fee for AMOUNT, by tier."
    (let* ((small (at 0 TIERS))
           (medium (at 1 TIERS))
           (rate:decimal
             (cond ((< amount small) (at 'small FEE-SCHEDULE))
                   ((< amount medium) (at 'medium FEE-SCHEDULE))
                   (at 'large FEE-SCHEDULE))))
      (round (* amount rate) PRECISION)))

  ;; Accounts ----------------------------------------------------------------

  (defun create-account:string (account:string guard:guard)
    (validate-account account)
    (validate-principal account guard)
    (insert accounts account { "balance": 0.0, "guard": guard })
    (format "Account {} created" [account]))

  (defun get-balance:decimal (account:string)
    (with-read accounts account { "balance" := balance }
      balance))

  (defun details:object{fungible-token-v1.account-details} (account:string)
    (with-read accounts account
      { "balance" := bal, "guard" := g:guard }
      { "account": account, "balance": bal, "guard": g }))

  (defun rotate:string (account:string new-guard:guard)
    (with-capability (ROTATE account)
      (with-read accounts account { "guard" := old-guard }
        (enforce-guard old-guard)
        (enforce-guard new-guard)
        (update accounts account { "guard": new-guard })
        "Guard rotated")))

  (defun account-exists:bool (account:string)
    (try false (let ((row (read accounts account ['balance]))) true)))

  (defun richest:[string] (candidates:[string] n:integer)
    @doc "The N accounts with the highest balances among CANDIDATES."
    (take n
      (map (at 'account)
        (reverse
          (sort ['balance]
            (map (lambda (a) { 'account: a, 'balance: (get-balance a) })
              (filter (account-exists) candidates)))))))

  (defun total-supply:decimal ()
    (fold (+) 0.0
      (fold-db accounts
        (lambda (k row) true)
        (lambda (k row) (at 'balance row)))))

  ;; Transfers ---------------------------------------------------------------

  (defun debit:string (account:string amount:decimal)
    (require-capability (DEBIT account))
    (with-read accounts account { "balance" := balance }
      (enforce (<= amount balance) "Insufficient funds")
      (update accounts account { "balance": (- balance amount) })))

  (defun credit:string (account:string guard:guard amount:decimal)
    (require-capability (CREDIT account))
    (with-default-read accounts account
      { "balance": -1.0, "guard": guard }
      { "balance" := balance, "guard" := retg }
      (enforce (= retg guard) "account guards do not match")
      (let ((is-new (if (= balance -1.0)
                        (enforce-reserved account guard)
                        false)))
        (write accounts account
          { "balance": (if is-new amount (+ balance amount))
          , "guard": retg }))))

  (defun enforce-reserved:bool (account:string guard:guard)
    (let ((prefix (take 2 account)))
      (enforce-one "Reserved account protocol"
        [ (enforce (!= prefix "k:") "not a k: account")
          (enforce (= (create-principal guard) account) "k: guard mismatch") ])
      true))

  (defun transfer:string (sender:string receiver:string amount:decimal)
    (enforce (!= sender receiver) "sender cannot be the receiver")
    (enforce (> amount 0.0) "transfer amount must be positive")
    (enforce-unit amount)
    (validate-account sender)
    (validate-account receiver)
    (with-capability (TRANSFER sender receiver amount)
      (debit sender amount)
      (with-read accounts receiver { "guard" := g }
        (credit receiver g amount))))

  (defun transfer-create:string
    ( sender:string
      receiver:string
      receiver-guard:guard
      amount:decimal )
    (enforce (!= sender receiver) "sender cannot be the receiver")
    (enforce (> amount 0.0) "transfer amount must be positive")
    (validate-account receiver)
    (with-capability (TRANSFER sender receiver amount)
      (debit sender amount)
      (credit receiver receiver-guard amount)))

  (defun transfer-via:string
    (other:module{fungible-token-v1} sender:string receiver:string amount:decimal)
    @doc "Pass a transfer through to another token, by module reference."
    (other::transfer sender receiver amount))

  ;; Allowances --------------------------------------------------------------

  (defun allowance-key:string (owner:string spender:string)
    (format "{}/{}" [owner spender]))

  (defun approve:string (owner:string spender:string amount:decimal)
    (enforce (>= amount 0.0) "Allowance cannot be negative")
    (with-capability (APPROVE owner spender amount)
      (write allowances (allowance-key owner spender)
        { 'owner: owner, 'spender: spender, 'remaining: amount })))

  (defun allowance:decimal (owner:string spender:string)
    (with-default-read allowances (allowance-key owner spender)
      { 'remaining: 0.0 }
      { 'remaining := r }
      r))

  (defun transfer-from:string
    (spender:string owner:string receiver:string amount:decimal)
    (let ((key (allowance-key owner spender)))
      (with-read allowances key { 'remaining := left:decimal }
        (enforce (<= amount left) "Allowance exceeded")
        (update allowances key { 'remaining: (- left amount) })
        (with-capability (INTERNAL)
          (install-capability (TRANSFER owner receiver amount))
          (transfer owner receiver amount)))))

  ;; Minting, burning, vesting ----------------------------------------------

  (defun mint:string (account:string guard:guard amount:decimal)
    (enforce (<= (+ (total-supply) amount) MAX-SUPPLY) "Supply cap reached")
    (with-capability (MINT account amount)
      (credit account guard amount)))

  (defun burn:string (account:string amount:decimal)
    (with-capability (BURN account amount)
      (debit account amount)))

  (defun add-vesting:string
    (id:string account:string amount:decimal start:time end:time parts:integer)
    (with-capability (GOVERNANCE)
      (enforce (> parts 0) "At least one part")
      (enforce (< start end) "Schedule must end after it starts")
      (insert vesting id
        { "account": account
        , "amount": amount
        , "released": 0.0
        , "start": start
        , "end": end
        , "parts": parts })))

  (defun vested:decimal (id:string now:time)
    @doc "How much of schedule ID has vested at NOW."
    (with-read vesting id
      { "amount" := amount, "start" := start, "end" := end, "parts" := parts }
      (let* ((span (diff-time end start))
             (elapsed (diff-time now start))
             (step-len (/ span parts))
             (done (if (< elapsed 0.0) 0
                     (min parts (floor (/ elapsed step-len))))))
        (floor (* amount (/ (dec done) parts)) PRECISION))))

  (defun release:string (id:string)
    (with-read vesting id
      { "account" := account, "released" := released, "amount" := total }
      (let* ((now (at 'block-time (chain-data)))
             (due (- (vested id now) released)))
        (enforce (> due 0.0) "Nothing to release")
        (update vesting id { "released": (+ released due) })
        (with-capability (MINT account due)
          (with-read accounts account { 'guard := g }
            (credit account g due))))))

  ;; Cross-chain transfer ----------------------------------------------------

  (defschema crosschain-schema
    @doc "What the first step yields to the second."
    receiver:string
    receiver-guard:guard
    amount:decimal
    source-chain:string)

  (defpact transfer-crosschain:string
    ( sender:string
      receiver:string
      receiver-guard:guard
      target-chain:string
      amount:decimal )
    @model [ (property (> amount 0.0))
             (property (!= receiver "")) ]

    (step
      (with-capability (TRANSFER_XCHAIN sender receiver amount target-chain)
        (enforce (!= "" target-chain) "empty target-chain")
        (enforce (!= (at 'chain-id (chain-data)) target-chain)
          "cannot run cross-chain transfers to the same chain")
        (enforce (contains target-chain VALID-CHAINS)
          "target chain is not a valid chain id")
        (validate-account receiver)
        (debit sender amount)
        (let ((crosschain-details:object{crosschain-schema}
                { "receiver": receiver
                , "receiver-guard": receiver-guard
                , "amount": amount
                , "source-chain": (at 'chain-id (chain-data)) }))
          (emit-event (TRANSFER sender "" amount))
          (yield crosschain-details target-chain))))

    (step
      (resume
        { "receiver" := receiver
        , "receiver-guard" := receiver-guard
        , "amount" := amount
        , "source-chain" := source-chain }
        (emit-event (TRANSFER "" receiver amount))
        (emit-event (TRANSFER_XCHAIN_RECD "" receiver amount source-chain))
        (with-capability (CREDIT receiver)
          (credit receiver receiver-guard amount)))))

  ;; Escrow ------------------------------------------------------------------

  (defun escrow-account:string (id:string)
    (create-principal (create-capability-guard (ESCROW id))))

  (defpact escrow:string (id:string buyer:string seller:string amount:decimal)
    @doc "Lock AMOUNT from BUYER; release it to SELLER, or refund on rollback."

    (step-with-rollback
      (let ((vault (escrow-account id)))
        (insert escrows id
          { 'buyer: buyer, 'seller: seller, 'amount: amount
          , 'state: ESCROW-OPEN, 'memo: (pact-id) })
        (transfer-create buyer vault (create-capability-guard (ESCROW id)) amount)
        (yield { "vault": vault }))
      (with-capability (ESCROW id)
        (install-capability (TRANSFER (escrow-account id) buyer amount))
        (transfer (escrow-account id) buyer amount)
        (update escrows id { 'state: "refunded" })))

    (step
      (resume { "vault" := vault }
        (with-read escrows id { 'state := state }
          (enforce (= state ESCROW-OPEN) "escrow already settled"))
        (with-capability (ESCROW id)
          (install-capability (TRANSFER vault seller amount))
          (transfer-create vault seller (at 'guard (read accounts seller)) amount)
          (update escrows id { 'state: ESCROW-SETTLED }))))
    )

  ;; Reports -----------------------------------------------------------------

  (defun escrows-by-state:[object{escrow-row}] (state:string)
    (select escrows (where 'state (= state))))

  (defun summary:object (accts:[string])
    @doc "A report on ACCTS, for dashboards."
    (let ((balances (map (get-balance) accts)))
      { "count": (length accts)
      , "total": (fold (+) 0.0 balances)
      , "max": (if (= [] balances) 0.0 (fold (max) 0.0 balances))
      , "names": (fold (+) "" (zip (+) accts (make-list (length accts) " ")))
      , "generated": (format-time "%Y-%m-%dT%H:%M:%SZ" (at 'block-time (chain-data)))
      }))

  (defun schedule-table:[object] (id:string checkpoints:[time])
    (map (lambda (t:time) { 't: t, 'vested: (vested id t) }) checkpoints))

  (defun guard-kind:string (g:guard)
    (let ((p (create-principal g)))
      (cond ((= (typeof-principal p) "k:") "single key")
            ((= (typeof-principal p) "w:") "multi key")
            ((= (typeof-principal p) "u:") "user guard")
            ((= (typeof-principal p) "c:") "capability guard")
            "other")))

  (defun bits:integer (flags:[bool])
    @doc "Packs FLAGS into an integer, first flag in the low bit."
    (fold (lambda (acc:integer i:integer)
            (if (at i flags) (| acc (shift 1 i)) acc))
          0
          (enumerate 0 (- (length flags) 1))))

  (defun big-numbers:[integer] ()
    [ 123456789012345678901234567890123456789
      -98765432109876543210
      (^ 2 255)
      (xor 255 -256)
      (~ 0) ])

  (defun decimals:[decimal] ()
    [1.0, -0.5, 100.25, 3.14159265358979323846264338327950288419716939937510, 0.000000000001])
)

(create-table accounts)
(create-table allowances)
(create-table vesting)
(create-table escrows)
