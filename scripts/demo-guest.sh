#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo` (scripts/demo.sh): a peer namespace owns the
# second NIC and sends a real UDP flow through the QEMU hub into eth0
# (virtio_net); a channel bound to that flow receives it while ping and
# an ordinary UDP socket on the next port keep working; then the counters,
# the rates and the first packets as tcpdump reads them from the
# channel's pcapng file.  Unloads vjchan at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools:$PATH"

step() { printf '\n== %s\n' "$*"; }
tmp=$(mktemp -d)

step "load vjchan"
insmod kernel/vjchan.ko
dmesg | grep 'vjchan' | tail -n 1 | sed 's/^\[ *[0-9.]*\] //'

step "network: eth0 192.0.2.1 here, eth1 192.0.2.2 in netns peer"
ip netns add peer
ip link set eth1 netns peer
ip addr add 192.0.2.1/24 dev eth0
ip link set eth0 up
ip -n peer addr add 192.0.2.2/24 dev eth1
ip -n peer link set eth1 up
ip -n peer link set lo up
for _ in $(seq 30); do
	ping -c 1 -W 1 192.0.2.2 >/dev/null 2>&1 && break
done

step "a channel for udp4 dport 9000 on eth0; an ordinary UDP socket on 9001"
vjchan-recv --verify -q -c 300 -t 40 -w "$tmp/flow.pcapng" \
	--ready-file "$tmp/ready" udp4 dport 9000 dev eth0 >"$tmp/recv.out" 2>&1 &
recv=$!
python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.0.2.1", 9001))
s.settimeout(20)
open(sys.argv[1], "w").close()
n = 0
try:
    while n < 300:
        s.recv(2048)
        n += 1
except socket.timeout:
    pass
print(n)
' "$tmp/sock.ready" >"$tmp/sock.out" 2>&1 &
sock=$!
for _ in $(seq 300); do
	[ -e "$tmp/ready" ] && [ -e "$tmp/sock.ready" ] && break
	sleep 0.1
done
vjchan-stat -c

step "the peer sends 300 datagrams to each port at 200/s, and pings"
ip netns exec peer vjchan-send -c 300 -s 200 -r 200 192.0.2.1 9000 >"$tmp/send0" &
s0=$!
ip netns exec peer vjchan-send -c 300 -s 200 -r 200 -S 5000 192.0.2.1 9001 >"$tmp/send1" &
s1=$!
ip netns exec peer ping -c 5 -i 0.3 -q 192.0.2.1 >"$tmp/ping" 2>&1 &
pingp=$!
sleep 0.2
echo "vjchan-stat -w: the channel's rates while the flow arrives"
vjchan-stat -w -i 0.5 --count 2 dport 9000 | sed 's/^./  &/'
wait "$s0" "$s1" "$pingp" || true
rc=0
wait "$recv" || rc=$?
wait "$sock" || true

step "what arrived where"
printf '  channel (udp 9000):     %s packets, %s bad payloads, %s gaps  (vjchan-recv --verify: %s)\n' \
	"$(sed -n 's/^received //p' "$tmp/recv.out")" \
	"$(sed -n 's/^bad_payload //p' "$tmp/recv.out")" \
	"$(sed -n 's/^gaps //p' "$tmp/recv.out")" \
	"$([ "$rc" = 0 ] && echo passed || echo "FAILED, status $rc")"
printf '  UDP socket (udp 9001):  %s datagrams, through the normal stack\n' \
	"$(cat "$tmp/sock.out")"
printf '  ping from the peer:     %s\n' "$(grep -o '[0-9]* received' "$tmp/ping")"

step "the first packets, from the channel's pcapng file (tcpdump -r)"
tcpdump -r "$tmp/flow.pcapng" -nn -c 3 2>/dev/null | sed 's/^/  /'

step "the channel's counters, and the module's"
grep -E '^(rx_packets|rx_ring_full|rx_driver) ' "$tmp/recv.out" | sed 's/^/  /'
vjchan-stat -p | grep -E 'hook_claimed|hook_dropped|channels_live' | sed 's/^/  /'

rmmod vjchan
rm -rf "$tmp"
[ "$rc" = 0 ]
