#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo`: a peer namespace owns the second NIC and sends a
# real UDP flow through the QEMU hub into eth0 (virtio_net); a channel bound
# to that flow receives it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools:$PATH"

step() { printf '\n== %s\n' "$*"; }

step "load vjchan"
insmod kernel/vjchan.ko
dmesg | grep vjchan | tail -n 1

step "network: eth0 192.0.2.1 here, eth1 192.0.2.2 in netns peer"
ip netns add peer
ip link set eth1 netns peer
ip addr add 192.0.2.1/24 dev eth0
ip link set eth0 up
ip -n peer addr add 192.0.2.2/24 dev eth1
ip -n peer link set eth1 up
ip -n peer link set lo up
ping -c 1 -W 5 192.0.2.2 >/dev/null && echo "ping peer: ok (ARP and ICMP take the normal path)"

step "bind a channel to udp4 dport 9000 on eth0 and wait for 10 packets"
ready=$(mktemp -u)
out=$(mktemp)
vjchan-recv --verify -c 10 -t 30 --ready-file "$ready" \
	udp4 dport 9000 dev eth0 >"$out" 2>&1 &
recv=$!
for _ in $(seq 300); do [ -e "$ready" ] && break; sleep 0.1; done
[ -e "$ready" ] || { echo "vjchan-recv did not start"; cat "$out"; exit 1; }

step "channels while bound"
vjchan-stat -c

step "peer sends 10 datagrams of 200 bytes to 192.0.2.1:9000"
ip netns exec peer vjchan-send -c 10 -s 200 -r 50 192.0.2.1 9000

step "what vjchan-recv saw (one line per packet, then its summary)"
rc=0
wait "$recv" || rc=$?
cat "$out"
[ "$rc" -eq 0 ] || { echo "vjchan-recv failed ($rc)"; exit 1; }

step "global counters"
vjchan-stat -p
