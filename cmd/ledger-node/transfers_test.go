package main

import (
	"encoding/json"
	"testing"

	"github.com/ledgernode/ledger-node/internal/devtx"
	"github.com/ledgernode/ledger-node/internal/hangguard"
)

// The index of transfers by account on a running node: a mined transfer is listed under its
// sender and its receiver, and still is after a restart on the same data directory.
func TestAccountTransfersSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--mining", "on-demand", "--disable-pow",
		"--on-demand-idle-period", "0", "--miner-key", devMinerKey}
	n := startNodeOpts(t, nodeOptions{workers: 2}, args...)
	cmd := devtx.Transfer("sender00", "sender01", "2.25", "3").Build()
	send(t, n.url, 3, cmd)
	hangguard.Until(t, "the transfer mined", func() bool { _, ok := pollOne(t, n.url, 3, cmd); return ok })

	type item struct {
		Chain      int     `json:"chain"`
		Height     uint64  `json:"height"`
		BlockHash  string  `json:"blockHash"`
		RequestKey string  `json:"requestKey"`
		Module     string  `json:"module"`
		From       string  `json:"from"`
		To         string  `json:"to"`
		Amount     string  `json:"amount"`
		CrossChain *string `json:"crossChain"`
	}
	find := func(base, account string) *item {
		t.Helper()
		var page struct {
			Items []item  `json:"items"`
			Next  *string `json:"next"`
		}
		body := get(t, base+"/chainweb/0.0/development/account/"+account+"/transfers?limit=100", "")
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		for _, it := range page.Items {
			if it.RequestKey == cmd.Hash.String() && it.From == "sender00" && it.To == "sender01" {
				return &it
			}
		}
		return nil
	}
	var before *item
	for _, account := range []string{"sender00", "sender01"} {
		it := find(n.url, account)
		if it == nil || it.Chain != 3 || it.Module != "coin" || it.Amount != "2.25" || it.CrossChain != nil || it.Height == 0 {
			t.Fatalf("%s's transfers hold %+v", account, it)
		}
		before = it
	}
	n.stop()

	again := startNodeOpts(t, nodeOptions{workers: 2}, append(args[:len(args):len(args)], "--mining", "off")...)
	defer again.stop()
	if it := find(again.url, "sender01"); it == nil || *it != *before {
		t.Fatalf("after the restart sender01's transfer is %+v, was %+v", it, before)
	}
}
