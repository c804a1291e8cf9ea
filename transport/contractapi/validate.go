package contractapi

import (
	"strings"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/result"
	"github.com/ledgernode/ledger-node/pact/syntax"
)

// LocalCheck is a command that ValidateLocal let through: its parsed form, and for an exec
// whose code does not parse the parse error, which is the command's failure result rather
// than a rejection.
type LocalCheck struct {
	Command   *api.ParsedCommand
	SyntaxErr error
}

// ValidateLocal is /local's validation, shared by the node and pact -s so that a command one
// of them rejects gets the same 400, word for word, from the other. It follows chainweb 2.32's
// local handler and execLocal (chainweb-api.md §6.5), in their order:
//
//  1. without signature verification, the hash is BLAKE2b-256 of cmd (or BLAKE2s-256,
//     DECISIONS.md), else "Validation failed: Hash Mismatch, received H but our hashing
//     resulted in H'" (upstream checks it before decoding);
//  2. the payload decodes, else "Validation failed: <reason>". `meta` is required, as in
//     upstream's Payload decoding (Pact 4's generic FromJSON, which chainweb 2.32's local
//     uses, and Pact 5's `o .: "meta"`), so a command without it, such as @kadena/client's
//     runPact sends, is rejected here with "Validation failed: meta: missing";
//  3. an exec's code parses; if not, that is no rejection: SyntaxErr is set and the command
//     answers with the parse failure as its result;
//  4. with signature verification, the hash and the signatures verify, else
//     "Metadata validation failed: ["<reason>"]", the hash's reason being "The hash of the
//     payload was invalid.".
//
// Every rejection is a *RequestError.
func ValidateLocal(cmd *api.Command, sigVerification bool) (*LocalCheck, error) {
	var alg api.HashAlg
	switch cmd.Hash {
	case api.HashBytes([]byte(cmd.Cmd)):
		alg = api.BLAKE2b256
	case api.HashBytesBLAKE2s([]byte(cmd.Cmd)):
		alg = api.BLAKE2s256
	default:
		if !sigVerification {
			return nil, LocalValidationFailed("Hash Mismatch, received " + cmd.Hash.String() +
				" but our hashing resulted in " + api.HashBytes([]byte(cmd.Cmd)).String())
		}
	}
	p, err := api.DecodePayload([]byte(cmd.Cmd))
	if err != nil {
		return nil, LocalValidationFailed(err.Error())
	}
	pc := &api.ParsedCommand{Command: cmd, Payload: p, RequestKey: cmd.Hash, HashAlg: alg}
	if p.Exec != nil {
		code, perr := syntax.ParseProgram("", p.Exec.Code)
		if perr != nil {
			return &LocalCheck{Command: pc, SyntaxErr: perr}, nil
		}
		pc.Code = code
	}
	if sigVerification {
		if _, err := api.VerifyCommand(cmd); err != nil {
			s := err.Error()
			if strings.Contains(s, "Hash Mismatch") {
				s = "The hash of the payload was invalid."
			}
			return nil, MetadataValidationFailed([]string{s})
		}
	}
	return &LocalCheck{Command: pc}, nil
}

// LocalValidationFailed is local's 400 for a command that does not decode or whose hash is
// wrong: chainweb's "Validation failed: <reason>".
func LocalValidationFailed(reason string) *RequestError {
	return &RequestError{Msg: "Validation failed: " + reason}
}

// MetadataValidationFailed is local's 400 for a command whose metadata or signatures fail:
// chainweb's "Metadata validation failed: " and the reasons as a JSON array.
func MetadataValidationFailed(reasons []string) *RequestError {
	b := []byte("Metadata validation failed: [")
	for i, r := range reasons {
		if i > 0 {
			b = append(b, ',')
		}
		b = result.AppendString(b, r)
	}
	return &RequestError{Msg: string(append(b, ']'))}
}
