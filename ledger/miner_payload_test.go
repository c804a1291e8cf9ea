package ledger

import "testing"

func TestMinerData(t *testing.T) {
	key := "368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca"
	if got, want := string(MinerData("k:"+key, key)),
		`{"account":"k:`+key+`","predicate":"keys-all","public-keys":["`+key+`"]}`; got != want {
		t.Fatalf("MinerData = %s\nwant        %s", got, want)
	}
	if got, want := string(MinerData("alice")), `{"account":"alice","predicate":"keys-all","public-keys":[]}`; got != want {
		t.Fatalf("MinerData without keys = %s, want %s", got, want)
	}
}

func TestEmptyPayload(t *testing.T) {
	p := EmptyPayload(MinerData("alice"))
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	if len(p.Transactions) != 0 || string(p.MinerData) != string(MinerData("alice")) {
		t.Fatalf("payload %+v", p)
	}
	g := EmptyGenesisPayload()
	if string(p.Coinbase) != string(g.Coinbase) || p.OutputsHash != g.OutputsHash || p.PayloadHash == g.PayloadHash {
		t.Fatal("an empty mined payload shares the genesis coinbase and differs only by its miner data")
	}
}
