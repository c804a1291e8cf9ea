package api

import (
	"strconv"
	"strings"
)

// The texts of /send's rejections that the node (its mempool) and pact -s (pact/server) both
// give, kept here so that the same bad command reads the same on both. They are chainweb
// 2.32's (chainweb-api.md §6.2): the node's are the compatible ones, and pact -s follows them.

// TextInvalidTxHash is the reason of a command whose hash is neither the BLAKE2b-256 nor the
// BLAKE2s-256 of its cmd.
const TextInvalidTxHash = "Invalid transaction hash"

// ReasonPrivateOnSend is why /send does not take a command with private metadata.
const ReasonPrivateOnSend = "meta: the command has private metadata; submit it to /private"

// SendDecodeFailed is /send's 400 for a command whose payload does not decode (upstream's
// "reading JSON for transaction failed: <reason>"); the whole batch is refused with it.
func SendDecodeFailed(reason string) string {
	return "reading JSON for transaction failed: " + reason
}

// InvalidTxSigs is the reason of a command whose signatures fail, problem being SigsProblem's.
func InvalidTxSigs(problem string) string { return "Invalid transaction sigs: " + problem }

// SigsProblem is upstream's assertValidateSigs, rendered as displayAssertValidateSigsError: as
// many signatures as signers, then each signature over hash h against the signer in its
// position, the first failure reported. "" when they verify.
func SigsProblem(h Hash, sigs []UserSig, signers []Signer) string {
	if len(sigs) != len(signers) {
		return "The number of signers and signatures do not match. Number of signers: " +
			strconv.Itoa(len(signers)) + ". Number of signatures: " + strconv.Itoa(len(sigs)) + "."
	}
	for i := range sigs {
		if err := VerifyUserSig(h, sigs[i], signers[i]); err != nil {
			return "The signature at position " + strconv.Itoa(i) + " is invalid: " + err.Error() + "."
		}
	}
	return ""
}

// TxRejection is one refused command of a /send batch.
type TxRejection struct {
	Index  int  // position in the batch
	Key    Hash // the command's hash as sent
	Reason string
}

// BatchRejected is /send's 400 for a batch some of whose commands failed their checks:
// `One or more transactions were invalid: Transaction "<key>" at index <i> failed with:
// <reason>`, one part per failure in batch order, joined by ", ".
func BatchRejected(fs []TxRejection) string {
	var b strings.Builder
	b.WriteString("One or more transactions were invalid: ")
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`Transaction "`)
		b.WriteString(f.Key.String())
		b.WriteString(`" at index `)
		b.WriteString(strconv.Itoa(f.Index))
		b.WriteString(" failed with: ")
		b.WriteString(f.Reason)
	}
	return b.String()
}
