package txexec_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/txexec"
)

// minerKey is the devnet miner's published key.
var minerKey = contracts.Key("devnet-miner")

func block(height uint64) *txexec.Block {
	return &txexec.Block{
		ChainID: "0", Height: height, ParentTime: 1_700_000_000_000_000, ParentHash: api.HashBytes([]byte{byte(height)}),
		Miner: txexec.Miner{Account: "k:" + minerKey, Guard: eval.NewKeySet([]string{minerKey}, eval.KeysAll)},
	}
}

// genesisState runs chain 0's development genesis on a fresh MemDB.
func genesisState(t testing.TB, r *txexec.Runner) *db.MemDB {
	t.Helper()
	st := db.NewMemDB()
	cmds, err := txexec.GenesisCommands(contracts.DevelopmentGenesis(0), "0", "development")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if _, err := r.Genesis(st, block(0), c); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

type cmdResult struct {
	Gas    int64  `json:"gas"`
	ReqKey string `json:"reqKey"`
	Result struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"result"`
	Events []struct {
		Name   string            `json:"name"`
		Params []json.RawMessage `json:"params"`
	} `json:"events"`
	TxID     *int64          `json:"txId"`
	MetaData json.RawMessage `json:"metaData"`
}

func decode(t testing.TB, b []byte) cmdResult {
	t.Helper()
	var r cmdResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return r
}

// balance reads an account's balance through a legacy local.
func balance(t testing.TB, r *txexec.Runner, st db.DB, account string) string {
	t.Helper()
	c := devtx.Cmd{Code: `(format "{}" [(coin.get-balance "` + account + `")])`}.Build()
	pc, err := api.ParseCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Local(st, block(9), pc, false)
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, out)
	if res.Result.Status != "success" {
		t.Fatalf("get-balance %s: %s", account, out)
	}
	var text string
	if err := json.Unmarshal(res.Result.Data, &text); err != nil {
		t.Fatal(err)
	}
	return text
}

func parsed(t testing.TB, c *api.Command) *api.ParsedCommand {
	t.Helper()
	pc, err := api.VerifyCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func TestGenesisFundsDevelopmentAccounts(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	if got := mustDec(t, balance(t, r, st, "sender00")); !got.Equal(mustDec(t, "100000000.0")) {
		t.Errorf("sender00 balance %s", got)
	}
}

func TestTransferPaysAmountAndGas(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	b := block(1)
	if _, err := r.Coinbase(st, b); err != nil {
		t.Fatal(err)
	}
	before0, before1 := balance(t, r, st, "sender00"), balance(t, r, st, "sender01")
	c := devtx.Transfer("sender00", "sender01", "1.5", "0")
	c.GasPrice = "0.001"
	a, err := r.Apply(st, b, parsed(t, c.Build()))
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, a.Result)
	if res.Result.Status != "success" || a.Failed {
		t.Fatalf("transfer failed: %s", a.Result)
	}
	// chainweb-node 2.32's applyCmd test of a transfer like this one
	// (sender00 to sender01 420.0, GAS and TRANSFER signed, gas price 0.1)
	// charges 227 gas with a size charge of 1: buying gas and the payload
	// cost between 225 and 226 gas. Ours pays its real size charge instead
	// of the test's 1, and the rest must round up to the same 226 (the
	// amount and price move the decimal comparisons by a few milligas).
	size := int64(txexec.InitialGas(parsed(t, c.Build())))
	t.Logf("transfer gas: %d (size charge %d)", a.Gas, size)
	if a.Gas-size != 226 {
		t.Errorf("gas %d - size charge %d = %d, want chainweb's 227 - 1 = 226", a.Gas, size, a.Gas-size)
	}
	if res.TxID == nil {
		t.Error("no txId")
	}
	// The transfer's event, then the gas payment to the miner.
	if len(res.Events) != 2 || res.Events[0].Name != "TRANSFER" || res.Events[1].Name != "TRANSFER" ||
		string(res.Events[1].Params[1]) != `"k:`+minerKey+`"` {
		t.Errorf("events: %+v", res.Events)
	}
	fee := eval.NewDecimal(eval.NewInt(a.Gas), 3) // gas × 0.001
	want0 := mustDec(t, before0).Sub(mustDec(t, "1.5")).Sub(fee)
	if got := mustDec(t, balance(t, r, st, "sender00")); !got.Equal(want0) {
		t.Errorf("sender00: %s, want %s", got, want0)
	}
	want1 := mustDec(t, before1).Add(mustDec(t, "1.5"))
	if got := mustDec(t, balance(t, r, st, "sender01")); !got.Equal(want1) {
		t.Errorf("sender01: %s, want %s", got, want1)
	}
	wantMiner := txexec.DefaultMinerReward.Add(fee)
	if got := mustDec(t, balance(t, r, st, "k:"+minerKey)); !got.Equal(wantMiner) {
		t.Errorf("miner: %s, want %s", got, wantMiner)
	}
}

func mustDec(t testing.TB, s string) eval.Decimal {
	t.Helper()
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	d, err := eval.ParseDecimal(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return d
}

func TestFailedPayloadChargesGasLimit(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	c := devtx.Transfer("sender00", "sender01", "1000000000.0", "0") // more than the balance
	c.GasLimit = 700
	before := mustDec(t, balance(t, r, st, "sender00"))
	a, err := r.Apply(st, block(1), parsed(t, c.Build()))
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, a.Result)
	if !a.Failed || res.Result.Status != "failure" || !strings.Contains(res.Result.Error.Message, "Insufficient funds") {
		t.Fatalf("want an Insufficient funds failure: %s", a.Result)
	}
	if a.Gas != 700 {
		t.Errorf("gas %d, want the limit 700", a.Gas)
	}
	want := before.Sub(eval.NewDecimal(eval.NewInt(700), 8))
	if got := mustDec(t, balance(t, r, st, "sender00")); !got.Equal(want) {
		t.Errorf("sender00 %s, want %s (only gas paid)", got, want)
	}
}

func TestBuyGasFailureLeavesNoTrace(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	k := devtx.Key("sender01")
	c := devtx.Cmd{Code: "(+ 1 2)", Sender: "nobody-at-all", Signers: []*api.KeyPair{k}}.Build()
	pc := parsed(t, c)
	if err := r.CanPay(st, block(1), pc); err == nil {
		t.Fatal("CanPay: an unknown gas payer can pay")
	}
	_, err := r.Apply(st, block(1), pc)
	var be *txexec.BuyGasError
	if !asBuyGas(err, &be) || !strings.Contains(be.Error(), "Failed to buy gas") {
		t.Fatalf("Apply: %v, want a BuyGasError", err)
	}
	if st.InTx() {
		t.Error("a transaction was left open")
	}
}

func asBuyGas(err error, be **txexec.BuyGasError) bool {
	x, ok := err.(*txexec.BuyGasError)
	*be = x
	return ok
}

func TestLocalPreflightReportsGasAndMeta(t *testing.T) {
	r := txexec.New(txexec.Config{})
	st := genesisState(t, r)
	c := devtx.Transfer("sender00", "sender01", "1.0", "0").Build()
	out, err := r.Local(st, block(5), parsed(t, c), true)
	if err != nil {
		t.Fatal(err)
	}
	res := decode(t, out)
	if res.Result.Status != "success" || res.Gas <= 0 {
		t.Fatalf("preflight: %s", out)
	}
	var meta struct {
		BlockHeight uint64          `json:"blockHeight"`
		PublicMeta  json.RawMessage `json:"publicMeta"`
	}
	if err := json.Unmarshal(res.MetaData, &meta); err != nil || meta.BlockHeight != 5 || len(meta.PublicMeta) == 0 {
		t.Errorf("metaData %s (%v)", res.MetaData, err)
	}
	if res.TxID != nil {
		t.Error("local reports a txId")
	}
}
