package mempool

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
)

// Every reason of chainweb-api.md §6.2, with its exact text, from a transaction that fails
// only that check.
func TestCheckTexts(t *testing.T) {
	var badSigKey = key1
	cases := []struct {
		name string
		mod  func(*spec)
		env  func(*Env, *Pool, *Tx)
		step Step
		want string
	}{
		{"valid", func(*spec) {}, nil, StepNone, ""},
		{"gas limit", func(s *spec) { s.gasLimit = "150001" }, nil, StepGasLimit,
			"Transaction gas limit exceeds block gas limit (ParsedInteger 150000)"},
		{"gas limit at the limit", func(s *spec) { s.gasLimit = "150000" }, nil, StepNone, ""},
		{"gas limit a fraction", func(s *spec) { s.gasLimit = "1000.5" }, nil, StepGasLimit,
			"Transaction gas limit is not a whole number of gas from 0 to 18446744073709551615"},
		{"gas limit negative", func(s *spec) { s.gasLimit = "-1" }, nil, StepGasLimit,
			"Transaction gas limit is not a whole number of gas from 0 to 18446744073709551615"},
		{"gas limit whole in a decimal point", func(s *spec) { s.gasLimit = "1000.0" }, nil, StepNone, ""},
		{"gas limit a numeric string", func(s *spec) { s.gasLimit = `"1000"` }, nil, StepNone, ""},
		{"gas limit configured", func(s *spec) { s.gasLimit = "2001" },
			func(e *Env, _ *Pool, _ *Tx) { e.Config.BlockGasLimit = 2000 }, StepGasLimit,
			"Transaction gas limit exceeds block gas limit (ParsedInteger 2000)"},
		{"gas price places", func(s *spec) { s.gasPrice = "0.0000000000001" }, nil, StepGasPrecision,
			"insert error: This transaction's gas price: 0.0000000000001 is not correctly rounded. It should be rounded to at most 12 decimal places."},
		{"gas price places as written", func(s *spec) { s.gasPrice = `"0.1000000000000"` }, nil, StepGasPrecision,
			"insert error: This transaction's gas price: 0.1000000000000 is not correctly rounded. It should be rounded to at most 12 decimal places."},
		{"gas price 12 places", func(s *spec) { s.gasPrice = "0.000000000010" }, func(e *Env, _ *Pool, _ *Tx) {
			e.Config.MinGasPrice = DefaultMinGasPrice.Sub(DefaultMinGasPrice)
		}, StepNone, ""},
		{"gas price below minimum", func(s *spec) { s.gasPrice = "0.000000001" }, nil, StepGasPrice,
			"Transaction gas price (0.000000001) is below minimum gas price (0.00000001)"},
		{"gas price zero", func(s *spec) { s.gasPrice = "0" }, nil, StepGasPrice,
			"Transaction gas price (0) is below minimum gas price (0.00000001)"},
		{"gas price string keeps places", func(s *spec) { s.gasPrice = `"0.0000000010"` }, nil, StepGasPrice,
			"Transaction gas price (0.0000000010) is below minimum gas price (0.00000001)"},
		{"creation time 10 s ahead", func(s *spec) { s.ct = now.Unix() + 10 }, nil, StepTime,
			"Transaction creation time too far in the future"},
		{"creation time 9 s ahead", func(s *spec) { s.ct = now.Unix() + 9 }, func(e *Env, _ *Pool, _ *Tx) {
			e.ParentTime = now
		}, StepNone, ""},
		{"expired", func(s *spec) { s.ct = now.Unix() - 100; s.ttl = 100 }, nil, StepTime,
			"Transaction time-to-live is expired"},
		{"ttl zero", func(s *spec) { s.ttl = 0 }, nil, StepTime, "Transaction time-to-live is expired"},
		{"ttl negative", func(s *spec) { s.ttl = -5 }, nil, StepTime, "Transaction time-to-live is expired"},
		{"recently included", func(*spec) {}, func(_ *Env, p *Pool, tx *Tx) { p.Included([]api.Hash{tx.RequestKey}, now) },
			StepIncluded, "Transaction already exists on chain"},
		{"badlisted", func(*spec) {}, func(_ *Env, p *Pool, tx *Tx) { p.Badlist([]api.Hash{tx.RequestKey}, now) },
			StepBadlisted, "Transaction is badlisted because it previously failed to validate."},
		{"unparsable chain id", func(s *spec) { s.chain = "three" }, nil, StepMetadata, "insert error: Unparsable ChainId"},
		{"empty chain id", func(s *spec) { s.chain = "" }, nil, StepMetadata, "insert error: Unparsable ChainId"},
		{"other chain", func(s *spec) { s.chain = "4" }, nil, StepMetadata,
			"Transaction metadata (chain id, chainweb version) conflicts with this endpoint"},
		{"chain id not canonical", func(s *spec) { s.chain = "03" }, nil, StepMetadata,
			"Transaction metadata (chain id, chainweb version) conflicts with this endpoint"},
		{"too many signatures", func(s *spec) { s.extraSigs = 100 }, nil, StepMetadata, "insert error: Too many signatures"},
		{"wrong network", func(s *spec) { s.network = str("mainnet01") }, nil, StepMetadata,
			"Transaction metadata (chain id, chainweb version) conflicts with this endpoint"},
		{"no network", func(s *spec) { s.noNetwork = true }, nil, StepMetadata,
			"Transaction metadata (chain id, chainweb version) conflicts with this endpoint"},
		{"parse error", func(s *spec) { s.code = "(+ 1" }, nil, StepPact, "Pact parse error: "},
		{"on chain", func(*spec) {}, func(e *Env, _ *Pool, tx *Tx) { e.Index = indexSet{tx.RequestKey: true} },
			StepPact, "Transaction already exists on chain"},
		{"hash", func(s *spec) { s.badHash = true }, nil, StepPact, "Invalid transaction hash"},
		{"blake2s hash", func(s *spec) { s.blake2s = true }, nil, StepNone, ""},
		{"missing signature", func(s *spec) { s.sigs = []*api.KeyPair{} }, nil, StepPact,
			"Invalid transaction sigs: The number of signers and signatures do not match. Number of signers: 1. Number of signatures: 0."},
		{"extra signature", func(s *spec) { s.extraSigs = 1 }, nil, StepPact,
			"Invalid transaction sigs: The number of signers and signatures do not match. Number of signers: 1. Number of signatures: 2."},
		{"bad signature", func(s *spec) { s.sigs = []*api.KeyPair{badSigKey} }, nil, StepPact,
			"Invalid transaction sigs: The signature at position 0 is invalid: invalid ed25519 signature."},
		{"second signature bad", func(s *spec) {
			s.signers = []*api.KeyPair{key0, key1}
			s.sigs = []*api.KeyPair{key0, key0}
		}, nil, StepPact, "Invalid transaction sigs: The signature at position 1 is invalid: invalid ed25519 signature."},
		{"ahead of the parent block", func(s *spec) { s.ct = now.Unix() + 5 }, func(e *Env, _ *Pool, _ *Tx) {
			e.ParentTime = now.Add(-91 * time.Second)
		}, StepPact, "Transaction creation time too far in the future"},
		{"95 s ahead of the parent block", func(s *spec) { s.ct = now.Unix() + 5 }, func(e *Env, _ *Pool, _ *Tx) {
			e.ParentTime = now.Add(-90 * time.Second)
		}, StepNone, ""},
		{"expired at the parent block", func(s *spec) { s.ct = parent.Unix() - 100; s.ttl = 100 }, func(e *Env, _ *Pool, _ *Tx) {
			e.Now = parent.Add(-time.Second)
		}, StepPact, "Transaction time-to-live is expired"},
		{"ttl above two days", func(s *spec) { s.ttl = 172801 }, nil, StepPact, "Transaction time-to-live is expired"},
		{"ttl two days", func(s *spec) { s.ttl = 172800 }, nil, StepNone, ""},
		{"no parent: no parent checks", func(s *spec) { s.ttl = 172801 }, func(e *Env, _ *Pool, _ *Tx) {
			e.ParentTime = time.Time{}
		}, StepNone, ""},
		{"gas payer", func(*spec) {}, func(e *Env, _ *Pool, _ *Tx) {
			e.GasPayer = payerFunc(func(*api.ParsedCommand) error { return errors.New("Insufficient funds") })
		}, StepPact, `Attempt to buy gas failed with: "%s" Failed to buy gas: Insufficient funds`},
		{"too big for its gas limit", func(*spec) {}, func(e *Env, _ *Pool, _ *Tx) {
			e.GasPayer = payerFunc(func(*api.ParsedCommand) error { return ErrTxTooBig })
		}, StepPact, `Attempt to buy gas failed with: "%s" Failed to purchas gas: tx too big for gas limit`},
		{"gas payer timeout", func(*spec) {}, func(e *Env, _ *Pool, _ *Tx) {
			e.GasPayer = payerFunc(func(*api.ParsedCommand) error { return fmt.Errorf("executor: %w", ErrValidationTimedOut) })
		}, StepPact, "Transaction validation timed out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := okSpec()
			c.mod(&s)
			tx := s.tx(t)
			env, pool := testEnv(), NewPool(DefaultConfig())
			if c.env != nil {
				c.env(env, pool, tx)
			}
			v := Check(env, pool, []*Tx{tx})[0]
			want := c.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, tx.RequestKey)
			}
			if v.Step != c.step || (c.name == "parse error" && !strings.HasPrefix(v.Reason, want)) ||
				(c.name != "parse error" && v.Reason != want) {
				t.Errorf("got step %d %q\nwant step %d %q", v.Step, v.Reason, c.step, want)
			}
		})
	}
}

