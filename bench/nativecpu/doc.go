// Command nativecpu measures each Pact native's CPU time per unit of gas it
// is charged, over growing inputs, as a ratio to a coin transfer's: issue
// 30's requirement that no native's CPU per gas grow with the size of its
// input or sit far above a transfer's.
//
// Each sweep grows one input of one native (integers to the interpreter's
// 2^20-bit bound, strings and lists to a million elements, objects wide and
// deep, decimals with 255 places and long mantissas). A point builds its
// inputs as REPL defconsts under the free model, then times the expression
// alone under Pact 5's table model (a reference to a top-level defconst
// costs nothing, so the meter holds exactly the expression's charges, in
// milligas). The baseline is a coin transfer (internal/pactbench's buy-gas,
// transfer, redeem-gas) timed in the same run, at the start, every twenty
// sweeps and at the end; its median is the table's unit.
//
// Usage, from the repository root:
//
//	go run ./bench/nativecpu                      # every sweep (several minutes)
//	go run ./bench/nativecpu -run 'int-to-str|sort' -max 100000
//	go run ./bench/nativecpu -programs            # the done-when programs at 150,000 gas
//	go test ./bench/nativecpu -run '^$' -bench . # smallest and largest size of each sweep
//
// Files:
//   - main.go: flags, the sweep loop and the tables;
//   - cases.go: the sweeps, their inputs and sizes;
//   - measure.go: preparing a point and timing it;
//   - programs.go: the done-when programs;
//   - nativecpu_test.go: the go test benchmarks, and tests that every sweep
//     evaluates.
package main
