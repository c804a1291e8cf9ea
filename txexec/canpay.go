package txexec

import (
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// The gas payer check without running the purchase.
//
// The mempool asks, for every command it admits, whether the sender can buy the command's gas
// at the head (CanPay). Running coin.buy-gas for that took a quarter of /send's CPU. For a coin
// module whose code is known, the outcome follows from two records: the module itself and the
// sender's row. With the development networks' coin (pact/contracts/coin.pact), buy-gas
// succeeds when
//
//   - the sender's name has 3 to 256 Latin-1 characters (validate-account, twice);
//   - the total (gas limit × gas price, rounded to 12 places) is positive; enforce-unit holds
//     for any total so rounded;
//   - coin.GAS is granted (the node grants it before buying);
//   - DEBIT's guard, the row's, passes: a keyset whose built-in predicate is met by the keys
//     of the signers that signed for gas, each of which gasSigners scopes to (DEBIT sender),
//     the capability being acquired when the guard is enforced;
//   - the row's balance is at least the total (debit's "Insufficient funds");
//   - and the whole stays under BuyGasLimit, which the bounds below keep far away
//     (TestSurelyPaysGasBound measures the worst case they admit).
//
// surelyPays checks exactly these, conservatively (a name of printable ASCII stands for
// Latin-1), and answers false, "not sure", for anything else: another coin, a gas station, a
// guard that is not a plain keyset, a missing row. CanPay then runs buy-gas as before, so every
// refusal keeps buy-gas's own reason. TestSurelyPaysNeverLies runs both on many commands.

// knownCoinHashes are the hashes of the coin modules surelyPays knows: the development
// networks' (TestKnownCoinIsTheDevelopmentCoin holds it to pact/contracts).
var knownCoinHashes = map[string]bool{
	"JJUYCpNdPvxYe8-Vvv0979z4ZH9eiFQnvUolxyFk2Bk": true,
}

// Bounds of what surelyPays vouches for, far above real commands and far below the gas the
// purchase may use.
// The purchase's gas grows with the size of the row it reads twice (about 13 gas for each
// 64-character key), not with the signers.
const (
	surelyMaxKeyBytes = 16 * 64 // the characters of the keys in the sender's keyset
	surelyMaxBits     = 256     // bits of the balance's and the total's mantissas
	surelyMaxSigners  = 64      // signers of the command
	surelyMaxCaps     = 16      // capabilities a signer signed for
)

// surelyPays reports that coin.buy-gas of a command sent by m.Sender with signers, for total,
// certainly succeeds on st; false means not sure.
func surelyPays(st db.DB, signers []eval.Signer, m *api.PublicMeta, total eval.Decimal) bool {
	if total.Sign() <= 0 || !smallDecimal(total) || !plainAccountName(m.Sender) || len(signers) > surelyMaxSigners {
		return false
	}
	for _, s := range signers {
		if len(s.Caps) > surelyMaxCaps {
			return false
		}
	}
	if station, err := gasPayerCap(signers); station != nil || err != nil {
		return false
	}
	mod, ok, err := st.Read(db.Modules, "", "coin")
	if err != nil || !ok {
		return false
	}
	if coin, isMod := mod.(*eval.Module); !isMod || !knownCoinHashes[coin.Hash] {
		return false
	}
	v, ok, err := st.Read(db.UserTable, "coin_coin-table", m.Sender)
	if err != nil || !ok {
		return false
	}
	row, isObj := v.(*eval.Object)
	if !isObj || row.Len() != 2 {
		return false
	}
	bv, _ := row.Get("balance")
	balance, isDec := bv.(eval.Decimal)
	if !isDec || !smallDecimal(balance) || balance.Cmp(total) < 0 {
		return false
	}
	gv, _ := row.Get("guard")
	ks, isKeySet := gv.(*eval.KeySet)
	if !isKeySet {
		return false
	}
	keyBytes := 0
	for _, k := range ks.Keys {
		keyBytes += len(k)
	}
	if keyBytes > surelyMaxKeyBytes {
		return false
	}
	matched := 0
	for _, k := range ks.Keys {
		for _, s := range signers {
			if s.PubKey == k && signedForGas(s) {
				matched++
				break
			}
		}
	}
	switch ks.Pred {
	case eval.KeysAll:
		return matched == len(ks.Keys)
	case eval.KeysAny:
		return matched > 0
	case eval.Keys2:
		return matched >= 2
	}
	return false
}

func smallDecimal(d eval.Decimal) bool {
	m := d.Mantissa()
	return m.IsSmall() || m.Big().BitLen() <= surelyMaxBits
}

// plainAccountName: 3 to 256 characters of printable ASCII, which validate-account accepts.
func plainAccountName(s string) bool {
	if len(s) < 3 || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