// A transaction that fails several checks is reported with the first in §6.2's order.
func TestCheckOrder(t *testing.T) {
	stepsOf := func(mods ...func(*spec)) (*Tx, func(*Env, *Pool, *Tx)) {
		s := okSpec()
		for _, m := range mods {
			m(&s)
		}
		return s.tx(t), nil
	}
	gasLimit := func(s *spec) { s.gasLimit = "200000" }
	places := func(s *spec) { s.gasPrice = "0.0000000000001" }
	future := func(s *spec) { s.ct = now.Unix() + 3600 }
	chain := func(s *spec) { s.chain = "7" }
	sigs := func(s *spec) { s.sigs = []*api.KeyPair{key1} }
	hash := func(s *spec) { s.badHash = true }
	parse := func(s *spec) { s.code = ")" }
	net := func(s *spec) { s.noNetwork = true }
	tooMany := func(s *spec) { s.extraSigs = 101 }
	cases := []struct {
		name   string
		mods   []func(*spec)
		bad    bool // badlisted
		inBlk  bool // recently included
		onIdx  bool
		payer  bool // gas payer refuses
		want   Step
		prefix string
	}{
		{"gas limit before everything", []func(*spec){gasLimit, places, future, chain, sigs}, true, false, true, true, StepGasLimit, "Transaction gas limit"},
		{"precision before minimum", []func(*spec){places, future}, false, false, false, false, StepGasPrecision, "insert error: This"},
		{"time before pool", []func(*spec){future, chain}, true, true, false, false, StepTime, TextTimeInFuture},
		{"included before badlisted", []func(*spec){chain, sigs}, true, true, false, false, StepIncluded, TextDuplicate},
		{"badlisted before metadata", []func(*spec){chain, sigs}, true, false, false, false, StepBadlisted, TextBadlisted},
		{"chain parse before too many sigs", []func(*spec){func(s *spec) { s.chain = "x" }, tooMany}, false, false, false, false, StepMetadata, TextUnparsableChainID},
		{"chain before too many sigs", []func(*spec){chain, tooMany, net}, false, false, false, false, StepMetadata, TextMetadataMismatch},
		{"too many sigs before network", []func(*spec){tooMany, net}, false, false, false, false, StepMetadata, TextTooManySignatures},
		{"metadata before Pact", []func(*spec){net, parse, hash}, false, false, true, true, StepMetadata, TextMetadataMismatch},
		{"parse before index", []func(*spec){parse, hash}, false, false, true, true, StepPact, "Pact parse error"},
		{"index before hash", []func(*spec){hash, sigs}, false, false, true, true, StepPact, TextDuplicate},
		{"hash before sigs", []func(*spec){hash, sigs}, false, false, false, true, StepPact, TextInvalidHash},
		{"sigs before parent time", []func(*spec){sigs, func(s *spec) { s.ttl = 200000 }}, false, false, false, true, StepPact, "Invalid transaction sigs"},
		{"parent time before gas", []func(*spec){func(s *spec) { s.ttl = 200000 }}, false, false, false, true, StepPact, TextTTLExpired},
		{"gas last", nil, false, false, false, true, StepPact, "Attempt to buy gas"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx, _ := stepsOf(c.mods...)
			env, pool := testEnv(), NewPool(DefaultConfig())
			if c.bad {
				pool.Badlist([]api.Hash{tx.RequestKey}, now)
			}
			if c.inBlk {
				pool.Included([]api.Hash{tx.RequestKey}, now)
			}
			if c.onIdx {
				env.Index = indexSet{tx.RequestKey: true}
			}
			if c.payer {
				env.GasPayer = payerFunc(func(*api.ParsedCommand) error { return errors.New("no") })
			}
			v := Check(env, pool, []*Tx{tx})[0]
			if v.Step != c.want || !strings.HasPrefix(v.Reason, c.prefix) {
				t.Errorf("got step %d %q, want step %d %q…", v.Step, v.Reason, c.want, c.prefix)
			}
		})
	}
}

