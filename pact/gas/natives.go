package gas

// NativeCost is the table model's flat cost of applying a core native,
// by upstream's name for it (coreBuiltinToText, which names the internal
// overloads too: "round-prec", "enumerate-step", "read-with-fields"...).
// REPL natives and names that are not core natives cost 0, as in
// upstream's REPL table.
func NativeCost(name string) MilliGas {
	if c, ok := nativeCosts[name]; ok {
		return c
	}
	return 0
}

var nativeCosts = func() map[string]MilliGas {
	c := &TableConfig
	basic := c.NativeBasicWork
	m := map[string]uint64{
		"exp": 2_000, "ln": 1_000, "sqrt": 1_000, "log": 1_000,
		"&": 250, "|": 250, "xor": 250, "~": 250,
		"read-msg": 2 * basic, "read-msg-default": 2 * basic, "read-integer": 2 * basic,
		"read-decimal": 2 * basic, "read-string": 2 * basic, "read-keyset": 2 * basic,
		"enforce-guard": 2_000, "enforce-keyset": 2_000, "keyset-ref-guard": 2_000,
		"base64-encode": 250, "base64-decode": 250, "str-to-list": 250,
		"resume":             500,
		"require-capability": 500, "compose-capability": 500, "install-capability": 500,
		"emit-event":          1_000,
		"create-module-guard": 2 * basic, "create-pact-guard": 2 * basic,
		"create-table":    250_000,
		"describe-keyset": c.MetadataTxPenalty, "describe-module": c.MetadataTxPenalty,
		"describe-table": c.MetadataTxPenalty, "describe-namespace": c.MetadataTxPenalty,
		"list-modules":  c.MetadataTxPenalty,
		"define-keyset": 5_000, "define-read-keyset": 5_000,
		"fold-db": c.SelectPenalty, "keys": c.SelectPenalty, "select": c.SelectPenalty,
		"select-with-fields": c.SelectPenalty,
		"insert":             c.WritePenalty, "update": c.WritePenalty, "write": c.WritePenalty,
		"read": c.ReadPenalty, "with-default-read": c.ReadPenalty, "with-read": c.ReadPenalty,
		"read-with-fields": c.ReadPenalty,
		"parse-time":       500, "format-time": 500, "time": 500,
		"add-time": 250, "diff-time": 250, "hours": 250, "minutes": 250, "days": 250,
		"validate-principal": 250,
		"define-namespace":   25_000,
		"chain-data":         500, "is-charset": 500,
		"poseidon-hash-hack-a-chain": 124_000, "hash-poseidon": 124_000,
		"verify-spv": 100_000, "enforce-verifier": 10_000,
		"hyperlane-message-id": 2_000, "hyperlane-decode-token-message": 2_000,
		"hyperlane-encode-token-message": 2_000,
		"acquire-module-admin":           20_000,
		"hash-keccak256":                 1_000,
	}
	// Every other core native costs the basic work.
	for _, n := range basicNatives {
		m[n] = basic
	}
	out := make(map[string]MilliGas, len(m))
	for k, v := range m {
		out[k] = MilliGas(v)
	}
	return out
}()

var basicNatives = []string{
	"+", "-", "*", "/", "negate", "abs", "^", "not", "=", "!=", ">", ">=", "<", "<=", "shift",
	"round", "ceiling", "floor", "round-prec", "ceiling-prec", "floor-prec", "length", "take", "drop",
	"concat", "reverse", "contains", "sort", "sort-object", "remove", "mod", "map", "filter", "zip",
	"fold", "int-to-str", "str-to-int", "str-to-int-base", "distinct", "format", "enumerate",
	"enumerate-step", "show", "at", "make-list", "yield", "yield-to-chain", "bind",
	"create-capability-guard", "create-capability-pact-guard", "tx-hash", "and?", "or?", "where", "not?",
	"hash", "continue", "compose", "create-principal", "is-principal", "typeof-principal", "namespace",
	"pact-id", "pairing-check", "scalar-mult", "point-add", "typeof", "dec", "cond", "identity",
	"static-redeploy",
}
