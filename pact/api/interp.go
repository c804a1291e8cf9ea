package api

import (
	"github.com/ledgernode/ledger-node/pact/value"
)

// EvalSigners returns the payload's signers as the interpreter sees them:
// each public key with the capabilities its signature is scoped to. Nil
// when there are none.
func (p *Payload) EvalSigners() []value.Signer {
	if len(p.Signers) == 0 {
		return nil
	}
	out := make([]value.Signer, len(p.Signers))
	for i, s := range p.Signers {
		out[i] = value.Signer{PubKey: s.PubKey, Scheme: string(s.Scheme), Caps: capTokens(s.Clist)}
	}
	return out
}

// EvalVerifiers returns the payload's verifiers as the interpreter sees
// them; nil when there are none.
func (p *Payload) EvalVerifiers() []value.Verifier {
	if len(p.Verifiers) == 0 {
		return nil
	}
	out := make([]value.Verifier, len(p.Verifiers))
	for i, v := range p.Verifiers {
		out[i] = value.Verifier{Name: v.Name, Caps: capTokens(v.Clist)}
	}
	return out
}

// EvalData returns the message data of the exec or continuation: unit when
// the payload carries none.
func (p *Payload) EvalData() value.Value {
	var d value.Value
	switch {
	case p.Exec != nil:
		d = p.Exec.Data
	case p.Cont != nil:
		d = p.Cont.Data
	}
	if d == nil {
		return value.UnitValue
	}
	return d
}

// capTokens turns a clist into capability tokens. The names were checked
// when the payload was decoded.
func capTokens(caps []SigCapability) []*value.CapToken {
	if len(caps) == 0 {
		return nil
	}
	out := make([]*value.CapToken, 0, len(caps))
	for _, c := range caps {
		qn, ok := value.ParseQualifiedName(c.Name)
		if !ok {
			continue
		}
		out = append(out, &value.CapToken{
			Name: value.FullyQualifiedName{Module: qn.Module, Name: qn.Name},
			Args: c.Args,
		})
	}
	return out
}