// The pool's checks sit between steps 4 and 7 whichever goroutine runs Precheck.
func TestAdmitMerge(t *testing.T) {
	p := NewPool(DefaultConfig())
	tx := okSpec().tx(t)
	p.Badlist([]api.Hash{tx.RequestKey}, now)
	for _, c := range []struct {
		pre  Verdict
		want Step
	}{
		{Verdict{}, StepBadlisted},
		{fail(StepTime, TextTTLExpired), StepTime},
		{fail(StepGasLimit, "x"), StepGasLimit},
		{fail(StepMetadata, "x"), StepBadlisted},
		{fail(StepPact, "x"), StepBadlisted},
	} {
		if got := p.Admit(tx, c.pre); got.Step != c.want {
			t.Errorf("Admit(%v) = %v, want step %d", c.pre, got, c.want)
		}
	}
	var nilPool *Pool
	if got := nilPool.Admit(tx, fail(StepPact, "x")); got.Step != StepPact {
		t.Errorf("nil pool: %v", got)
	}
}

// The /send aggregate: every failed transaction, in batch order, at its batch position.
func TestRejectAggregate(t *testing.T) {
	good := okSpec().tx(t)
	s := okSpec()
	s.gasLimit = "999999"
	big := s.tx(t)
	s = okSpec()
	s.nonce = "other"
	s.chain = "5"
	wrong := s.tx(t)
	txs := []*Tx{good, big, good, wrong}
	vs := Check(testEnv(), nil, txs)
	err := Reject(txs, vs)
	want := `One or more transactions were invalid: Transaction "` + big.RequestKey.String() +
		`" at index 1 failed with: Transaction gas limit exceeds block gas limit (ParsedInteger 150000), Transaction "` +
		wrong.RequestKey.String() + `" at index 3 failed with: Transaction metadata (chain id, chainweb version) conflicts with this endpoint`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	var be *BatchError
	if !errors.As(err, &be) || len(be.Failures) != 2 || be.Failures[1].Index != 3 {
		t.Errorf("failures %+v", be)
	}
	if msg, ok := IsRejection(fmt.Errorf("send: %w", err)); !ok || msg != want {
		t.Errorf("IsRejection: %q %v", msg, ok)
	}
	if err := Reject([]*Tx{good, good}, Check(testEnv(), nil, []*Tx{good, good})); err != nil {
		t.Errorf("a batch repeating a good transaction: %v", err)
	}
}

