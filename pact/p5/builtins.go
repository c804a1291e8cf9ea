package p5

// P5's natives as its IR names them: the CoreBuiltin and ReplOnlyBuiltin
// constructors in declaration order (their Enum index is what the
// serialiser writes, the REPL ones offset by the number of core ones),
// named as coreBuiltinToText and replBuiltinsToText name them.

var coreBuiltins = []string{
	"+", "-", "*", "/", "negate", "abs", "^", "not", "=", "!=",
	">", ">=", "<", "<=", "&", "|", "xor", "~", "shift", "round",
	"ceiling", "floor", "round-prec", "ceiling-prec", "floor-prec", "exp", "ln", "sqrt", "log", "length",
	"take", "drop", "concat", "reverse", "contains", "sort", "sort-object", "remove", "mod", "map",
	"filter", "zip", "int-to-str", "str-to-int", "str-to-int-base", "fold", "distinct", "format", "enumerate", "enumerate-step",
	"show", "read-msg", "read-msg-default", "read-integer", "read-decimal", "read-string", "read-keyset", "enforce-guard", "enforce-keyset", "keyset-ref-guard",
	"at", "make-list", "base64-encode", "base64-decode", "str-to-list", "yield", "yield-to-chain", "resume", "bind", "require-capability",
	"compose-capability", "install-capability", "emit-event", "create-capability-guard", "create-capability-pact-guard", "create-module-guard", "create-pact-guard", "create-table", "describe-keyset", "describe-module",
	"describe-table", "define-keyset", "define-read-keyset", "fold-db", "insert", "keys", "read", "select", "select-with-fields", "update",
	"with-default-read", "with-read", "write", "tx-hash", "and?", "or?", "where", "not?", "hash", "continue",
	"parse-time", "format-time", "time", "add-time", "diff-time", "hours", "minutes", "days", "compose", "create-principal",
	"is-principal", "typeof-principal", "validate-principal", "namespace", "define-namespace", "describe-namespace", "chain-data", "is-charset", "pact-id", "pairing-check",
	"scalar-mult", "point-add", "poseidon-hash-hack-a-chain", "typeof", "dec", "cond", "identity", "verify-spv", "enforce-verifier", "acquire-module-admin",
	"hyperlane-message-id", "hyperlane-decode-token-message", "hyperlane-encode-token-message", "read-with-fields", "list-modules", "static-redeploy", "hash-keccak256", "hash-poseidon",
}

var replBuiltins = []string{
	"expect", "expect-failure", "expect-failure-match", "expect-that", "print", "env-stackframe", "env-chain-data", "env-data", "env-events", "env-hash",
	"env-keys", "env-sigs", "begin-tx", "begin-named-tx", "commit-tx", "rollback-tx", "sig-keyset", "test-capability", "env-exec-config", "env-namespace-policy",
	"env-gas", "env-set-gas", "env-milligas", "env-set-milligas", "env-gaslimit", "env-gaslog", "env-gasmodel", "env-ask-gasmodel", "continue-pact", "continue-pact-with-rollback",
	"continue-pact-rollback-yield", "continue-pact-rollback-yield-object", "pact-state", "reset-pact-state", "pact-version", "enforce-pact-version", "enforce-pact-version-range", "env-enable-repl-natives", "env-module-admin", "env-verifiers",
	"env-set-debug-flag", "load", "load-with-env", "typecheck",
}

// overloads are the internal overloads, which source names cannot reach.
var overloads = map[string]bool{
	"enumerate-step": true, "select-with-fields": true, "sort-object": true, "round-prec": true,
	"ceiling-prec": true, "floor-prec": true, "str-to-int-base": true, "read-msg-default": true,
	"define-read-keyset": true, "yield-to-chain": true, "read-with-fields": true,
	"env-ask-gasmodel": true, "env-set-gas": true, "load-with-env": true, "reset-pact-state": true,
	"expect-failure-match": true, "continue-pact-with-rollback": true, "continue-pact-rollback-yield": true,
	"continue-pact-rollback-yield-object": true, "begin-named-tx": true, "enforce-pact-version-range": true,
}

// builtinIndex is every native's enumeration index, by name.
var builtinIndex = func() map[string]int {
	m := map[string]int{}
	for i, n := range coreBuiltins {
		m[n] = i
	}
	for i, n := range replBuiltins {
		m[n] = len(coreBuiltins) + i
	}
	return m
}()

// BuiltinIndex is the enumeration index Writer.Builtin writes for the
// native name, internal overloads included; 0 for a name that is none
// (callers write only names they know to be natives).
func BuiltinIndex(name string) uint64 { return uint64(builtinIndex[name]) }

// SourceBuiltin says whether name is a native that source code can name
// (ok: a native, and no internal overload), and whether it is one of the
// REPL's (repl), which only an interpreter that has them knows.
func SourceBuiltin(name string) (repl, ok bool) {
	i, known := builtinIndex[name]
	if !known || overloads[name] {
		return false, false
	}
	return i >= len(coreBuiltins), true
}
