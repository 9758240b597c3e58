#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the vjchan benchmark, run by bench/run.sh and bench/smoke.sh
# through scripts/vm.sh (never on the host).  Sets up the benchmark NIC
# (MAC 52:54:00:12:34:10, fed by the host's vjgen through a QEMU dgram
# netdev), loads vjchan.ko and runs one bench/vjrx per cell; each appends a
# row to $VJ_OUT/rows.csv.  The matrix comes from the environment:
#
#   BENCH_MODES      receive methods (default: all of `vjrx --list`)
#   BENCH_SIZES      UDP payload sizes (default "64 512 1472")
#   BENCH_RUNS       runs per throughput cell (default 3)
#   BENCH_SECONDS    measurement window, seconds (default 4)
#   BENCH_WARMUP     seconds from the first frame to the window (default 1)
#   BENCH_RATE       offered load of throughput cells, pps, 0 = flat out
#   BENCH_LAT_RATE   offered load of latency cells, pps (default 2000)
#   BENCH_LAT_SIZE   payload size of latency cells (default 64)
#   BENCH_LAT_RUNS   runs per latency cell (default: BENCH_RUNS; 0: none)
#   BENCH_VJNET_MODES  receivers run again with the NIC moved to vjnet, as
#                    MODE@vjnet rows (default "udp-recvmmsg vjchan-driver
#                    vjchan-direct";
#                    empty: the NIC stays on virtio_net)
#   BENCH_NIC_RUNS   runs of bench/nic.sh, ordinary TCP and ping through
#                    vjnet and virtio_net (default: BENCH_RUNS; 0: none)
#   BENCH_TX_RUNS    runs of each transmit cell, bench/vjtx: sendmmsg of 64
#                    from a UDP socket and from a UDP channel socket, every
#                    size of BENCH_SIZES (default: BENCH_RUNS; 0: none); rows
#                    in $VJ_OUT/tx.csv
#   BENCH_TX_RATE    datagrams a second of transmit cells (default 0: flat out)
#   BENCH_IPERF_RUNS runs of bench/iperf.sh, iperf3 -u to a server run plainly
#                    and under vjchan-run (default: BENCH_RUNS; 0: none);
#                    BENCH_IPERF_RATES, _SECONDS, _LEN: see bench/iperf.sh
#
# vjchan-driver and vjchan-direct need the NIC on vjnet, so they run only in
# the second phase.
#
# Modes are run in a different order in each run, so that slow drifts of the
# host (other jobs) do not always hit the same method.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

: "${VJ_OUT:?run me in the guest through scripts/vm.sh}"
[ "${VJ_IN_VM:-}" = 1 ] || { echo "guest.sh: guest only" >&2; exit 2; }

rx=bench/vjrx tx=bench/vjtx
read -ra all_modes <<<"${BENCH_MODES:-$("$rx" --list | tr '\n' ' ')}"
modes=()
for m in "${all_modes[@]}"; do
	[ "$m" = vjchan-driver ] || [ "$m" = vjchan-direct ] || modes+=("$m")
done
read -ra vjnet_modes <<<"${BENCH_VJNET_MODES-udp-recvmmsg vjchan-driver vjchan-direct}"
nic_runs=${BENCH_NIC_RUNS:-${BENCH_RUNS:-3}}
read -ra sizes <<<"${BENCH_SIZES:-64 512 1472}"
runs=${BENCH_RUNS:-3}
secs=${BENCH_SECONDS:-4}
warm=${BENCH_WARMUP:-1}
rate=${BENCH_RATE:-0}
lat_rate=${BENCH_LAT_RATE:-2000}
lat_size=${BENCH_LAT_SIZE:-64}
lat_runs=${BENCH_LAT_RUNS:-$runs}
tx_runs=${BENCH_TX_RUNS:-$runs}
tx_rate=${BENCH_TX_RATE:-0}
iperf_runs=${BENCH_IPERF_RUNS:-$runs}
smp=$(nproc)

bench_nic_up
ifname=$bench_nic
insmod kernel/vjchan.ko

