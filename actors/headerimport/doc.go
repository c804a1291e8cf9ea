// Package headerimport is header import (ledger-node import-headers): headers read from a file
// stored into a data directory no node runs on, validated as the chain actors (package actors)
// validate a header, with pow's rules over the parents ParentsOf finds, minus their need for
// parents and payloads (an import file starts mid-chain and carries no payloads). It is a
// pipeline (import.go): block hashes on every core, headers taken in height order, batched
// writes. ParentsOf and Stored are the parent lookup the chain actors share with it.
package headerimport
