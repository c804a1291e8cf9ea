package contracts

import (
	"fmt"
	"strings"
)

// The development network (coin-interface.md §6, DECISIONS.md "development
// network"): upstream's published test keys, accounts and balances, so that
// kadena.js integration tests and tutorials run unchanged, plus the
// cross-chain gas account kadena-xchain-gas.

// KeyPair is a published Ed25519 test key: hex public key and hex 32-byte
// seed. Secret is empty where none was published.
type KeyPair struct {
	Name   string
	Public string
	Secret string
}

// TestKeys are chainweb's pact/genesis/devnet/keys.yaml (§6.1).
var TestKeys = []KeyPair{
	{"sender00", "368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca", "251a920c403ae8c8f65f59142316af3c82b631fba46ddea92ee8c95035bd2898"},
	{"sender01", "6be2f485a7af75fedb4b7f153a903f7e6000ca4aa501179c91a2450b777bd2a7", "2beae45b29e850e6b1882ae245b0bab7d0689ebdd0cd777d4314d24d7024b4f7"},
	{"sender02", "3a9dd532d73dace195dbb64d1dba6572fb783d0fdd324685e32fbda2f89f99a6", "9b54e924f7acdb03ad4e471308f9a512dac26a50398b41cab8bfe7a496804dbd"},
	{"sender03", "43f2adb1de192000cb3777bacc7f983b6614fd9c1715cd44cd484b6d3a0d34c8", "a477c755abcaaac7bc9aadfc616c0cb7a8a9df9e15adc168e39c247c648544ac"},
	{"sender04", "2d70aa4f697c3a3b8dd6d97745ac074edcfd0eb65c37774cde25135483bea71e", "1685ef1cb774a517fdfd5c08cf1ae898084d8ad39b04717a4b5b27c2a3190a75"},
	{"sender05", "f09d8f6394aea425fe6783d88cd81363d8017f16afd3711c575be0f5cd5c9bb9", "2505b87dca474955597fed38178df9e66b16b0c8dc140817c0ad75bd14be32d4"},
	{"sender06", "5ffc1f7fef7a44738625762f75a4229454951e03f2afc6f81309c0c1bdf9ee6f", "c2873d7226845228a6422d15599aa9371a6cd105d29f6157c07d4e9f5b5d7a3c"},
	{"sender07", "4c31dc9ee7f24177f78b6f518012a208326e2af1f37bb0a2405b5056d0cad628", "f1c1923e49cb23d15fe45bdc3f65d7fc1d031ce50dd81bb5085bdd2c63364d7f"},
	{"sender08", "63b2eba4ed70d4612d3e7bc90db2fbf4c76f7b074363e86d73f0bc617f8e8b81", "e0018d4e39736c9c22400cdd88ef60f0ca203466bb27b8435a72e0868289690d"},
	{"sender09", "c59d9840b0b66090836546b7eb4a73606257527ec8c2b482300fd229264b07e6", "adbe3793a0daf70c7e7a5d59349e0f51d928178de55c6328302ef5b628ed448b"},
	{"allocation00", "d82d0dcde9825505d86afb6dcc10411d6b67a429a79e21bda4bb119bf28ab871", "c63cd081b64ae9a7f8296f11c34ae08ba8e1f8c84df6209e5dee44fa04bcb9f5"},
	{"allocation01", "b4c8a3ea91d3146b0560994740f0e3eed91c59d2eeca1dc99f0c2872845c294d", "5dbbbd8b765b7d0cf8426d6992924b057c70a2138ecd4cf60cfcde643f304ea9"},
	{"allocation02", "e9e4e71bd063dcf7e06bd5b1a16688897d15ca8bd2e509c453c616219c186cc5", "45f026b7a6bb278ed4099136c13e842cdd80138ab7c5acd4a1f0e6c97d1d1e3c"},
}

// OtherKeys are the other published keys of §6.1.
var OtherKeys = []KeyPair{
	// The devnet miner: the node runs with --mining-public-key; the miner
	// account is "k:" + Public.
	{"devnet-miner", "f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f", "da81490c7efd5a95398a3846fa57fd17339bdf1b941d102f2d3217ad29785ff0"},
	// Chainweaver test keys (recovery phrase "scale able" six times); no
	// secret published.
	{"allocation-test01", "7011c379140ff899f7e613ac0a9784a7c0a515d30fe0ab2b0c07e5aa17635e3e", ""},
	{"allocation-test02", "06544e22bfef230d6d22f9486ac6cb76bf258ebfbf0137ee58f65743e1a5b8c4", ""},
	// kadena.js client-utils integration tests; the account
	// "k:5a2afbc4..." is created by the tests, not by genesis.
	{"kadena.js-test", "5a2afbc4564b76b2c27ce5a644cab643c43663835ea0be22433b209d3351f937", "e97b30547784bf05eb71a765b1d45127ed89d9b3c0cf21b71a107efb170eed33"},
}

