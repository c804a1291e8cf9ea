#!/bin/sh
# Side-by-side comparison of two commits on the harnesses whose figures a refactoring must keep:
# bench/pacteval (the interpreter), bench/headercheck (header validation) and bench/nodetx (the
# node's transaction path). Each harness reports ratios against a baseline it measures in the
# same run; this script builds each harness (and, for nodetx, the node) from clean exports of
# OLD and NEW and runs them alternately, OLD NEW OLD NEW, so that both see the same machine.
#
#   bench/compare.sh OLD NEW [OUT]      (commits or refs; OUT defaults to /tmp/compare)
#
# Only the ratio columns compare across runs; absolute times drift with the machine's load.
set -eu
old=$1 new=$2 out=${3:-/tmp/compare}
rm -rf "$out" && mkdir -p "$out"
for side in old new; do
	eval rev=\$$side
	mkdir -p "$out/$side/src"
	git archive "$rev" | tar -x -C "$out/$side/src"
	(cd "$out/$side/src" &&
		go build -o "$out/$side/pacteval" ./bench/pacteval &&
		go build -o "$out/$side/headercheck" ./bench/headercheck &&
		go build -o "$out/$side/nodetx" ./bench/nodetx &&
		go build -o "$out/$side/ledger-node" ./cmd/ledger-node)
	echo "$side = $(git rev-parse --short "$rev")" | tee -a "$out/summary"
done
for pass in 1 2; do
	for side in old new; do
		echo "== pass $pass $side" | tee -a "$out/summary"
		(cd "$out/$side/src" &&
			"$out/$side/pacteval" -rounds 3 >"$out/$side/pacteval.$pass" 2>&1 &&
			"$out/$side/headercheck" -rounds 3 >"$out/$side/headercheck.$pass" 2>&1 &&
			"$out/$side/nodetx" -rounds 1 -bin "$out/$side/ledger-node" >"$out/$side/nodetx.$pass" 2>&1)
		grep -h '^median' "$out/$side/pacteval.$pass" "$out/$side/headercheck.$pass" "$out/$side/nodetx.$pass" | tee -a "$out/summary" || true
	done
done
