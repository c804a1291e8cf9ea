package txexec

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// canPayState is chain 0's development genesis on a MemDB, with the accounts written
// straight into coin's table (rows of any shape, as a contract could have left them).
func canPayState(t testing.TB, r *Runner, rows map[string]*eval.Object) *db.MemDB {
	t.Helper()
	st := devGenesis(t, r, canPayBlock())
	if _, err := st.BeginTx(db.Transactional); err != nil {
		t.Fatal(err)
	}
	for name, row := range rows {
		if err := st.Write(db.UserTable, "coin_coin-table", name, row, db.Write); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CommitTx(); err != nil {
		t.Fatal(err)
	}
	return st
}

// devGenesis is chain 0's development genesis, run by r in block b on a new MemDB.
func devGenesis(t testing.TB, r *Runner, b *Block) *db.MemDB {
	t.Helper()
	st := db.NewMemDB()
	cmds, err := GenesisCommands(contracts.DevelopmentGenesis(0), "0", "development")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if _, err := r.Genesis(st, b, c); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// devBlock is block 1 of chain 0, mined by the development miner.
func devBlock() *Block {
	key := contracts.Key("devnet-miner")
	return &Block{ChainID: "0", Height: 1, ParentTime: 1_700_000_000_000_000,
		Miner: Miner{Account: "k:" + key, Guard: eval.NewKeySet([]string{key}, eval.KeysAll)}}
}

func canPayBlock() *Block {
	key := contracts.Key("devnet-miner")
	return &Block{ChainID: "0", Height: 1, ParentTime: 1_700_000_000_000_000, ParentHash: api.HashBytes([]byte{1}),
		Miner: Miner{Account: "k:" + key, Guard: eval.NewKeySet([]string{key}, eval.KeysAll)}}
}

// gasCommand is a command of sender with signers, parsed without signatures: the gas payer
// check does not verify them (the mempool did before).
func gasCommand(sender string, gasLimit uint64, price string, signers []api.Signer) *api.ParsedCommand {
	p, err := eval.ParseDecimal(price)
	if err != nil {
		panic(err)
	}
	payload := &api.Payload{
		Exec:    &api.ExecMsg{Code: "1", Data: eval.EmptyObject},
		Signers: signers,
		Meta: api.Meta{Public: &api.PublicMeta{ChainID: "0", Sender: sender, GasLimit: gasLimit, GasPrice: p,
			CreationTime: 1_700_000_000, TTL: 3600}},
	}
	return &api.ParsedCommand{Payload: payload, RequestKey: api.HashBytes([]byte(sender + price))}
}

// buyCheck is CanPay without surelyPays: coin.buy-gas run on a view.
func (r *Runner) buyCheck(st db.DB, b *Block, pc *api.ParsedCommand) (uint64, error) {
	m := pc.Payload.Meta.Public
	in := r.interp(st, b, pc, m)
	meter, err := r.buy(in, pc, m, b.Miner, false)
	return uint64(meter.Used().Gas()), err
}

// The coin module surelyPays knows is the one the development networks install.
func TestKnownCoinIsTheDevelopmentCoin(t *testing.T) {
	st := canPayState(t, New(Config{}), nil)
	v, ok, err := st.Read(db.Modules, "", "coin")
	if err != nil || !ok {
		t.Fatalf("coin: %v %v", ok, err)
	}
	if h := v.(*eval.Module).Hash; !knownCoinHashes[h] {
		t.Fatalf("the development coin's hash is %s: if coin.pact changed, check that buy-gas still "+
			"succeeds exactly when surelyPays says (canpay.go), then put the new hash in knownCoinHashes", h)
	}
}

// surelyPays never vouches for a purchase that buy-gas refuses, and vouches for every one
// buy-gas accepts from a sender of plain name whose guard is a keyset of a built-in
// predicate (what it was written for). Commands of every shape around the conditions it checks
// (names, totals, balances of either type, guards of every kind and predicate, signers scoped
// every way, gas stations) are checked both ways, each on a new row of its sender.
func TestSurelyPaysNeverLies(t *testing.T) {
	r := New(Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]string, 3)
	for i := range keys {
		keys[i] = fmt.Sprintf("%064x", rng.Uint64())
	}
	keysets := func() eval.Value {
		switch rng.IntN(14) {
		case 0:
			return eval.String("not a guard")
		case 1:
			g, err := eval.DecodeJSON([]byte(`{"keysetref":{"ns":"free","ksn":"k"}}`))
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		var ks []string
		for _, k := range keys {
			if rng.IntN(2) == 0 {
				ks = append(ks, k)
			}
		}
		preds := []string{eval.KeysAll, eval.KeysAll, eval.KeysAny, eval.KeysAny, eval.Keys2, "keys-3", ">="}
		return eval.NewKeySet(ks, preds[rng.IntN(len(preds))])
	}
	balances := []eval.Value{
		eval.NewDecimal(eval.NewInt(0), 0), eval.NewDecimal(eval.NewInt(4), 6), eval.NewDecimal(eval.NewInt(4001), 9),
		eval.NewDecimal(eval.NewInt(1), 0), eval.NewDecimal(eval.NewInt(100000000), 0), eval.NewDecimal(eval.NewInt(100000000), 0),
		eval.NewDecimal(eval.NewInt(100000000), 0), eval.NewInt(5),
	}
	names := []string{"alice", "bob", "carol", "dave", "k:" + keys[0], "eve-" + strings.Repeat("x", 252),
		"bé-latin", "ab", strings.Repeat("y", 257), "tab\there"}
	st := canPayState(t, r, nil)
	rows := map[string]*eval.Object{}
	// writeRow gives an account a new row of random balance and guard.
	writeRow := func(name string) {
		rows[name] = eval.NewObject(eval.Field{Key: "balance", Val: balances[rng.IntN(len(balances))]},
			eval.Field{Key: "guard", Val: keysets()})
		if _, err := st.BeginTx(db.Transactional); err != nil {
			t.Fatal(err)
		}
		if err := st.Write(db.UserTable, "coin_coin-table", name, rows[name], db.Write); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CommitTx(); err != nil {
			t.Fatal(err)
		}
	}
	senders := append(names, "nobody-here")
	capSets := [][]api.SigCapability{
		nil,
		{{Name: "coin.GAS"}},
		nil,
		{{Name: "coin.GAS"}},
		{{Name: "coin.TRANSFER", Args: []eval.Value{eval.String("alice"), eval.String("bob"), eval.NewDecimal(eval.NewInt(1), 0)}}},
		{{Name: "coin.GAS"}, {Name: "coin.TRANSFER", Args: []eval.Value{eval.String("a"), eval.String("b"), eval.NewInt(1)}}},
		{{Name: "coin.GAS", Args: []eval.Value{eval.NewInt(1)}}},
		{{Name: "free.station.GAS_PAYER", Args: []eval.Value{eval.String("x"), eval.NewInt(1), eval.NewDecimal(eval.NewInt(1), 0)}}},
		{{Name: "other.GAS"}},
	}
	prices := []string{"0.00000001", "0.00000001", "0.0", "0.0000000000001", "0.1", "1000000.0"}
	limits := []uint64{0, 1, 400, 400, 150000}
	vouched, paid := 0, 0
	for i := range 6000 {
		var signers []api.Signer
		for range 1 + rng.IntN(3) {
			signers = append(signers, api.Signer{PubKey: keys[rng.IntN(len(keys))], Clist: capSets[rng.IntN(len(capSets))]})
		}
		sender := senders[rng.IntN(len(senders))]
		if sender != "nobody-here" {
			writeRow(sender)
		}
		pc := gasCommand(sender, limits[rng.IntN(len(limits))], prices[rng.IntN(len(prices))], signers)
		m := pc.Payload.Meta.Public
		sure := surelyPays(st, pc.Payload.EvalSigners(), m, gasSupply(m.GasLimit, m.GasPrice))
		_, err := r.buyCheck(st, canPayBlock(), pc)
		if sure && err != nil {
			t.Fatalf("case %d: surelyPays vouched for a purchase buy-gas refuses (%v): sender %q, limit %d, price %s, signers %+v, row %s",
				i, err, m.Sender, m.GasLimit, m.GasPrice, signers, eval.Pretty(rows[m.Sender]))
		}
		if err == nil {
			paid++
			if sure {
				vouched++
			} else if plainAccountName(sender) && builtinPredicate(rows[sender]) {
				t.Errorf("case %d: surelyPays is not sure of a plain purchase buy-gas accepts: sender %q, limit %d, price %s, signers %+v, row %s",
					i, sender, m.GasLimit, m.GasPrice, signers, eval.Pretty(rows[sender]))
			}
		}
	}
	t.Logf("buy-gas accepted %d of 6000 purchases; surelyPays vouched for %d of them", paid, vouched)
	if paid < 200 {
		t.Errorf("buy-gas accepted only %d purchases: the cases test too little", paid)
	}
}

// builtinPredicate: the row's guard is a keyset with one of the three built-in predicates.
func builtinPredicate(row *eval.Object) bool {
	g, _ := row.Get("guard")
	ks, ok := g.(*eval.KeySet)
	return ok && (ks.Pred == eval.KeysAll || ks.Pred == eval.KeysAny || ks.Pred == eval.Keys2)
}

// The most surelyPays vouches for (the longest name, the most key characters, the largest
// balance and total, the most signers with the most capabilities) costs buy-gas far less than
// its limit, BuyGasLimit.
func TestSurelyPaysGasBound(t *testing.T) {
	r := New(Config{})
	var keys []string
	for i := range surelyMaxKeyBytes / 64 {
		keys = append(keys, fmt.Sprintf("%064x", i+1))
	}
	sender := strings.Repeat("w", 256)
	huge := new(big.Int).Lsh(big.NewInt(1), surelyMaxBits-1)
	st := canPayState(t, r, map[string]*eval.Object{sender: eval.NewObject(
		eval.Field{Key: "balance", Val: eval.NewDecimal(eval.NewIntBig(huge), 0)},
		eval.Field{Key: "guard", Val: eval.NewKeySet(keys, eval.KeysAll)})})
	caps := []api.SigCapability{{Name: "coin.GAS"}}
	for len(caps) < surelyMaxCaps {
		caps = append(caps, api.SigCapability{Name: "coin.TRANSFER", Args: []eval.Value{eval.String(sender),
			eval.String(strings.Repeat("z", 256)), eval.NewDecimal(eval.NewInt(int64(len(caps))), 0)}})
	}
	var signers []api.Signer
	for i := range surelyMaxSigners {
		signers = append(signers, api.Signer{PubKey: keys[i%len(keys)], Clist: caps})
	}
	// A total of nearly surelyMaxBits bits: the gas limit times a price of 60 digits.
	pc := gasCommand(sender, 150000, "1"+strings.Repeat("0", 59)+".000000000001", signers)
	m := pc.Payload.Meta.Public
	if !surelyPays(st, pc.Payload.EvalSigners(), m, gasSupply(m.GasLimit, m.GasPrice)) {
		t.Fatal("surelyPays does not vouch for its own worst case")
	}
	used, err := r.buyCheck(st, canPayBlock(), pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the worst case surelyPays admits used %d gas of %d", used, BuyGasLimit)
	if used > BuyGasLimit/2 {
		t.Errorf("the worst case surelyPays admits used %d gas, too near the limit %d", used, BuyGasLimit)
	}
	// One key character more, and it is not sure.
	keys[0] += "0"
	st = canPayState(t, r, map[string]*eval.Object{sender: eval.NewObject(
		eval.Field{Key: "balance", Val: eval.NewDecimal(eval.NewIntBig(huge), 0)},
		eval.Field{Key: "guard", Val: eval.NewKeySet(keys, eval.KeysAny)})})
	if surelyPays(st, pc.Payload.EvalSigners(), m, gasSupply(m.GasLimit, m.GasPrice)) {
		t.Error("surelyPays vouches past its bound on key characters")
	}
}
