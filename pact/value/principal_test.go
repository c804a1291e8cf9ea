package value

import (
	"strings"
	"testing"
)

// Keys and expected principals below are transcribed from kadena-io/pact-5
// pact-tests/pact-tests/principals.repl unless a comment names another
// file.

const (
	prKey1 = "584deb6f81d8efe67767309d1732019cf6ad14f9f0007cff50c730ef62521c68"
	prKey2 = "4440249a122879f2060814e1c4348cdfe0cbf971017ab1f43a0eaf9799583271"
	prKey3 = "2f625f20a1a6fffb60455bf957779a82e3d811d350f2b9bc8d3d5549bfd4a953"

	prW     = "w:5PhRgNM3oePrkfAKhk9dYmjRqOhEEhbR2eyFz8HU_ew:keys-all"
	prUHash = "aqukm-5Jj6ITLeQfhNYydmtDccinqdJylD9CMlLKQDI"
	prU     = "u:test-ns.tester.both-guard:" + prUHash
	prPact  = "DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46g" // (hash ""), the REPL's default pact id
	prP     = "p:" + prPact + ":pact-guard"
	prM     = "m:test-ns.tester:tester"
)

var (
	prKs1 = NewKeySet([]string{prKey1}, KeysAll)
	prKs2 = NewKeySet([]string{prKey2, prKey3}, KeysAll)
)

func prQual(ns, mod, name string) QualifiedName {
	return QualifiedName{Module: ModuleName{Name: mod, Namespace: ns}, Name: name}
}

