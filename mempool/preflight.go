package mempool

import "github.com/ledgernode/ledger-node/pact/api"

// The texts of /local?preflight=true's metadata checks (chainweb-api.md §6.5), in their order.
const (
	PreflightChainID      = "Chain id mismatch"
	PreflightGasLimit     = "Transaction Gas limit exceeds block gas limit"
	PreflightGasPrecision = "Gas price decimal precision too high"
	PreflightNetworkID    = "Network id mismatch"
	PreflightSigCount     = "Signature list size too big"
	PreflightSignatures   = "Invalid transaction signatures"
	PreflightTime         = "Tx time outside of valid range"
)

// Preflight runs the metadata checks of /local with preflight=true (upstream's Pact 5
// assertPreflightMetadata) and returns every failure's text, in order; nil when all pass.
// /local answers a non-empty list with 400 `Metadata validation failed: [<list>]`.
//
// Unlike /send it does not reject a creation time in the future. verifySigs is false for
// signatureVerification=false, which skips the signature check. The time check is against
// env.ParentTime (skipped when it is zero); env.Now, Index and GasPayer are not read. A
// command with private metadata has none of the public fields: only the network id,
// signature count and signatures are checked.
func Preflight(env *Env, pc *api.ParsedCommand, verifySigs bool) []string {
	cfg := env.Config.withDefaults()
	var errs []string
	m := pc.Payload.Meta.Public
	if m != nil && m.ChainID != chainText(env.Chain) {
		errs = append(errs, PreflightChainID)
	}
	if m != nil && m.GasLimit > cfg.BlockGasLimit {
		errs = append(errs, PreflightGasLimit)
	}
	if m != nil && m.GasPrice.Places() > cfg.MaxGasPricePlaces {
		errs = append(errs, PreflightGasPrecision)
	}
	if n := pc.Payload.NetworkID; n == nil || *n != env.Network {
		errs = append(errs, PreflightNetworkID)
	}
	if len(pc.Command.Sigs) > cfg.MaxSignatures {
		errs = append(errs, PreflightSigCount)
	}
	if verifySigs && sigsProblem(pc) != "" {
		errs = append(errs, PreflightSignatures)
	}
	if m != nil && !env.ParentTime.IsZero() && !timeInRange(&cfg, m, env.ParentTime.UnixMicro()) {
		errs = append(errs, PreflightTime)
	}
	return errs
}
