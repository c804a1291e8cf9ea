package txexec

import (
	"math"
	"math/big"

	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/pact/eval"
	"github.com/ledgernode/ledger-node/pact/gas"
)

// DefaultGasModel is the gas model of the node's chains: Pact 5's table
// model, as chainweb-node 2.32 charges.
var DefaultGasModel = gas.Table

// InitialGas is the gas a command pays for its size before its payload
// runs, chainweb's initialGasOf: with s the byte length of the signed
// payload (the cmd string) less the length of a continuation's SPV proof,
// ⌈s/100 + (s/51200)^7⌉, computed exactly. A cent of KDA-gas per byte at
// the usual price, and a seventh-power penalty that makes payloads much
// past 50 kB prohibitive (100,000 bytes: 1,109 gas).
func InitialGas(pc *api.ParsedCommand) uint64 {
	size := len(pc.Command.Cmd)
	if c := pc.Payload.Cont; c != nil && c.Proof != nil {
		size -= len(*c.Proof)
	}
	return InitialGasOfSize(size)
}

// sizePenaltyDenominator is D = 51200^7 (100 × 512, to the seventh), and
// sizePenaltyPerByte D/100: s/100 + s^7/D = (s·(D/100) + s^7) / D.
var (
	sizePenaltyDenominator = new(big.Int).Exp(big.NewInt(51200), big.NewInt(7), nil)
	sizePenaltyPerByte     = new(big.Int).Quo(sizePenaltyDenominator, big.NewInt(100))
)

// smallPayloadSize is the largest size whose penalty cannot reach the next
// whole gas: 26,000^7 ≤ D/100, so for s = 100q + r (r < 100) and s at most
// this, r·(D/100) + s^7 ≤ (r+1)·(D/100) ≤ D, and the charge is q + 1.
const smallPayloadSize = 26000

// InitialGasOfSize is InitialGas of a payload of size bytes (0 for a
// non-positive size; saturating at the largest uint64).
func InitialGasOfSize(size int) uint64 {
	if size <= 0 {
		return 0
	}
	if size <= smallPayloadSize {
		// Every command a node sees in practice: no big arithmetic.
		return uint64(size/100) + 1
	}
	return initialGasExact(size)
}

// initialGasExact is ⌈(s·(D/100) + s^7) / D⌉ in big integers.
func initialGasExact(size int) uint64 {
	s := big.NewInt(int64(size))
	num := new(big.Int).Mul(s, sizePenaltyPerByte)
	num.Add(num, new(big.Int).Exp(s, big.NewInt(7), nil))
	// Ceiling of a positive quotient: (num + D - 1) / D.
	num.Add(num, sizePenaltyDenominator).Sub(num, big.NewInt(1)).Quo(num, sizePenaltyDenominator)
	if !num.IsUint64() {
		return math.MaxUint64
	}
	return num.Uint64()
}

// gasSupply is chainweb's gasSupplyOf: gas × price rounded to 12 places
// (banker's rounding), the coin contract's precision.
func gasSupply(g uint64, price eval.Decimal) eval.Decimal {
	n := eval.NewInt(int64(g))
	if g > math.MaxInt64 {
		n = eval.NewIntBig(new(big.Int).SetUint64(g))
	}
	amount := price.Mul(eval.DecimalFromInt(n))
	return amount.RoundTo(12, eval.RoundHalfEven)
}

// maxGasLimit bounds the gas limit a command runs with, so that its
// milligas and a result's gas (an int64) cannot overflow. The node's
// limits are far below it.
const maxGasLimit = math.MaxInt64 / gas.PerGas

// withGasLimit is m with the gas limit limit, clamped to maxGasLimit: the
// public metadata a command runs with when a block or local caps its limit.
func withGasLimit(m *api.PublicMeta, limit uint64) *api.PublicMeta {
	c := *m
	c.GasLimit = min(limit, maxGasLimit)
	return &c
}

// chargeConstant adds g gas to in's meter as one constant charge (the size
// charge), failing as any out-of-gas does.
func chargeConstant(in *eval.Interp, g uint64) error {
	if _, exceeded := in.Gas.Charge(gas.FromGas(g)); exceeded {
		return &eval.Error{Kind: eval.ErrGas, Msg: in.Gas.ExceededText()}
	}
	return nil
}
