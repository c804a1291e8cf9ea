// Package contractapi is the vocabulary of the contract API (interface.md, "Contract command
// endpoints"), which transport serves and both the node (actors' ChainContract) and `pact -s`
// (pact/server's Engine) implement: the options of its operations, what they return, the
// errors that choose its status codes, and the validation of a local command that both apply,
// so that the same bad command gets the same 400, word for word, from either.
//
//	contractapi.go  options, results, RequestError (400) and ErrClosed (503)
//	validate.go     ValidateLocal and local's rejection texts, in chainweb 2.32's words
//
// It imports only the language's command format (pact/api), results and parser; transport
// holds the interface itself (ContractAPI) and the handlers.
package contractapi
