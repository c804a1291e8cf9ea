package value

// Signer, Verifier and Event are what a command brings to its evaluation
// and what the evaluation emits: plain data, which the command API builds
// and results carry.

// Signer is a transaction signer: a public key and the capabilities its
// signature is scoped to.
type Signer struct {
	PubKey string
	Scheme string
	Caps   []*CapToken
}

// Verifier is a verifier plugin's claim and the capabilities it grants.
type Verifier struct {
	Name string
	Caps []*CapToken
}

// Event is an emitted event.
type Event struct {
	Name       QualifiedName
	Args       []Value
	ModuleHash string
}
