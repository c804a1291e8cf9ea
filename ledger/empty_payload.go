package ledger

import "crypto/sha512"

// NoMinerData is the miner data of blocks that pay no miner (genesis blocks).
var NoMinerData = []byte(`{"account":"NoMiner","predicate":"<","public-keys":[]}`)

// NoCoinbaseOutput is the coinbase output of a block without a coinbase transaction. Its request
// key is derived from the text "NO_COINBASE" so that it is stable and obviously synthetic.
func NoCoinbaseOutput() []byte {
	key := Hash(sha512.Sum512_256([]byte("NO_COINBASE")))
	return []byte(`{"gas":0,"result":{"status":"success","data":"NO_COINBASE"},"reqKey":"` + key.String() +
		`","logs":null,"metaData":null,"continuation":null,"txId":null}`)
}

// EmptyGenesisPayload is a payload with no transactions, no miner and no coinbase: the genesis
// payload of a network whose genesis deploys nothing.
func EmptyGenesisPayload() *PayloadWithOutputs {
	return NewPayloadWithOutputs(NoMinerData, NoCoinbaseOutput(), nil)
}