// Key returns the public key of a key pair in TestKeys or OtherKeys.
func Key(name string) string {
	for _, k := range TestKeys {
		if k.Name == name {
			return k.Public
		}
	}
	for _, k := range OtherKeys {
		if k.Name == name {
			return k.Public
		}
	}
	panic("contracts: no key " + name)
}

// Account is a development genesis account (§6.2).
type Account struct {
	Name string
	// Guard: a keyset (read from the data key DataKey), or, when
	// KeysetRef is set, the keyset reference of that name.
	Keyset    Keyset
	DataKey   string
	KeysetRef string
	// Balance is a Pact decimal literal, the same on every chain it is on.
	Balance string
	// Chain0 restricts the account to chain 0.
	Chain0 bool
}

// DevAccounts are the coin accounts of the development genesis, in grant
// order: vanity names (not k: names), upstream's balances.
var DevAccounts = []Account{
	{Name: "sender00", DataKey: "sender00", Keyset: KeysAll(Key("sender00")), Balance: "100000000.0"},
	{Name: "sender01", DataKey: "sender01", Keyset: KeysAll(Key("sender01")), Balance: "110000000.0"},
	{Name: "sender02", DataKey: "sender02", Keyset: KeysAll(Key("sender02")), Balance: "120000000.0"},
	{Name: "sender03", DataKey: "sender03", Keyset: KeysAll(Key("sender03")), Balance: "130000000.0"},
	{Name: "sender04", DataKey: "sender04", Keyset: KeysAll(Key("sender04")), Balance: "140000000.0"},
	{Name: "sender05", DataKey: "sender05", Keyset: KeysAll(Key("sender05")), Balance: "150000000.0"},
	{Name: "sender06", DataKey: "sender06", Keyset: KeysAll(Key("sender06")), Balance: "160000000.0"},
	{Name: "sender07", DataKey: "sender07", Keyset: KeysAll(Key("sender07")), Balance: "170000000.0"},
	{Name: "sender08", DataKey: "sender08", Keyset: KeysAll(Key("sender08")), Balance: "180000000.0"},
	{Name: "sender09", DataKey: "sender09", Keyset: KeysAll(Key("sender09")), Balance: "190000000.0"},
	{Name: "multi-00-01", DataKey: "multi-00-01", Keyset: KeysAll(Key("sender00"), Key("sender01")), Balance: "101000000.0"},
	{Name: "multi-02-03-04-any", DataKey: "multi-02-03-04-any",
		Keyset:  Keyset{Keys: []string{Key("sender02"), Key("sender03"), Key("sender04")}, Pred: "keys-any"},
		Balance: "123400000.0"},
	{Name: "e7f7634e925541f368b827ad5c72421905100f6205285a78c19d7b4a38711805", DataKey: "e7f7",
		Keyset: KeysAll("e7f7634e925541f368b827ad5c72421905100f6205285a78c19d7b4a38711805"), Balance: "150.0"},
	// Enough to pay the gas of releasing the allocations.
	{Name: "allocation00", KeysetRef: "allocation00", Balance: "100000.0", Chain0: true},
	{Name: "allocation01", KeysetRef: "allocation01", Balance: "100000.0", Chain0: true},
	{Name: "allocation02", KeysetRef: "allocation02", Balance: "100000.0", Chain0: true},
}

// Allocation is a genesis allocation: Amount locked for Account until
// Release (RFC 3339), guarded by the root keyset KeysetRef.
type Allocation struct {
	Account   string
	KeysetRef string
	Release   string
	Amount    string
}

// DevKeysets are the root keysets the allocations name, by keyset name.
var DevKeysets = []struct {
	Name   string
	Keyset Keyset
}{
	{"allocation00", KeysAll(Key("allocation00"))},
	{"allocation01", KeysAll(Key("allocation01"))},
	{"allocation02", KeysAll(Key("allocation02"))},
	{"allocation-test01", KeysAll(Key("allocation-test01"))},
	{"allocation-test02", KeysAll(Key("allocation-test02"))},
}

