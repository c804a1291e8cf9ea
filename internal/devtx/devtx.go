package devtx

import (
	"strconv"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/contracts"
	"github.com/ledgernode/ledger-node/pact/eval"
)

// Key returns the key pair of a published test account ("sender00").
// It panics on a name without a published secret: a test bug.
func Key(name string) *api.KeyPair {
	for _, k := range contracts.TestKeys {
		if k.Name == name {
			kp, err := api.KeyPairFromHex(k.Secret)
			if err != nil {
				panic(err)
			}
			return kp
		}
	}
	panic("devtx: no secret key for " + name)
}

// Cmd describes a command. Zero fields take the defaults of Build.
type Cmd struct {
	Network string // "development"
	Chain   string // "0"
	Code    string
	// Cont, when set, makes a continuation instead of an exec of Code (its Data is set from
	// Data).
	Cont *api.ContMsg
	// Data is the message data as JSON text ("{}" when empty).
	Data string
	// Sender is the gas payer ("sender00"); Signers sign in order, each
	// scoped to Caps[i] when given.
	Sender   string
	Signers  []*api.KeyPair
	Caps     [][]api.SigCapability
	GasLimit uint64 // 1000
	GasPrice string // "0.00000001"
	// CreationTime in seconds (now minus 10 s when zero, so that a node's
	// parent block time is not behind it); TTL in seconds (3600).
	CreationTime int64
	TTL          int64
	Nonce        string // the creation time's text
}

// Build makes the signed command.
func (c Cmd) Build() *api.Command {
	if c.Network == "" {
		c.Network = "development"
	}
	if c.Chain == "" {
		c.Chain = "0"
	}
	if c.Sender == "" {
		c.Sender = "sender00"
	}
	if c.GasLimit == 0 {
		c.GasLimit = 1000
	}
	if c.GasPrice == "" {
		c.GasPrice = "0.00000001"
	}
	if c.CreationTime == 0 {
		c.CreationTime = time.Now().Add(-10 * time.Second).Unix()
	}
	if c.TTL == 0 {
		c.TTL = 3600
	}
	if c.Nonce == "" {
		c.Nonce = strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	data := eval.Value(eval.EmptyObject)
	if c.Data != "" {
		var err error
		if data, err = eval.DecodeJSON([]byte(c.Data)); err != nil {
			panic("devtx: data: " + err.Error())
		}
	}
	price, err := eval.ParseDecimal(c.GasPrice)
	if err != nil {
		panic("devtx: gas price: " + err.Error())
	}
	p := &api.Payload{
		NetworkID: &c.Network,
		Meta: api.Meta{Public: &api.PublicMeta{CreationTime: c.CreationTime, TTL: c.TTL, GasLimit: c.GasLimit,
			ChainID: c.Chain, GasPrice: price, Sender: c.Sender}},
		Nonce: c.Nonce,
	}
	if c.Cont != nil {
		cont := *c.Cont
		cont.Data = data
		p.Cont = &cont
	} else {
		p.Exec = &api.ExecMsg{Code: c.Code, Data: data}
	}
	for i, k := range c.Signers {
		s := api.Signer{PubKey: k.PublicHex()}
		if i < len(c.Caps) {
			s.Clist = c.Caps[i]
		}
		p.Signers = append(p.Signers, s)
	}
	cmd, err := p.JSON()
	if err != nil {
		panic("devtx: " + err.Error())
	}
	h := api.HashBytes(cmd)
	out := &api.Command{Hash: h, Cmd: string(cmd), Sigs: []api.UserSig{}}
	for _, k := range c.Signers {
		out.Sigs = append(out.Sigs, k.SignHash(h))
	}
	return out
}

// Transfer is a coin transfer of amount (a Pact decimal literal, "1.0")
// from one development account to another on chain, signed by from's key
// with the GAS and TRANSFER capabilities; from pays the gas.
func Transfer(from, to, amount, chain string) Cmd {
	amt, err := eval.ParseDecimal(amount)
	if err != nil {
		panic("devtx: amount: " + err.Error())
	}
	return Cmd{
		Chain:   chain,
		Code:    `(coin.transfer ` + strconv.Quote(from) + ` ` + strconv.Quote(to) + ` ` + amount + `)`,
		Sender:  from,
		Signers: []*api.KeyPair{Key(from)},
		Caps: [][]api.SigCapability{{
			{Name: "coin.GAS"},
			{Name: "coin.TRANSFER", Args: []eval.Value{eval.String(from), eval.String(to), amt}},
		}},
	}
}

// CrossChainTransfer is step 0 of coin.transfer-crosschain: amount from one development account
// on chain to a receiver (guarded by receiverKey) on target, signed by from's key with the
// GAS and TRANSFER_XCHAIN capabilities.
func CrossChainTransfer(from, to, receiverKey, amount, chain, target string) Cmd {
	amt, err := eval.ParseDecimal(amount)
	if err != nil {
		panic("devtx: amount: " + err.Error())
	}
	return Cmd{
		Chain: chain,
		Code: `(coin.transfer-crosschain ` + strconv.Quote(from) + ` ` + strconv.Quote(to) +
			` (read-keyset "ks") ` + strconv.Quote(target) + ` ` + amount + `)`,
		Data:    `{"ks":{"keys":["` + receiverKey + `"],"pred":"keys-all"}}`,
		Sender:  from,
		Signers: []*api.KeyPair{Key(from)},
		Caps: [][]api.SigCapability{{
			{Name: "coin.GAS"},
			{Name: "coin.TRANSFER_XCHAIN", Args: []eval.Value{eval.String(from), eval.String(to), amt, eval.String(target)}},
		}},
	}
}

// Continuation is the next step of defpact pactID on chain, with an SPV proof, its gas paid by
// gasPayer (a development account, which signs for coin.GAS).
func Continuation(pactID string, step int64, proof, chain, gasPayer string) Cmd {
	return Cmd{
		Chain:   chain,
		Cont:    &api.ContMsg{PactID: pactID, Step: step, Proof: &proof},
		Sender:  gasPayer,
		Signers: []*api.KeyPair{Key(gasPayer)},
		Caps:    [][]api.SigCapability{{{Name: "coin.GAS"}}},
	}
}