func TestPrincipalCreate(t *testing.T) {
	tests := []struct {
		name  string
		guard Value
		want  string
	}{
		// principals.repl
		{"k: from a one-key keyset", prKs1, "k:" + prKey1},
		{"w: from a two-key keyset", prKs2, prW},
		{"r: from a keyset ref", &KeySetRef{Namespace: "ns", Name: "ks3"}, "r:ns.ks3"},
		{"m: in a namespace", &ModuleGuard{Module: ModuleName{Name: "tester", Namespace: "test-ns"}, Name: "tester"}, prM},
		{"m: made by another module", &ModuleGuard{Module: ModuleName{Name: "tester2", Namespace: "test-ns"}, Name: "tester"}, "m:test-ns.tester2:tester"},
		{"m: root module", &ModuleGuard{Module: ModuleName{Name: "tester"}, Name: "tester"}, "m:tester:tester"},
		{"m: root, other module", &ModuleGuard{Module: ModuleName{Name: "tester2"}, Name: "tester"}, "m:tester2:tester"},
		{"u: in a namespace", &UserGuard{Fun: prQual("test-ns", "tester", "both-guard"), Args: []Value{prKs1, prKs2}}, prU},
		{"u: root module", &UserGuard{Fun: prQual("", "tester", "both-guard"), Args: []Value{prKs1, prKs2}}, "u:tester.both-guard:" + prUHash},
		{"p: default pact id", &PactGuard{PactID: prPact, Name: "pact-guard"}, prP},

		// marmalade/pact/concrete-policies/royalty-policy/royalty-policy-v1.repl:
		// policy-manager's escrow account (create-principal
		// (create-capability-guard (ESCROW sale-id))) for two sale ids...
		{"c: escrow 0HZ", &CapabilityGuard{Name: prQual("marmalade-v2", "policy-manager", "ESCROW"),
			Args: []Value{String("0HZ-zWbio-_Q0whoIO_BU2_tjLVm9rvZbc2ZxkbhWeM")}},
			"c:xx_lmWaqaLkqO3RzZnabF_tpKB11EeagaLUJwM0T_6c"},
		{"c: escrow 2L8Q", &CapabilityGuard{Name: prQual("marmalade-v2", "policy-manager", "ESCROW"),
			Args: []Value{String("2L8Q_bSe63oTP32EVXFxNoNtR7BWcUMmmtMmOkI1GyU")}},
			"c:gg1NCZfPFF1e-gLYCyM7sHg5_1PeUD2sN85HqaojHIQ"},
		// ...and the ledger's sale account (create-principal
		// (create-capability-pact-guard (SALE_PRIVATE (pact-id)))) inside
		// those two sales' defpacts.
		{"c: sale account 0HZ", &CapabilityGuard{Name: prQual("marmalade-v2", "ledger", "SALE_PRIVATE"),
			Args:   []Value{String("0HZ-zWbio-_Q0whoIO_BU2_tjLVm9rvZbc2ZxkbhWeM")},
			PactID: "0HZ-zWbio-_Q0whoIO_BU2_tjLVm9rvZbc2ZxkbhWeM", HasPactID: true},
			"c:0-3xXARaPTprNrOOHGoO8tEh-ADvWDHskO-2sXZ4eRg"},
		{"c: sale account 2L8Q", &CapabilityGuard{Name: prQual("marmalade-v2", "ledger", "SALE_PRIVATE"),
			Args:   []Value{String("2L8Q_bSe63oTP32EVXFxNoNtR7BWcUMmmtMmOkI1GyU")},
			PactID: "2L8Q_bSe63oTP32EVXFxNoNtR7BWcUMmmtMmOkI1GyU", HasPactID: true},
			"c:WkjYGRQKZsGJEvaQovu3B6V1VC9LBTtMRVMXm9l9IiI"},
		// marmalade/pact/ledger/ledger.repl: the ACCOUNT_GUARD event pairs
		// this account with (create-capability-pact-guard (SALE_PRIVATE
		// "C1vw1eMf_DZV3oZjyinRIKrQV2rPMBMh3lydeduo8yg")).
		{"c: sale account C1vw", &CapabilityGuard{Name: prQual("marmalade-v2", "ledger", "SALE_PRIVATE"),
			Args:   []Value{String("C1vw1eMf_DZV3oZjyinRIKrQV2rPMBMh3lydeduo8yg")},
			PactID: "C1vw1eMf_DZV3oZjyinRIKrQV2rPMBMh3lydeduo8yg", HasPactID: true},
			"c:WT_MPlkws_-GywvQmomGZwGsCJAcIWqrMSA9ie82FRc"},

		// Our own cases, from the rules in createPrincipalForGuard.
		{"one key, keys-any", NewKeySet([]string{prKey1}, KeysAny),
			"w:" + HashBytes([]byte(prKey1)) + ":keys-any"},
		{"one upper-case key", NewKeySet([]string{strings.ToUpper(prKey1)}, KeysAll),
			"w:" + HashBytes([]byte(strings.ToUpper(prKey1))) + ":keys-all"},
		{"one non-hex key", NewKeySet([]string{"keys3"}, KeysAll), "w:" + HashBytes([]byte("keys3")) + ":keys-all"},
		{"no keys", NewKeySet(nil, KeysAll), "w:" + HashBytes(nil) + ":keys-all"},
		{"custom predicate", NewKeySet([]string{prKey1}, "ns.mod.pred"),
			"w:" + HashBytes([]byte(prKey1)) + ":ns.mod.pred"},
		{"keys unsorted", &KeySet{Keys: []string{prKey2, prKey3}, Pred: KeysAll}, prW},
		{"root keyset ref", &KeySetRef{Name: "ks"}, "r:ks"},
		{"user guard without args", &UserGuard{Fun: prQual("", "m", "f")}, "u:m.f:" + HashBytes(nil)},
		{"user guard, JSON args", &UserGuard{Fun: prQual("", "m", "f"), Args: []Value{String("a"), True, UnitValue}},
			"u:m.f:" + HashBytes([]byte(`"a"truenull`))},
		{"cap guard without args", &CapabilityGuard{Name: prQual("", "m", "CAP")}, "c:" + HashBytes([]byte("m.CAP"))},
		{"cap guard, args and pact id", &CapabilityGuard{Name: prQual("ns", "m", "CAP"),
			Args: []Value{String("x"), False}, PactID: "pid", HasPactID: true},
			"c:" + HashBytes([]byte(`ns.m.CAP"x"falsepid`))},
		{"cap guard, empty pact id", &CapabilityGuard{Name: prQual("", "m", "CAP"), HasPactID: true},
			"c:" + HashBytes([]byte("m.CAP"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CreatePrincipal(tc.guard)
			if err != nil {
				t.Fatal(err)
			}
			if got != String(tc.want) {
				t.Fatalf("got %s, want %q", got, tc.want)
			}
			// validate-principal roundtrips, and rejects anything else.
			v, err := ValidatePrincipal(tc.guard, got)
			if err != nil || v != True {
				t.Fatalf("validate-principal own principal: %v %v", v, err)
			}
			v, err = ValidatePrincipal(tc.guard, String(tc.want+"x"))
			if err != nil || v != False {
				t.Fatalf("validate-principal other string: %v %v", v, err)
			}
			// Every created principal parses, with its own prefix.
			ty, err := TypeOfPrincipal(got)
			if err != nil || ty != String(tc.want[:2]) {
				t.Fatalf("typeof-principal %s = %v %v", got, ty, err)
			}
			is, err := IsPrincipal(got)
			if err != nil || is != True {
				t.Fatalf("is-principal %s = %v %v", got, is, err)
			}
		})
	}
}

// The hash inputs documented for w: and u:, checked against the repl
// vectors directly.
func TestPrincipalHashInputs(t *testing.T) {
	if got := HashBytes([]byte(prKey3 + prKey2)); "w:"+got+":keys-all" != prW {
		t.Errorf("w: hash %s", got)
	}
	u := `{"pred":"keys-all","keys":["` + prKey1 + `"]}` +
		`{"pred":"keys-all","keys":["` + prKey3 + `","` + prKey2 + `"]}`
	if got := HashBytes([]byte(u)); got != prUHash {
		t.Errorf("u: hash %s", got)
	}
	if got := HashBytes([]byte("marmalade-v2.policy-manager.ESCROW" + `"0HZ-zWbio-_Q0whoIO_BU2_tjLVm9rvZbc2ZxkbhWeM"`)); got != "xx_lmWaqaLkqO3RzZnabF_tpKB11EeagaLUJwM0T_6c" {
		t.Errorf("c: hash %s", got)
	}
}

func TestPrincipalTypeOf(t *testing.T) {
	b64 := "5PhRgNM3oePrkfAKhk9dYmjRqOhEEhbR2eyFz8HU_ew" // 43 characters
	tests := []struct {
		in   string
		want string // "" when not a principal
	}{
		// principals.repl
		{"k:" + prKey1, "k:"},
		{"k:584deb6f81d8efe67767309d1732019cf6ad14f9f0007cff50c730ef62521c687", ""},
		{"k:584deb6f81d8efe67767309d1732019cf6ad14f9f0007cff50c730ef62521c6", ""},
		{prW, "w:"},
		{"w:5PhRgNM3oePrkfAKhk9dYmjRqOhEEhbR2eyFz8HU_:keys-all", ""},
		{"w:5PhRgNM3oePrkfAKhk9dYmjRqOhEEhbR2eyFz8HU_ewe:keys-all", ""},
		{"w:5PhRgNM3oePrkfAKhk9dYmjRqOhEEhbR2eyFz8HU_:", ""},
		{"r:ns.ks3", "r:"},
		{"r:", ""},
		{prM, "m:"},
		{"m:tester:tester", "m:"},
		{"m::tester", ""},
		{"m:test-ns.tester:", ""},
		{prU, "u:"},
		{"u::tester", ""},
		{"u:test-ns.tester.both-guard:", ""},
		{"u::" + prUHash, ""},
		{"u:test-ns.tester.both-guard:aqukm-5Jj6ITLeQfhNYydmtDccinqdJylD9CMlLKQDIs", ""},
		{"u:test-ns.tester.both-guard:aqukm-5Jj6ITLeQfhNYydmtDccinqdJylD9CMlLKQD", ""},
		{prP, "p:"},
		{"p::pact-guard", ""},
		{"p:" + prPact + ":", ""},
		{"p:DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46gg:pact-guard", ""},
		{"p:DldRwCblQ7Loqy6wYJnaodHl30d3j3eH-qtFzfEv46:pact-guard", ""},
		// pact-tests/Pact/Core/Test/PrincipalTests.hs
		{"r:ks", "r:"},

		// Our own cases, following Principal.hs.
		{"", ""},
		{"k", ""},
		{"k:", ""},
		{"x:" + prKey1, ""},
		{"K:" + prKey1, ""},
		{"k:" + strings.ToUpper(prKey1), "k:"}, // isHexDigit takes upper case
		{"k:" + prKey1 + " ", ""},
		{"k:" + prKey1[:63] + "g", ""},
		{"c:" + b64, "c:"},
		{"c:" + b64 + "A", ""},
		{"c:" + b64[:42], ""},
		{"c:" + b64[:42] + "=", ""},
		{"c:" + b64[:42] + "+", ""},
		{"c:" + b64[:42] + "Ł", "c:"}, // U+0141 truncates to 'A' in Char8.elem
		{"c:" + b64[:42] + "é", ""},   // U+00E9 is no base64url byte
		// w: predicates are names: bare, or qualified with 2 or 3 parts.
		{"w:" + b64 + ":keys-any", "w:"},
		{"w:" + b64 + ":mod.pred", "w:"},
		{"w:" + b64 + ":ns.mod.pred", "w:"},
		{"w:" + b64 + ":a.b.c.d", ""},
		{"w:" + b64 + ":mod.", ""},
		{"w:" + b64 + ":.pred", ""},
		{"w:" + b64 + ":true", ""}, // reserved
		{"w:" + b64 + ":false", ""},
		{"w:" + b64 + ":truth", "w:"},
		{"w:" + b64 + ":mod.true", ""},
		{"w:" + b64 + ":1pred", ""},
		{"w:" + b64 + ":p1", "w:"},
		{"w:" + b64 + ":ünïcödé", "w:"},
		{"w:" + b64 + ":%#+-_&$@<>=^?*!|/~", "w:"},
		{"w:" + b64 + ":a:b", ""},
		// Identifiers and dots swallow the whitespace after them.
		{"w:" + b64 + ":keys-all ", "w:"},
		{"w:" + b64 + ":keys-all\t\n", "w:"},
		{"w:" + b64 + ":keys-all\u00a0", "w:"},
		{"w:" + b64 + ":keys-all\u3000", "w:"},
		{"w:" + b64 + ":keys-all\u0085", ""}, // not isSpace in GHC
		{"w:" + b64 + ":keys-all\u2028", ""}, // Zl, not Zs
		{"w:" + b64 + ": keys-all", ""},
		{"w:" + b64 + ":mod. pred", "w:"},
		{"w:" + b64 + ":mod .pred", "w:"},
		{"u:mod.fn :" + prUHash, "u:"},
		{"u:mod :" + prUHash, "u:"},
		{"u:fn:" + prUHash, "u:"},
		{"u:a.b.c.d:" + prUHash, ""},
		{"u:" + prUHash, ""},
		{"m:ns.mod:name", "m:"},
		{"m:ns.mod.x:name", ""},
		{"m:mod:ns.mod.f", "m:"},
		{"m:mod :name", "m:"},
		{"m:true:name", ""},
		{"p:" + b64 + ":mod.fn", "p:"},
		{"p:" + b64 + ":a.b.c.d", ""},
		// r: takes a qualified `ns.name`, else any non-empty text; once
		// `ns.name` has parsed, leftover input is not retried as text.
		{"r:ks with spaces", "r:"},
		{"r:ns.ks ", "r:"},
		{"r:ns.ks x", ""},
		{"r:ns.ks.x", ""},
		{"r:ns.", "r:"},
		{"r:.ks", "r:"},
		{"r:1ns.ks", "r:"},
		{"r:true.ks", "r:"},
		{"r:ns.true", "r:"},
		{"r: ", "r:"},
		{"r::", "r:"},
	}
	for _, tc := range tests {
		got, err := TypeOfPrincipal(String(tc.in))
		if err != nil {
			t.Fatalf("typeof-principal %q: %v", tc.in, err)
		}
		if got != String(tc.want) {
			t.Errorf("typeof-principal %q = %s, want %q", tc.in, got, tc.want)
		}
		is, err := IsPrincipal(String(tc.in))
		if err != nil {
			t.Fatalf("is-principal %q: %v", tc.in, err)
		}
		if is != Bool(tc.want != "") {
			t.Errorf("is-principal %q = %s", tc.in, is)
		}
	}
}

func TestPrincipalArgErrors(t *testing.T) {
	check := func(name string, err error, want string) {
		t.Helper()
		e, ok := err.(*Error)
		if !ok || e.Kind != ErrArgs || e.Msg != want {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	_, err := CreatePrincipal(String("k:"))
	check("create-principal", err, "Type error: failed to call native function create-principal with argument(s) of type(s): string")
	_, err = IsPrincipal(prKs1)
	check("is-principal", err, "Type error: failed to call native function is-principal with argument(s) of type(s): "+ArgTypeName(prKs1))
	_, err = TypeOfPrincipal(True)
	check("typeof-principal", err, "Type error: failed to call native function typeof-principal with argument(s) of type(s): bool")
	_, err = ValidatePrincipal(String("k:"), String("k:"))
	check("validate-principal", err, "Type error: failed to call native function validate-principal with argument(s) of type(s): string, string")
	_, err = ValidatePrincipal(prKs1, prKs1)
	check("validate-principal", err, "Type error: failed to call native function validate-principal with argument(s) of type(s): "+ArgTypeName(prKs1)+", "+ArgTypeName(prKs1))
}
