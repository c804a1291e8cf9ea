package mempool

import (
	"slices"
	"testing"
	"time"

	"github.com/ledgernode/ledger-node/pact/api"
)

func TestPreflight(t *testing.T) {
	all := func(s *spec) {
		s.chain = "4"
		s.gasLimit = "150001"
		s.gasPrice = "0.0000000000001"
		s.noNetwork = true
		s.extraSigs = 101
		s.ct = parent.Unix() - 10
		s.ttl = 10
	}
	cases := []struct {
		name       string
		mod        func(*spec)
		verifySigs bool
		env        func(*Env)
		want       []string
	}{
		{"valid", func(*spec) {}, true, nil, nil},
		{"future creation time is no error", func(s *spec) { s.ct = now.Unix() + 3600 }, true, nil, nil},
		{"every check, in order", all, true, nil, []string{
			"Chain id mismatch", "Transaction Gas limit exceeds block gas limit", "Gas price decimal precision too high",
			"Network id mismatch", "Signature list size too big", "Invalid transaction signatures",
			"Tx time outside of valid range"}},
		{"signature check off", all, false, nil, []string{
			"Chain id mismatch", "Transaction Gas limit exceeds block gas limit", "Gas price decimal precision too high",
			"Network id mismatch", "Signature list size too big", "Tx time outside of valid range"}},
		{"wrong network", func(s *spec) { s.network = str("testnet04") }, true, nil, []string{"Network id mismatch"}},
		{"bad signature", func(s *spec) { s.sigs = []*api.KeyPair{key1} }, true, nil, []string{"Invalid transaction signatures"}},
		{"ttl zero", func(s *spec) { s.ttl = 0 }, true, nil, []string{"Tx time outside of valid range"}},
		{"ttl too long", func(s *spec) { s.ttl = 172801 }, true, nil, []string{"Tx time outside of valid range"}},
		{"negative creation time", func(s *spec) { s.ct = -1; s.ttl = 172800 }, true, func(e *Env) {
			e.ParentTime = time.Unix(0, 0).Add(time.Hour)
		}, []string{"Tx time outside of valid range"}},
		{"no parent, no time check", func(s *spec) { s.ttl = 0 }, true, func(e *Env) { e.ParentTime = time.Time{} }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := okSpec()
			c.mod(&s)
			tx := s.tx(t)
			env := testEnv()
			if c.env != nil {
				c.env(env)
			}
			if got := Preflight(env, &tx.ParsedCommand, c.verifySigs); !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestPreflightPrivateMeta(t *testing.T) {
	cmd := `{"networkId":"development","payload":{"exec":{"data":null,"code":"1"}},"signers":[],"meta":{"address":null},"nonce":""}`
	c := &api.Command{Hash: api.HashBytes([]byte(cmd)), Cmd: cmd}
	pc, err := api.ParseCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := Preflight(testEnv(), pc, true); got != nil {
		t.Errorf("got %q", got)
	}
}
