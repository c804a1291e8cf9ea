package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// On-demand mining pays the miner the mining API names (devnet passes --mining-public-key and
// no miner of the built-in miner's), as devnet's on-demand mining client did; an explicit miner
// wins; the continuous miner keeps NoMiner without one.
func TestOnDemandPaysTheConfiguredMiner(t *testing.T) {
	key := strings.Repeat("ab", 32)
	other := strings.Repeat("cd", 32)
	type md struct {
		Account    string   `json:"account"`
		Predicate  string   `json:"predicate"`
		PublicKeys []string `json:"public-keys"`
	}
	for _, tc := range []struct {
		args []string
		want md
	}{
		{[]string{"--mining", "on-demand", "--enable-mining-coordination", "--mining-public-key", key},
			md{"k:" + key, "keys-all", []string{key}}},
		{[]string{"--mining", "on-demand", "--enable-mining-coordination", "--mining-public-key", key, "--miner-key", other},
			md{"k:" + other, "keys-all", []string{other}}},
		{[]string{"--mining", "pow", "--enable-mining-coordination", "--mining-public-key", key},
			md{"NoMiner", "<", []string{}}},
		{[]string{"--mining", "on-demand"}, md{"NoMiner", "<", []string{}}},
	} {
		cfg, _, err := loadConfig(append(tc.args, "--data-dir", t.TempDir()), &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		var got md
		if err := json.Unmarshal(cfg.Mining.minerData(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Account != tc.want.Account || got.Predicate != tc.want.Predicate || strings.Join(got.PublicKeys, ",") != strings.Join(tc.want.PublicKeys, ",") {
			t.Errorf("%v: miner data %+v, want %+v", tc.args, got, tc.want)
		}
	}
	withPred := MinerID{Account: "alice", PublicKeys: []string{key}, Predicate: "keys-any"}
	if got := string(withPred.minerData()); got != `{"account":"alice","predicate":"keys-any","public-keys":["`+key+`"]}` {
		t.Errorf("miner data %s", got)
	}
}
