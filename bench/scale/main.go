// Command scale measures the node at mainnet scale (issue 37): it generates a braided 20-chain
// history of N headers quickly and measures what grows with N.
//
//	go run ./bench/scale gen [-network development|mainnet01] -n 1000000 -out /tmp/scale-1m.b64
//
// writes N headers (rounded down to whole levels of 20), one base64url header a line (the text
// import-headers reads). Every header is made by pow.NewHeader from its parent and adjacent
// parents, so the braid, heights, weights, epochs and the difficulty adjustment are the rules';
// creation times are 30 s apart per chain, moved by up to ±10 s each; the 20 headers of a level
// are built on all cores (1M in about 7 s).
//
//   - development: above the development genesis, PoW disabled, for
//     `ledger-node import-headers --network development --disable-pow --data-dir DIR FILE`.
//     A development node cannot serve such a store: it replays every block's payload into the
//     Pact state at start, and the file has no payloads.
//   - mainnet01: above 20 made-up roots at height 1,000,000 (today's graph and rules) with the
//     maximum target, so PoW is checked but every nonce meets it; imported with --network
//     mainnet01, served and checked without Pact. `scale run` uses this one.
//
// The measurements:
//
//	go run ./bench/scale run -n 1000000 [-in FILE] [-bin ./bin/ledger-node] [-work /tmp/scale]
//
// generates the file (or reuses -in), then runs the binary (default: built from the tree) and
// measures: import-headers end to end against the bare merkle rate (ComputeHash on one goroutine
// over the file's headers, as bench/headercheck) measured before and after it; bytes on disk
// per header; start-up to a 200 /health-check, with the page cache dropped and warm; the node's
// RSS after a warm-up of random GET header/{hash}; GET header p50/p99 warm (the store read once
// into the page cache first) and after dropping
// the page cache, each as a ratio to a constant fasthttp body of the same size served by
// another process (`scale const`), both servers on CPU 0 and the load generator on CPU 1;
// branch queries at depth 1k, 10k and 100k; `check` time and peak RSS. Catch-up is left out
// (catchupNote says why). It prints one JSON line last.
//
//	go run ./bench/scale plot -out docs/scale.svg before=RUNS.txt after=RUNS.txt
//
// draws import rate, node RSS and start-up time against N from the outputs of earlier runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/ledgernode/ledger-node/ledger"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = genMain(os.Args[2:])
	case "run":
		err = runMain(os.Args[2:])
	case "const":
		err = constMain(os.Args[2:])
	case "plot":
		err = plotMain(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: scale gen -n N -out FILE | scale run -n N [flags] | scale plot -out FILE.svg LABEL=RUNS...")
	os.Exit(2)
}

func genMain(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 1_000_000, "headers to generate (rounded down to whole levels of 20 chains)")
	out := fs.String("out", "", "output file (base64url headers, one a line)")
	delay := fs.Duration("block-delay", 30*time.Second, "the development network's block delay (the node's --block-delay)")
	network := fs.String("network", "development", "development (PoW disabled, import only: a development node replays every block's payload, which the file lacks) "+
		"or mainnet01 (made-up roots at height 1,000,000 at the maximum target: import, serve, check)")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("gen needs -out FILE")
	}
	_, err := genFile(*out, *n, *network, *delay)
	return err
}

// genFile writes n headers of network to path and reports how long it took.
func genFile(path string, n int, network string, delay time.Duration) (int, error) {
	v, base, writeBase, err := genBase(network, delay)
	if err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	levels := n / len(v.Chains())
	if writeBase {
		levels-- // the roots are a level of the file
	}
	written, err := generate(f, v, base, genOptions{Levels: levels, Jitter: time.Duration(v.BlockDelay) * time.Microsecond / 3,
		WriteBase: writeBase, Workers: runtime.GOMAXPROCS(0)})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return written, err
	}
	el := time.Since(start)
	st, _ := os.Stat(path)
	fmt.Printf("generated %d %s headers (%d levels) into %s in %s (%.0f headers/s, %.1f MiB)\n",
		written, v.Name, written/len(v.Chains()), path, el.Round(time.Millisecond), float64(written)/el.Seconds(), float64(st.Size())/(1<<20))
	return written, nil
}

// genBase is the version a file of network is generated for, the headers it starts on, and
// whether they go into the file.
func genBase(network string, delay time.Duration) (v *ledger.Version, base []*ledger.Header, writeBase bool, err error) {
	switch network {
	case "development":
		v = devVersion(delay)
		g, err := devGenesis(v)
		if err != nil {
			return nil, nil, false, err
		}
		return v, g.Headers, false, nil
	case "mainnet01":
		return ledger.Mainnet01, mainnetRoots(ledger.Mainnet01, mainnetRootHeight), true, nil
	}
	return nil, nil, false, fmt.Errorf("network %q: development or mainnet01", network)
}