// DevAllocations are upstream's devnet allocations. Upstream's development
// genesis runs the keysets and allocations on every chain (cwtools
// Ea/Genesis.hs: fastDevelopmentN only replaces the grants); only chain 0
// grants the allocation accounts coin.
var DevAllocations = []Allocation{
	{"allocation00", "allocation00", "1900-10-15T18:00:00Z", "1000000.0"},
	{"allocation01", "allocation01", "2100-10-31T18:00:00Z", "1000000.0"},
	{"allocation02", "allocation02", "1900-10-31T18:00:00Z", "1000000.0"},
	{"allocation-test01", "allocation-test01", "1900-10-31T18:00:00Z", "1000000.0"},
	{"allocation-test02", "allocation-test02", "1900-10-31T18:00:00Z", "2000000.0"},
}

// The cross-chain gas station of the development network (DECISIONS.md):
// an account any unsigned cross-chain continuation may name as its gas
// payer. Its guard passes only while coin.GAS is held (so only to buy gas),
// and only for gas price <= 1e-8 and gas limit <= 850, the values kadena.js
// examples use for step 1.
const (
	XChainGasAccount = "kadena-xchain-gas"
	XChainGasGuard   = `(util.guards1.guard-all [(create-user-guard (coin.gas-only)) (util.guards1.max-gas-price 0.00000001) (util.guards1.max-gas-limit 850)])`
	XChainGasBalance = "100000.0"
)

// DevelopmentData is the data of the network-independent Genesis sources
// on the development network: sender00's key administers the ns module,
// the kadena namespace and the util namespace, as upstream devnet does.
func DevelopmentData() map[string]any {
	ops := KeysAll(Key("sender00"))
	return map[string]any{
		"ns-admin-keyset":   ops,
		"ns-genesis-keyset": GenesisKeysetEmpty,
		"ns-operate-keyset": ops,
		"util-ns-users":     ops,
		"util-ns-admin":     ops,
	}
}

// DevelopmentGenesis returns the genesis transactions of one chain (0-19)
// of the development network, in order, with their data: Genesis(), then
// the allocation keysets, the allocations, the grants and the cross-chain
// gas account.
func DevelopmentGenesis(chain int) []Source {
	all := DevelopmentData()
	out := Genesis()
	for i := range out {
		out[i].Data = pick(all, out[i].Reads)
	}

	var code strings.Builder
	data := map[string]any{}
	var reads []string
	for _, k := range DevKeysets {
		fmt.Fprintf(&code, "(define-keyset %s (read-keyset %s))\n", quote(k.Name), quote(k.Name))
		data[k.Name] = k.Keyset
		reads = append(reads, k.Name)
	}
	out = append(out, Source{Name: "devnet-keysets", Code: code.String(), Reads: reads, Data: data})

	code.Reset()
	for _, a := range DevAllocations {
		fmt.Fprintf(&code, "(coin.create-allocation-account %s (time %s) %s %s)\n",
			quote(a.Account), quote(a.Release), quote(a.KeysetRef), a.Amount)
	}
	out = append(out, Source{Name: "devnet-allocations", Code: code.String()})

	code.Reset()
	data, reads = map[string]any{}, nil
	for _, a := range DevAccounts {
		if a.Chain0 && chain != 0 {
			continue
		}
		guard := fmt.Sprintf("(read-keyset %s)", quote(a.DataKey))
		if a.KeysetRef != "" {
			guard = fmt.Sprintf("(keyset-ref-guard %s)", quote(a.KeysetRef))
		} else {
			data[a.DataKey] = a.Keyset
			reads = append(reads, a.DataKey)
		}
		fmt.Fprintf(&code, "(coin.coinbase %s %s %s)\n", quote(a.Name), guard, a.Balance)
	}
	name := "devnet-grantsN"
	if chain == 0 {
		name = "devnet-grants0"
	}
	out = append(out, Source{Name: name, Code: code.String(), Reads: reads, Data: data})

	out = append(out, Source{
		Name: "devnet-xchain-gas",
		Code: fmt.Sprintf("(coin.coinbase %s %s %s)\n", quote(XChainGasAccount), XChainGasGuard, XChainGasBalance),
	})
	return out
}

func pick(all map[string]any, keys []string) map[string]any {
	if len(keys) == 0 {
		return nil
	}
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		out[k] = all[k]
	}
	return out
}
