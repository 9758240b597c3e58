#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ordinary traffic through vjnet against virtio_net, in one guest boot (run
# by bench/guest.sh; guest only).  The third hub NIC (MAC ...:03) carries
# 198.51.100.1/24 in the root namespace; the second (MAC ...:02, always on
# virtio_net) carries 198.51.100.2/24 in the namespace "nicpeer".  Each run
# measures, with the third NIC on each driver in turn (the order alternates
# from run to run):
#
#   tcp_rx_mbps   iperf3 TCP bulk, peer -> root namespace (received through
#                 the NIC under test), BENCH_NIC_SECONDS [4] seconds
#   tcp_tx_mbps   the same, root namespace -> peer (iperf3 -R)
#   ping_avg_us   mean round trip of BENCH_NIC_PINGS [200] pings, 10 ms apart,
#   ping_mdev_us  from the peer; and its deviation
#
# No vjchan channel is bound: this is the cost vjnet puts on traffic that
# goes to the stack.  Appends "smp,run,driver,tcp_rx_mbps,tcp_tx_mbps,
# ping_avg_us,ping_mdev_us" rows to OUT.CSV.
#
#   bench/nic.sh OUT.CSV
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: bench/nic.sh OUT.CSV}
[ "${VJ_IN_VM:-}" = 1 ] || { echo "nic.sh: guest only" >&2; exit 2; }
runs=${BENCH_NIC_RUNS:-3}
secs=${BENCH_NIC_SECONDS:-4}
pings=${BENCH_NIC_PINGS:-200}
here=198.51.100.1 peer=198.51.100.2
smp=$(nproc)
trap 'echo "nic.sh: line $LINENO: exit status $?" >&2' ERR

by_mac() {	# by_mac MAC: the interface with that address
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

dut_driver() {
	basename "$(readlink -f "/sys/class/net/$(by_mac 52:54:00:12:34:03)/device/driver")"
}

# to_driver DRIVER: put the NIC under test on DRIVER, address it and wait
# until the peer answers.
to_driver() {
	local dev i
	if [ "$(dut_driver)" != "$1" ]; then
		if [ "$1" = vjnet ]; then
			tools/vjchan-ctl attach "$(by_mac 52:54:00:12:34:03)" >/dev/null
		else
			tools/vjchan-ctl detach "$(by_mac 52:54:00:12:34:03)" >/dev/null
		fi
	fi
	dev=$(by_mac 52:54:00:12:34:03)
	ip addr replace "$here/24" dev "$dev"
	ip link set "$dev" up
	for i in $(seq 100); do
		ip netns exec nicpeer ping -c 1 -W 1 "$here" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "nic.sh: $here on $1 does not answer" >&2
	return 1
}

# iperf_mbps [-R]: one iperf3 TCP run from the peer; received Mbit/s.
iperf_mbps() {
	local srv mbps
	iperf3 -s -1 -B "$here" -p 5299 >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 50); do
		ss -Hltn "sport = :5299" | grep -q . && break
		sleep 0.1
	done
	mbps=$(ip netns exec nicpeer iperf3 -c "$here" -p 5299 -t "$secs" -J "$@" |
		python3 -c 'import json, sys
print("%.1f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))') ||
		mbps=
	wait "$srv" 2>/dev/null || true
	echo "$mbps"
}

ping_us() {	# "avg mdev" of the round trips, in microseconds
	ip netns exec nicpeer ping -q -c "$pings" -i 0.01 -W 1 "$here" |
		awk -F'[/ ]+' '/^rtt/ { printf "%.0f %.0f\n", $8 * 1000, $10 * 1000 }'
}

command -v iperf3 >/dev/null || { echo "nic.sh: no iperf3" >&2; exit 1; }
[ -d /sys/module/vjnet ] || insmod kernel/vjnet.ko
ip netns add nicpeer
ip link set "$(by_mac 52:54:00:12:34:02)" netns nicpeer
pdev=$(ip -n nicpeer -o link | awk '/ether 52:54:00:12:34:02 / { sub(":", "", $2); print $2 }')
ip -n nicpeer link set lo up
ip -n nicpeer addr add "$peer/24" dev "$pdev"
ip -n nicpeer link set "$pdev" up
# Only the NIC under test answers ARP for its address on the shared hub.
sysctl -qw net.ipv4.conf.all.arp_ignore=1

[ -s "$out" ] || echo "smp,run,driver,tcp_rx_mbps,tcp_tx_mbps,ping_avg_us,ping_mdev_us" >"$out"
for ((run = 1; run <= runs; run++)); do
	order="virtio_net vjnet"
	[ $((run % 2)) = 0 ] && order="vjnet virtio_net"
	for drv in $order; do
		if ! to_driver "$drv"; then
			echo "$smp,$run,$drv,,,," >>"$out"
			continue
		fi
		rx=$(iperf_mbps)
		tx=$(iperf_mbps -R)
		read -r pavg pmdev <<<"$(ping_us)" || true
		echo "$smp,$run,$drv,$rx,$tx,${pavg:-},${pmdev:-}" | tee -a "$out"
	done
done
to_driver virtio_net || true
ip netns del nicpeer