func TestDecode(t *testing.T) {
	good := okSpec().command()
	bad := &api.Command{Hash: api.HashBytes([]byte("{}")), Cmd: "{}"}
	_, err := Decode([]*api.Command{good, bad})
	var de *DecodeError
	if !errors.As(err, &de) || de.Index != 1 || !strings.HasPrefix(err.Error(), "reading JSON for transaction failed: ") {
		t.Fatalf("got %v", err)
	}
	if msg, ok := IsRejection(err); !ok || msg != err.Error() {
		t.Errorf("IsRejection: %q %v", msg, ok)
	}
	priv := `{"networkId":null,"payload":{"exec":{"data":null,"code":"1"}},"signers":[],"meta":{"address":{"from":"a","to":["b"]}},"nonce":""}`
	if _, err := Decode([]*api.Command{{Hash: api.HashBytes([]byte(priv)), Cmd: priv}}); err == nil ||
		!strings.Contains(err.Error(), "private metadata") {
		t.Errorf("private meta: %v", err)
	}
	txs, err := Decode([]*api.Command{good})
	if err != nil || txs[0].Key() != good.Hash || txs[0].Meta.ChainID != "3" {
		t.Errorf("decode: %v %+v", err, txs)
	}
	if _, ok := IsRejection(errors.New("x")); ok {
		t.Error("IsRejection of a plain error")
	}
}

