#!/bin/sh
# Instructions a go test benchmark executes per iteration, counted by cachegrind: the same
# figure on a busy machine as on a quiet one, for judging changes smaller than the machine's
# timing noise. The difference of a 3000x and a 1000x run, divided by 2000, leaves setup out;
# GOGC=off leaves the collector out (its share moves with the machine, not the code).
#
#   bench/instructions.sh X.test [Y.test ...]       (from the benchmark's package directory)
#
# BENCH (default TransferWithGas/table) selects the benchmark. Needs valgrind.
set -eu
bench=${BENCH:-TransferWithGas/table}
count() {
	GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$1" -test.run XXX -test.bench "$bench" -test.benchtime "$2x" 2>&1 |
		awk '/I +refs/ { gsub(",", "", $4); print $4 }'
}
for x in "$@"; do
	lo=$(count "$x" 1000) hi=$(count "$x" 3000)
	echo "$x $(((hi - lo) / 2000)) instructions/op"
done
