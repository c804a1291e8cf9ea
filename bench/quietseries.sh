#!/bin/sh
# Waits for a quiet stretch of a noisy machine, then times two builds of one go test benchmark
# in alternating runs: a direct series, for a bound stated in absolute time. Every PAUSE seconds
# it runs the baseline once; when that run takes at most QUIET ns/op (the baseline's figure on a
# quiet machine), it runs SERIES alternating pairs, prints them with their medians, and stops.
# It gives up after TRIES probes.
#
#   QUIET=31000 bench/quietseries.sh BASE.test NEW.test     (from the benchmark's package directory)
#
# BENCH (default TransferWithGas/table) selects the benchmark, N (default 20000) its iterations
# per run; SERIES (default 6), PAUSE (default 45) and TRIES (default 120) as above.
set -eu
base=$1 new=$2
bench=${BENCH:-TransferWithGas/table} n=${N:-20000}
quiet=${QUIET:?set QUIET to the baseline ns/op of a quiet machine}
series=${SERIES:-6} pause=${PAUSE:-45} tries=${TRIES:-120}
run() { "$1" -test.run XXX -test.bench "$bench" -test.benchtime "${n}x" | awk '/^Benchmark/ {print $3}'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
t=0
while [ $t -lt "$tries" ]; do
	t=$((t + 1))
	b=$(run "$base")
	echo "$(date +%T) probe $t: baseline $b ns/op"
	if [ "${b%.*}" -le "$quiet" ]; then
		out=$(mktemp)
		i=0
		while [ $i -lt "$series" ]; do
			i=$((i + 1))
			if [ $((i % 2)) -eq 0 ]; then
				x=$(run "$base"); y=$(run "$new")
			else
				y=$(run "$new"); x=$(run "$base")
			fi
			echo "$x $y" | tee -a "$out"
		done
		echo "median: baseline $(cut -d' ' -f1 "$out" | median) ns/op, new $(cut -d' ' -f2 "$out" | median) ns/op"
		rm -f "$out"
		exit 0
	fi
	sleep "$pause"
done
echo "no quiet stretch in $tries probes" >&2
exit 1
