package mempool

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
)

// Test transactions: signed commands built from a spec, so each test changes one field.

var (
	key0 = mustKey("0000000000000000000000000000000000000000000000000000000000000001")
	key1 = mustKey("0000000000000000000000000000000000000000000000000000000000000002")

	now    = time.Unix(1_700_000_000, 0)
	parent = now.Add(-20 * time.Second)
)

func mustKey(seed string) *api.KeyPair {
	k, err := api.KeyPairFromHex(seed)
	if err != nil {
		panic(err)
	}
	return k
}

type spec struct {
	chain     string
	network   *string // nil: "development"; point at "" … for other values
	noNetwork bool
	gasLimit  string // JSON number text
	gasPrice  string // JSON text: a number or a quoted string
	ct, ttl   int64
	code      string
	nonce     string
	signers   []*api.KeyPair
	sigs      []*api.KeyPair // nil: signers; the signing keys in order
	extraSigs int            // placeholder sigs appended
	badHash   bool
	blake2s   bool
}

func okSpec() spec {
	return spec{chain: "3", gasLimit: "1000", gasPrice: "0.00000001", ct: now.Unix() - 60, ttl: 3600,
		code: "(+ 1 2)", nonce: "n", signers: []*api.KeyPair{key0}}
}

func str(s string) *string { return &s }

func (s spec) command() *api.Command {
	var b strings.Builder
	b.WriteString(`{"networkId":`)
	switch {
	case s.noNetwork:
		b.WriteString("null")
	case s.network != nil:
		b.WriteString(strconv.Quote(*s.network))
	default:
		b.WriteString(`"development"`)
	}
	b.WriteString(`,"payload":{"exec":{"data":null,"code":` + strconv.Quote(s.code) + `}},"signers":[`)
	for i, k := range s.signers {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"pubKey":"` + k.PublicHex() + `"}`)
	}
	b.WriteString(`],"meta":{"creationTime":` + strconv.FormatInt(s.ct, 10) + `,"ttl":` + strconv.FormatInt(s.ttl, 10) +
		`,"gasLimit":` + s.gasLimit + `,"chainId":` + strconv.Quote(s.chain) + `,"gasPrice":` + s.gasPrice +
		`,"sender":"sender00"},"nonce":` + strconv.Quote(s.nonce) + `}`)
	cmd := b.String()
	h := api.HashBytes([]byte(cmd))
	if s.blake2s {
		h = api.HashBytesBLAKE2s([]byte(cmd))
	}
	if s.badHash {
		h[0] ^= 1
	}
	c := &api.Command{Hash: h, Cmd: cmd}
	signing := s.sigs
	if signing == nil {
		signing = s.signers
	}
	for _, k := range signing {
		c.Sigs = append(c.Sigs, k.SignHash(h))
	}
	for range s.extraSigs {
		c.Sigs = append(c.Sigs, api.UserSig{Sig: strings.Repeat("00", 64)})
	}
	return c
}

func (s spec) tx(t testing.TB) *Tx {
	t.Helper()
	txs, err := Decode([]*api.Command{s.command()})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return txs[0]
}

func testEnv() *Env {
	return &Env{Config: DefaultConfig(), Chain: 3, Network: "development", Now: now, ParentTime: parent}
}

type payerFunc func(*api.ParsedCommand) error

func (f payerFunc) CanPay(pc *api.ParsedCommand) error { return f(pc) }

type indexSet map[api.Hash]bool

func (s indexSet) Contains(h api.Hash) bool { return s[h] }
