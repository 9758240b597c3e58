#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke run of the benchmark, for `make check`: one guest, every receiver
# for 1.5 s at 1000 pps (as latency cells, so the time stamps are exercised
# too).  Prints one line per receiver,
#
#   ok BENCH_<MODE>                 frames arrived intact, little loss
#   ok BENCH_AFXDP_ZC_UNSUPPORTED   zero-copy AF_XDP refused with EOPNOTSUPP
#   FAIL BENCH_<MODE>: reason
#
# and exits non-zero if any line is FAIL.  Takes well under 90 s once the
# vm.sh lock is free.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_top"

bench_deps >&2
bench_build >&2
out=$bench_dir/out/smoke
mkdir -p "$bench_dir/out"
fail=0

below() {	# below A B: A < B, numerically; an empty A is 0
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'
}

st=0
bench_boot 2 "$out" 240 "BENCH_RUNS=0 BENCH_LAT_RUNS=1 BENCH_LAT_RATE=1000 BENCH_LAT_SIZE=64 BENCH_SECONDS=1 BENCH_WARMUP=0.5 bash bench/guest.sh" \
	>"$out.log" 2>&1 || st=$?
if [ "$st" != 0 ]; then
	echo "FAIL BENCH_VM: vm.sh exit status $st (log: ${out#"$bench_top"/}.log)"
	fail=1
fi

declare -A col=()
header=
[ -f "$out/rows.csv" ] && IFS= read -r header <"$out/rows.csv"
IFS=, read -ra names <<<"$header"
for i in "${!names[@]}"; do
	col[${names[$i]}]=$i
done

for mode in $("$bench_dir/vjrx" --list); do
	tag=BENCH_$(tr 'a-z-' 'A-Z_' <<<"$mode")
	row=
	[ -n "$header" ] && row=$(grep "^[0-9]*,$mode," "$out/rows.csv" | tail -n 1 || true)
	if [ -z "$row" ]; then
		echo "FAIL $tag: no result row"
		fail=1
		continue
	fi
	IFS=, read -ra f <<<"$row,"
	get() { echo "${f[${col[$1]}]:-}"; }
	status=$(get status) reason=$(get reason)
	if [ "$mode" = afxdp-zc ] && [ "$status" = unsupported ]; then
		if [[ $reason == *EOPNOTSUPP* ]]; then
			echo "ok ${tag}_UNSUPPORTED"
		else
			echo "FAIL $tag: $reason"
			fail=1
		fi
		continue
	fi
	why=
	if [ "$status" != ok ]; then
		why="$status: ${reason:-no reason}"
	elif below "$(get rx_pkts)" 1; then
		why="no frames in the window"
	elif [ "$(get bad)" != 0 ]; then
		why="$(get bad) frames failed the checksum or pattern check"
	elif ! below "$(get loss_pct)" 10; then
		why="$(get loss_pct)% loss at 1000 pps"
	elif [ "$(get lat_stamp)" = yes ] && below "$(get lat_samples)" 1; then
		why="no latency samples"
	fi
	if [ -n "$why" ]; then
		echo "FAIL $tag: $why"
		fail=1
	else
		echo "ok $tag"
	fi
done
exit "$fail"
