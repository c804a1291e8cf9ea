package chain

import (
	"reflect"
	"testing"
)

func TestTransfersOfOutput(t *testing.T) {
	out := []byte(`{"gas":1,"result":{"status":"success","data":"x"},"reqKey":"RK","logs":null,"events":[` +
		`{"params":["a","miner",0.0000001],"name":"TRANSFER","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":["a","b",{"decimal":"123456789012345678.123456789012"}],"name":"TRANSFER","module":{"namespace":"free","name":"tok"},"moduleHash":"h"},` +
		`{"params":["a","b",1.5,"3"],"name":"TRANSFER_XCHAIN","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":["a","b",1.5,"3"],"name":"TRANSFER_XCHAIN","module":{"namespace":null,"name":"fake"},"moduleHash":"h"},` +
		`{"params":["a","b"],"name":"TRANSFER","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":[1,"b",1.0],"name":"TRANSFER","module":{"namespace":null,"name":"coin"},"moduleHash":"h"},` +
		`{"params":["a","b",{"int":7}],"name":"TRANSFER","module":{"namespace":null,"name":"nft"},"moduleHash":"h"},` +
		`{"params":["a","b",1.0],"name":"OTHER","module":{"namespace":null,"name":"coin"},"moduleHash":"h"}` +
		`],"metaData":null,"continuation":null,"txId":1}`)
	got := transfersOf(out)
	want := []Transfer{
		{RequestKey: "RK", Module: "coin", From: "a", To: "miner", Amount: "0.0000001"},
		{RequestKey: "RK", Module: "free.tok", From: "a", To: "b", Amount: "123456789012345678.123456789012"},
		{RequestKey: "RK", Module: "coin", From: "a", To: "b", Amount: "1.5", TargetChain: "3"},
		{RequestKey: "RK", Module: "nft", From: "a", To: "b", Amount: "7"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{``, `{`, `{"events":"TRANSFER"}`, `[1,2]`} {
		if ts := transfersOf([]byte(bad)); ts != nil {
			t.Errorf("%q: %+v", bad, ts)
		}
	}
}
