#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: one guest boot.  scripts/demo-guest.sh shows a flow arriving
# in a channel while ordinary traffic keeps working, and the counters;
# then the benchmark's smoke cells (bench/guest.sh: every receiver for 1 s
# at 1000 frames/s, fed by the host through the benchmark NIC) give the
# receive paths side by side, printed by scripts/demo-report.py with a
# chart in out/demo/receive-paths.png when matplotlib is installed.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../bench/lib.sh"
cd "$bench_top"
bench_deps >&2
bench_build >&2

out=$bench_top/out/demo
st=0
bench_boot 2 "$out" 300 "bash scripts/demo-guest.sh &&
	printf '\n== the receive paths side by side (1 s each at 1000 frames/s, 64 B)\n' &&
	BENCH_RUNS=0 BENCH_LAT_RUNS=1 BENCH_LAT_RATE=1000 BENCH_LAT_SIZE=64 \
	BENCH_SECONDS=1 BENCH_WARMUP=0.5 bash bench/guest.sh >/dev/null" || st=$?
if [ -f "$out/rows.csv" ]; then
	/usr/bin/python3 scripts/demo-report.py "$out/rows.csv" \
		"$out/receive-paths.png"
fi
[ "$st" = 0 ] || { echo "demo: the guest failed (vm.sh status $st; $out/console.log)"; exit 1; }
