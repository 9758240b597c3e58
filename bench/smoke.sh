#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke run of the benchmark, for `make check`: one guest, every receiver
# for 1.5 s at 1000 pps (as latency cells, so the time stamps are exercised
# too), udp-recvmmsg, vjchan-driver and vjchan-direct again with the NIC on
# vjnet, both transmit cells (64 B at 1000 pps), one iperf3 UDP test each
# way (bench/iperf.sh) and one short bench/nic.sh run.  Prints one line per
# receiver, sender, iperf3 server and NIC driver,
#
#   ok BENCH_<MODE>                 frames arrived intact, little loss
#   ok BENCH_TX_<MODE>              the sink got the sender's frames intact
#   ok BENCH_IPERF3_<SERVER>        iperf3 -u received, little loss
#   ok BENCH_NIC_<DRIVER>           TCP both ways and ping through the driver
#   ok BENCH_AFXDP_ZC_UNSUPPORTED   zero-copy AF_XDP refused with EOPNOTSUPP
#   FAIL BENCH_<...>: reason
#
# and exits non-zero if any line is FAIL.  Takes about 3 minutes once the
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

# The smoke run checks that the benchmark works, not how fast: its vCPUs run
# in turn (scripts/vm.sh, --tcg-threads), as every other guest of make check.
export BENCH_TCG_THREADS=single
st=0
bench_boot 2 "$out" 480 "BENCH_RUNS=0 BENCH_LAT_RUNS=1 BENCH_LAT_RATE=1000 BENCH_LAT_SIZE=64 BENCH_SECONDS=1 BENCH_WARMUP=0.5 BENCH_SIZES=64 BENCH_TX_RUNS=1 BENCH_TX_RATE=1000 BENCH_IPERF_RUNS=1 BENCH_IPERF_RATES=10M BENCH_IPERF_SECONDS=2 BENCH_NIC_RUNS=1 BENCH_NIC_SECONDS=1 BENCH_NIC_PINGS=20 bash bench/guest.sh" \
	>"$out.log" 2>&1 || st=$?
if [ "$st" != 0 ]; then
	echo "FAIL BENCH_VM: vm.sh exit status $st (log: ${out#"$bench_top"/}.log)"
	fail=1
fi

# row FILE REGEX: the last line of FILE that matches REGEX into R, keyed by
# the names of FILE's header line; false if there is none.
declare -A R=()
row() {
	local header line i names vals
	R=()
	[ -f "$1" ] || return 1
	IFS= read -r header <"$1"
	line=$(grep -E "$2" "$1" | tail -n 1) || true
	[ -n "$line" ] || return 1
	IFS=, read -ra names <<<"$header"
	IFS=, read -ra vals <<<"$line,"
	for i in "${!names[@]}"; do
		R[${names[$i]}]=${vals[$i]:-}
	done
}
get() { echo "${R[$1]:-}"; }

# verdict TAG WHY: "ok TAG" if WHY is empty, else "FAIL TAG: WHY" and the
# run fails.
verdict() {
	if [ -n "$2" ]; then
		echo "FAIL $1: $2"
		fail=1
	else
		echo "ok $1"
	fi
}

# Every receiver on virtio_net; recvmmsg, vjchan-driver and vjchan-direct
# again on vjnet.
for mode in $("$bench_dir/vjrx" --list | grep -vxe vjchan-driver -e vjchan-direct) \
	    udp-recvmmsg@vjnet vjchan-driver@vjnet vjchan-direct@vjnet; do
	tag=BENCH_$(tr 'a-z@-' 'A-Z__' <<<"$mode")
	if ! row "$out/rows.csv" "^[0-9]*,$mode,"; then
		echo "FAIL $tag: no result row"
		fail=1
		continue
	fi
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
	verdict "$tag" "$why"
done
# Transmit cells: sent in the window, the sink got them, intact.
for mode in $("$bench_dir/vjtx" --list); do
	tag=BENCH_TX_$(tr 'a-z-' 'A-Z_' <<<"$mode")
	why=
	if ! row "$out/tx.csv" "^[0-9]*,$mode,64,"; then
		why="no result row"
	elif [ "$(get status)" != ok ]; then
		why="$(get status): $(get reason)"
	elif below "$(get sent)" 1; then
		why="nothing sent in the window"
	elif below "$(get peer_rcvd)" 1; then
		why="the sink got none of the $(get sent) frames of the window"
	elif [ "$(get peer_bad)" != 0 ]; then
		why="$(get peer_bad) frames failed the sink's checks"
	elif ! below "$(get loss_pct)" 10; then
		why="$(get loss_pct)% loss at 1000 pps"
	elif [ -z "$(get cpu_us_per_pkt)" ]; then
		why="no CPU figure"
	fi
	verdict "$tag" "$why"
done
# iperf3 -u, the server plainly and under vjchan-run.
for server in plain vjchan-run; do
	tag=BENCH_IPERF3_$(tr 'a-z-' 'A-Z_' <<<"$server")
	why=
	if ! row "$out/iperf.csv" "^[0-9]*,1,$server,"; then
		why="no bench/iperf.sh row"
	elif [ "$(get status)" != ok ]; then
		why="$(get status): $(get reason)"
	elif below "$(get rx_mbps)" 1; then
		why="$(get rx_mbps) Mbit/s received"
	elif ! below "$(get lost_pct)" 10; then
		why="$(get lost_pct)% lost at $(get rate)bit/s"
	fi
	verdict "$tag" "$why"
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