{
	echo "kernel=$(uname -r)"
	echo "vcpus=$smp"
	echo "nic=$ifname driver=$(basename "$(readlink "/sys/class/net/$ifname/device/driver")")"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "user_hz=$(getconf CLK_TCK)"
} >"$VJ_OUT/guest-info"
"$rx" --header >"$VJ_OUT/rows.csv"
"$tx" --header >"$VJ_OUT/tx.csv"

k=0
cell() {	# cell RUN SIZE RATE MODE [vjrx options]
	local run=$1 size=$2 r=$3 mode=$4
	shift 4
	k=$((k + 1))
	"$rx" -k "$k" -s "$size" -r "$r" -w "$warm" -T "$secs" --smp "$smp" \
		--run "$run" "$@" "$mode" "$ifname" >/dev/null ||
		true	# the row says what went wrong
	tail -n 1 "$VJ_OUT/rows.csv" | cut -d, -f1-13 | sed 's/^/cell: /'
}

rotate() {	# rotate N WORDS...: the words, starting at the Nth
	local n=$1
	shift
	n=$(( (n - 1) % $# ))
	printf '%s\n' "${@:n+1}" "${@:1:n}"
}

matrix() {	# matrix MODE...: every throughput and latency cell
	local run size mode
	for ((run = 1; run <= runs; run++)); do
		for size in "${sizes[@]}"; do
			for mode in $(rotate "$run" "$@"); do
				cell "$run" "$size" "$rate" "$mode"
			done
		done
	done
	for ((run = 1; run <= lat_runs; run++)); do
		for mode in $(rotate "$run" "$@"); do
			cell "$run" "$lat_size" "$lat_rate" "$mode" -L
		done
	done
}

tx_cell() {	# tx_cell RUN SIZE MODE
	k=$((k + 1))
	"$tx" -k "$k" -s "$2" -r "$tx_rate" -w "$warm" -T "$secs" --smp "$smp" \
		--run "$1" "$3" >/dev/null ||
		true	# the row says what went wrong
	tail -n 1 "$VJ_OUT/tx.csv" | cut -d, -f1-13 | sed 's/^/tx cell: /'
}

[ ${#modes[@]} -eq 0 ] || matrix "${modes[@]}"

# Transmit cells, on the same NIC (virtio_net), the methods alternating as
# in the receive matrix.
read -ra tx_modes <<<"$("$tx" --list | tr '\n' ' ')"
for ((run = 1; run <= tx_runs; run++)); do
	for size in "${sizes[@]}"; do
		for mode in $(rotate "$run" "${tx_modes[@]}"); do
			tx_cell "$run" "$size" "$mode"
		done
	done
done

# The second phase: the same NIC on vjnet (the host's generator sends to
# the same MAC), for the driver path and the stack through vjnet.
if [ ${#vjnet_modes[@]} -gt 0 ]; then
	insmod kernel/vjnet.ko
	tools/vjchan-ctl attach "$ifname" >/dev/null
	bench_nic_up
	ifname=$bench_nic
	echo "nic@vjnet=$ifname driver=$(basename "$(readlink "/sys/class/net/$ifname/device/driver")")" \
		>>"$VJ_OUT/guest-info"
	matrix "${vjnet_modes[@]/%/@vjnet}"
fi
# iperf3's UDP test, server plainly and under vjchan-run, on the hub NICs.
if [ "$iperf_runs" -gt 0 ]; then
	BENCH_IPERF_RUNS=$iperf_runs bash bench/iperf.sh "$VJ_OUT/iperf.csv" ||
		echo "guest.sh: bench/iperf.sh failed" >&2
fi
# Ordinary traffic through vjnet against virtio_net, on the hub NICs.
if [ "$nic_runs" -gt 0 ]; then
	BENCH_NIC_RUNS=$nic_runs bash bench/nic.sh "$VJ_OUT/nic.csv" ||
		echo "guest.sh: bench/nic.sh failed" >&2
fi
echo "cells=$k" >"$VJ_OUT/finished"
