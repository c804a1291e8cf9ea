#!/bin/sh
# Two builds of one go test benchmark timed in alternating pairs, for a machine whose speed
# drifts from one minute to the next: each round runs the two test binaries one after the other
# (in alternating order) and takes their ratio, so that both see the same moment; the median of
# the ratios is the figure.
#
#   bench/gotestpairs.sh ROUNDS A.test B.test       (from the benchmark's package directory)
#
# BENCH (default TransferWithGas/table) selects the benchmark, N (default 2000) its iterations
# per run. Build the binaries with `go test -c -o A.test ./pact/contracts` at each commit.
set -eu
rounds=$1 a=$2 b=$3
bench=${BENCH:-TransferWithGas/table} n=${N:-2000}
run() { "$1" -test.run XXX -test.bench "$bench" -test.benchtime "${n}x" | awk '/^Benchmark/ {print $3}'; }
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	if [ $((i % 2)) -eq 0 ]; then
		x=$(run "$a"); y=$(run "$b")
	else
		y=$(run "$b"); x=$(run "$a")
	fi
	echo "$x $y"
done | awk '
	{ a[NR] = $1; b[NR] = $2; r[NR] = $2 / $1 }
	function median(v, n,   i, j, t, w) {
		for (i = 1; i <= n; i++) w[i] = v[i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && w[j] < w[j-1]; j--) { t = w[j]; w[j] = w[j-1]; w[j-1] = t }
		return n % 2 ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2
	}
	function least(v, n,   i, m) { m = v[1]; for (i = 2; i <= n; i++) if (v[i] < m) m = v[i]; return m }
	END {
		printf "%d rounds  ns/op median A %.0f  B %.0f  min A %.0f  B %.0f  median ratio B/A %.3f\n",
			NR, median(a, NR), median(b, NR), least(a, NR), least(b, NR), median(r, NR)
	}'
