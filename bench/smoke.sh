#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke run of the benchmark, for `make check`: one guest, every receiver
# for 1.5 s at 1000 pps (as latency cells, so the time stamps are exercised
# too), udp-recvmmsg, vjchan-driver and vjchan-direct again with the NIC on
# vjnet, and one short bench/nic.sh run.  Prints one line per receiver,
#
#   ok BENCH_<MODE>                 frames arrived intact, little loss
#   ok BENCH_NIC_<DRIVER>           TCP both ways and ping through the driver
#   ok BENCH_AFXDP_ZC_UNSUPPORTED   zero-copy AF_XDP refused with EOPNOTSUPP
#   FAIL BENCH_<MODE>: reason
#
# and exits non-zero if any line is FAIL.  Takes about 2 minutes once the
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
bench_boot 2 "$out" 300 "BENCH_RUNS=0 BENCH_LAT_RUNS=1 BENCH_LAT_RATE=1000 BENCH_LAT_SIZE=64 BENCH_SECONDS=1 BENCH_WARMUP=0.5 BENCH_NIC_RUNS=1 BENCH_NIC_SECONDS=1 BENCH_NIC_PINGS=20 bash bench/guest.sh" \
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

# Every receiver on virtio_net; recvmmsg, vjchan-driver and vjchan-direct
# again on vjnet.
for mode in $("$bench_dir/vjrx" --list | grep -vxe vjchan-driver -e vjchan-direct) \
	    udp-recvmmsg@vjnet vjchan-driver@vjnet vjchan-direct@vjnet; do
	tag=BENCH_$(tr 'a-z@-' 'A-Z__' <<<"$mode")
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
# bench/nic.sh: TCP and ping through both drivers, one short run.
for drv in virtio_net vjnet; do
	tag=BENCH_NIC_$(tr 'a-z' 'A-Z' <<<"$drv")
	row=$(grep "^[0-9]*,1,$drv," "$out/nic.csv" 2>/dev/null || true)
	IFS=, read -r _ _ _ rx tx pavg _ <<<"$row,"
	if [ -z "$row" ]; then
		echo "FAIL $tag: no bench/nic.sh row"
		fail=1
	elif below "$rx" 1 || below "$tx" 1 || below "$pavg" 1; then
		echo "FAIL $tag: TCP in '$rx' out '$tx' Mbit/s, ping '$pavg' us"
		fail=1
	else
		echo "ok $tag"
	fi
done
exit "$fail"
