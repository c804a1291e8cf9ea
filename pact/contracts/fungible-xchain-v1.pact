;; fungible-xchain-v1.pact
;;
;; The cross-chain companion of fungible-v2: the capability a wallet signs
;; for a cross-chain transfer and the event the receiving chain emits.
;; Names, arguments and kinds are those of Kadena's interface.

(interface fungible-xchain-v1
  "Cross-chain transfers of a fungible token: the signed capability and \
  \the receipt event."

  (defcap TRANSFER_XCHAIN:bool
    (sender:string receiver:string amount:decimal target-chain:string)
    @doc "Signed by the SENDER's keys to allow one cross-chain transfer \
         \of at most AMOUNT to RECEIVER on TARGET-CHAIN."
    @managed amount TRANSFER_XCHAIN-mgr)

  (defun TRANSFER_XCHAIN-mgr:decimal (managed:decimal requested:decimal)
    @doc "Manager of TRANSFER_XCHAIN: one use of at most MANAGED, after \
         \which nothing is left (returns 0.0).")

  (defcap TRANSFER_XCHAIN_RECD:bool
    (sender:string receiver:string amount:decimal source-chain:string)
    @doc "Emitted on the target chain when a cross-chain transfer arrives."
    @event)
)
