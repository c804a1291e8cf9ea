package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ledgernode/ledger-node/pact/gas"
	"github.com/ledgernode/ledger-node/pact/repl"
)

// The programs of issue 30's "done when": each must finish within 3 s at a
// gas limit of 150,000, or fail with the gas error quickly. Each builds its
// own input, as a transaction would, and the whole program is timed.
var programs = []struct{ name, src string }{
	{"int-to-str 2 of 2^1000000", "(int-to-str 2 (^ 2 1000000))"},
	{"int-to-str 10 of 2^1000000", "(int-to-str 10 (^ 2 1000000))"},
	{"int-to-str 16 of 2^1000000", "(int-to-str 16 (^ 2 1000000))"},
	{"int-to-str 64 of 2^1000000", "(int-to-str 64 (^ 2 1000000))"},
	{"int-to-str 2 of 2^700000", "(int-to-str 2 (^ 2 700000))"},
	{"int-to-str 7 of 3^600000", "(int-to-str 7 (^ 3 600000))"},
	{"str-to-int of 200,000 digits", "(str-to-int (concat (make-list 200000 \"7\")))"},
	{"str-to-int 16 of 200,000 digits", "(str-to-int 16 (concat (make-list 200000 \"7\")))"},
	{"str-to-int 64 of 200,000 chars", "(str-to-int 64 (concat (make-list 200000 \"A\")))"},
	{"str-to-int of a 200,000-digit literal", "(str-to-int \"" + strings.Repeat("7", 200_000) + "\")"},
	{"read-integer of 300,000 digits", "(read-integer \"big\")"},
	{"format of 2^1000000", "(format \"{}\" [(^ 2 1000000)])"},
	{"format of 3^600000", "(format \"x{}y\" [(^ 3 600000)])"},
	{"hash of 2^1000000", "(hash (^ 2 1000000))"},
	{"hash of 3^600000", "(hash (^ 3 600000))"},
	{"show of 3^600000", "(show (^ 3 600000))"},
	{"sort of 100,000 integers, reversed", "(sort (reverse (enumerate 1 100000)))"},
	{"sort of 90,000 integers, scrambled", "(sort (map (lambda (i) (mod (* i 7919) 90000)) (enumerate 1 90000)))"},
	{"sort of 70,000 strings", "(sort (map (int-to-str 10) (enumerate 1 70000)))"},
	{"str-to-list of 100,000 chars", "(str-to-list (concat (make-list 100000 \"a\")))"},
	{"str-to-list of 100,000 mixed chars", "(str-to-list (concat (make-list 10000 \"aé€😀bcdefg\")))"},
}

// loops spend a transaction's gas on natives P5 prices without regard to
// their input's size, or far below their cost: each loop runs a fixed
// count over inputs its setup built (REPL defconsts, timed and charged
// apart), and the table shows what 150,000 gas of the loop alone takes. A
// faster implementation cannot fix these at P5's prices.
var loops = []struct{ name, setup, loop string }{
	{"mod of a 158k-bit by a 56k-bit integer", "(defconst X (^ 3 100000)) (defconst Y (^ 7 20000))",
		"(fold (lambda (a i) (mod X Y)) 0 (enumerate 1 2000))"},
	{"abs of a -1M-bit integer", "(defconst X (- 0 (shift 1 1000000)))",
		"(fold (lambda (a i) (abs X)) 0 (enumerate 1 2000))"},
	{"(+ 1 x) of a -1M-bit integer", "(defconst X (- 0 (shift 1 1000000)))",
		"(fold (lambda (a i) (+ 1 X)) 0 (enumerate 1 2000))"},
	{"drop 500000 of a 1M-char string", `(defconst S (concat (make-list 100000 "aé€😀bcdefg")))`,
		`(fold (lambda (a i) (drop 500000 S)) "" (enumerate 1 2000))`},
	{"length of a 1M-char string", `(defconst S (concat (make-list 100000 "aé€😀bcdefg")))`,
		"(fold (lambda (a i) (length S)) 0 (enumerate 1 2000))"},
	{"sort 10,000 objects by a field", "(defconst OS (map (lambda (i) {'a: (mod (* i 7919) 10000)}) (enumerate 1 10000)))",
		"(fold (lambda (a i) (sort ['a] OS)) [] (enumerate 1 100))"},
	{"pairing-check of one pair", `(defconst P1 [{'x: 1, 'y: 2}])
(defconst P2 [{'x: [10857046999023057135944570762232829481370756359578518086990519993285655852781,
                    11559732032986387107991004021392285783925812861821192530917403151452391805634],
               'y: [8495653923123431417604973247489272438418190587263600148770280649306958101930,
                    4082367875863433681332203403145435568316851327593401208105741076214120093531]}])`,
		"(fold (lambda (a i) (pairing-check P1 P2)) true (enumerate 1 200))"},
}

// runPrograms times each program from a fresh interpreter, rounds times,
// and prints the median time with the gas used or the error.
func runPrograms(w io.Writer, rounds int) {
	fmt.Fprintf(w, "%-40s %10s %10s  %s\n", "program (gas limit 150,000)", "median", "gas", "result")
	for _, p := range programs {
		var times []float64
		var used gas.MilliGas
		var outcome string
		for range max(rounds, 1) {
			r := repl.New(io.Discard)
			r.In.Data = msg(bigDigits("big", 300_000))
			r.In.Gas = gas.NewMeter(gas.Table, gas.FromGas(150_000))
			start := time.Now()
			_, err := r.EvalSource("program.repl", p.src, true)
			times = append(times, float64(time.Since(start).Nanoseconds()))
			used = r.In.Gas.Used()
			outcome = "ok"
			if err != nil {
				outcome = firstLine(repl.FormatError(err), 70)
			}
		}
		fmt.Fprintf(w, "%-40s %9.3fs %10d  %s\n", p.name, median(times)/1e9, used.Gas(), outcome)
	}
	fmt.Fprintf(w, "\n%-40s %10s %10s %14s\n", "flat-priced native in a loop", "time", "gas", "150,000 gas")
	for _, p := range loops {
		r := repl.New(io.Discard)
		if _, err := r.EvalSource("setup.repl", p.setup, true); err != nil {
			fmt.Fprintf(w, "%-40s setup: %s\n", p.name, firstLine(repl.FormatError(err), 70))
			continue
		}
		r.In.Gas = gas.NewMeter(gas.Table, gas.FromGas(1_000_000))
		start := time.Now()
		_, err := r.EvalSource("loop.repl", p.loop, true)
		took := time.Since(start)
		used := r.In.Gas.Used()
		if err != nil {
			fmt.Fprintf(w, "%-40s error: %s\n", p.name, firstLine(repl.FormatError(err), 70))
			continue
		}
		fmt.Fprintf(w, "%-40s %9.3fs %10d %13.1fs\n", p.name, took.Seconds(), used.Gas(),
			took.Seconds()*150_000/(float64(used)/1000))
	}
}