func TestParsesAsChainID(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "19": true, " 3 ": true, "(3)": true, "( (3) )": true, "-1": true, "- 1": true,
		"0x1f": true, "0X1F": true, "0o17": true, "007": true, "99999999999999999999": true,
		"": false, "x": false, "3.0": false, "1e1": false, "0x": false, "0o8": false, "(3": false,
		"3)": false, "--1": false, "-(1)": false, "+1": false, "0b1": false, "1 2": false, "٣": false,
	} {
		if got := parsesAsChainID(s); got != want {
			t.Errorf("parsesAsChainID(%q) = %v", s, got)
		}
	}
}

func TestPrecheckFillsCode(t *testing.T) {
	s := okSpec()
	s.blake2s = true
	tx := s.tx(t)
	if v := Precheck(testEnv(), tx); !v.OK() || tx.Code == nil || tx.HashAlg != api.BLAKE2s256 {
		t.Errorf("verdict %v code %v alg %v", v, tx.Code, tx.HashAlg)
	}
}

// countingIndex is a BatchTxIndex that counts how it is asked.
type countingIndex struct {
	in          map[api.Hash]bool
	one, batchs int
}

func (c *countingIndex) Contains(rk api.Hash) bool { c.one++; return c.in[rk] }
func (c *countingIndex) ContainsAll(rks []api.Hash) []bool {
	c.batchs++
	out := make([]bool, len(rks))
	for i, rk := range rks {
		out[i] = c.in[rk]
	}
	return out
}

// A batch's request keys are looked up in the index once, together; the answers are the
// index's, and a key outside the batch is still asked of the index.
func TestAnsweredIndexAsksOnce(t *testing.T) {
	a, b, c := api.HashBytes([]byte("a")), api.HashBytes([]byte("b")), api.HashBytes([]byte("c"))
	idx := &countingIndex{in: map[api.Hash]bool{b: true, c: true}}
	env := &Env{Index: idx}
	txs := []*Tx{{ParsedCommand: api.ParsedCommand{RequestKey: a}}, {ParsedCommand: api.ParsedCommand{RequestKey: b}}}
	answered := AnsweredIndex(env, txs)
	if answered.Index.Contains(a) || !answered.Index.Contains(b) || !answered.Index.Contains(b) {
		t.Error("the answers are not the index's")
	}
	if idx.batchs != 1 || idx.one != 0 {
		t.Errorf("asked %d batches and %d single keys, want 1 and 0", idx.batchs, idx.one)
	}
	if !answered.Index.Contains(c) || idx.one != 1 {
		t.Errorf("a key outside the batch: asked %d times", idx.one)
	}
	if env.Index != idx {
		t.Error("AnsweredIndex changed the Env it was given")
	}
	if AnsweredIndex(env, txs[:1]) != env {
		t.Error("a batch of one is looked up as before")
	}
}
