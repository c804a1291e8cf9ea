// Command scale measures the node at mainnet scale (issue 37): it generates a braided 20-chain
// development history of N headers and measures what grows with it.
//
//	go run ./bench/scale gen -n 1000000 -out /tmp/scale-1m.b64
//
// writes N headers (rounded down to whole levels of 20) above the development genesis, one
// base64url header a line, for
//
//	ledger-node import-headers --network development --disable-pow --data-dir DIR FILE
//
// Generation is quick because PoW is disabled (the version skips the PoW rule; everything
// else, the braid, heights, weights, epochs and the difficulty adjustment, is real): creation
// times are 30 s apart per chain (the default block delay), moved by up to ±10 s each, and the
// 20 headers of a level are built on all cores.
//
//	go run ./bench/scale run -n 1000000 [-bin ./bin/ledger-node] [-work /tmp/scale]
//
// generates (or reuses -in FILE), then runs the built binary and measures: import-headers end to
// end against the bare merkle rate (ComputeHash on one goroutine, as bench/headercheck) in the
// same run; bytes on disk per header; start-up to a 200 /health-check; the node's RSS after a
// warm-up of random GET header/{hash}; GET header p50/p99 warm and after dropping the page cache,
// each as a ratio to a constant fasthttp body of the same size; branch queries at depth; `check`
// time and peak memory; catch-up of a fresh node from the first. It prints one JSON line last.
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
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: scale gen -n N -out FILE | scale run -n N [flags]")
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
