package ledger

import "encoding/json"

// MinerData is the miner-data JSON of a block: who is paid for it, in the shape upstream
// writes ({"account":…,"predicate":"keys-all","public-keys":[…]}, keys as lowercase hex). The
// key order is fixed so that the bytes, and hence the payload hash, are the same on every node.
func MinerData(account string, publicKeys ...string) []byte {
	return MinerDataWith(account, "keys-all", publicKeys)
}

// MinerDataWith is the miner data of account with its keys and predicate, in upstream's field
// order ("public-keys" an empty list rather than null).
func MinerDataWith(account, predicate string, publicKeys []string) []byte {
	if publicKeys == nil {
		publicKeys = []string{} // "public-keys":[] rather than null
	}
	b, _ := json.Marshal(struct { // strings and a string slice always marshal
		Account    string   `json:"account"`
		Predicate  string   `json:"predicate"`
		PublicKeys []string `json:"public-keys"`
	}{account, predicate, publicKeys})
	return b
}

// EmptyPayload is the payload of a mined block without transactions: the miner data and the
// same synthetic coinbase output as EmptyGenesisPayload, since there is no Pact execution to
// produce a real one yet.
func EmptyPayload(minerData []byte) *PayloadWithOutputs {
	return NewPayloadWithOutputs(minerData, NoCoinbaseOutput(), nil)
}
