#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The XDP receive path (kernel/xdp.c, xdp/vjchan.bpf.c, tools/vjchan-xdp)
# in the QEMU guest, run by run-guest.sh after tests/net.sh.  Prints one
# line per case: "ok NAME", "FAIL NAME: reason" or "skip NAME: reason".
#
#   vjx0 203.0.113.1/24 ---- veth ---- vjx1 203.0.113.2/24 (netns vjx)
#        2001:db8:300::1/64                2001:db8:300::2/64
#   eth0 192.0.2.1/24 ---- QEMU hub ---- eth1 192.0.2.2/24 (netns peer)
#
# XDP_UNLOAD_BUSY unloads and reloads the modules; it runs last.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$top/tools:$top/tests:$PATH"
export VJ_KO=${VJ_KO:-kernel}

# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"

cleanup() {
	local p
	for p in "${bgpids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for p in vjx0 eth0; do
		vjchan-xdp detach $p >/dev/null 2>&1
		xdp-loader unload -a $p >/dev/null 2>&1
	done
	ip netns del vjx 2>/dev/null
	ip link del vjx0 2>/dev/null
	ip link del vjx2 2>/dev/null
	vjchan-xdp clean >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_veth() {	# setup_veth MTU
	ip netns del vjx 2>/dev/null
	ip link del vjx0 2>/dev/null
	ip netns add vjx &&
	ip link add vjx0 mtu "$1" type veth peer name vjx1 mtu "$1" &&
	ip link set vjx1 netns vjx &&
	ip addr add 203.0.113.1/24 dev vjx0 &&
	ip -6 addr add 2001:db8:300::1/64 dev vjx0 nodad &&
	ip link set vjx0 up &&
	ip -n vjx addr add 203.0.113.2/24 dev vjx1 &&
	ip -n vjx -6 addr add 2001:db8:300::2/64 dev vjx1 nodad &&
	ip -n vjx link set vjx1 up &&
	ip -n vjx link set lo up || return 1
	local i
	for i in $(seq 50); do
		ping -c 1 -W 1 203.0.113.2 >/dev/null 2>&1 &&
			ping -6 -c 1 -W 1 2001:db8:300::2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "203.0.113.2 does not answer ping"
	return 1
}

# xdp_flow NAME MODE NETNS DADDR PORT DEV SIZE BUF PATHKEY: N datagrams from
# NETNS into a channel of firewall MODE bound to DEV, every one verified,
# none lost, all of them counted on path PATHKEY (rx_xdp, rx_filtered...)
# and none on the others.  Sets $flow_why on failure.
xdp_flow() {
	local name=$1 mode=$2 ns=$3 daddr=$4 port=$5 dev=$6 size=$7 buf=$8
	local key=$9 n=${N:-300} rc out got k v
	flow_why=
	if ! recv_start "$name" -m "$mode" --verify -q -e 1024 -b "$buf" \
			-c "$n" -t 30 udp4 dport "$port" dev "$dev"; then
		flow_why="vjchan-recv not ready: $(cat "$tmp/$name.out")"
		return 1
	fi
	local r=$rpid
	if ! out=$(ip netns exec "$ns" vjchan-send -c "$n" -s "$size" -r 500 \
			"$daddr" "$port" 2>&1); then
		flow_why="vjchan-send: $out"
		kill "$r" 2>/dev/null
		return 1
	fi
	recv_wait "$r"
	rc=$?
	got=$(field "$tmp/$name.out" received)
	if [ "$rc" -ne 0 ] || [ "$got" != "$n" ]; then
		flow_why="vjchan-recv exit $rc, received ${got:-?} of $n:$(grep -E '^(rx_|bad_)' "$tmp/$name.out" | tr '\n' ' ')"
		return 1
	fi
	for k in rx_xdp rx_hook rx_filtered rx_driver rx_truncated rx_ring_full; do
		v=$(field "$tmp/$name.out" $k)
		if [ "$k" = "$key" ]; then
			[ "$v" = "$n" ] || flow_why+=" $k $v (want $n)"
		else
			[ "$v" = 0 ] || flow_why+=" $k $v (want 0)"
		fi
	done
	[ -z "$flow_why" ]
}

case_flow() {	# case_flow NAME ARGS...: xdp_flow as a case of its own
	local name=$1
	if xdp_flow "$@"; then ok "$name"; else fail "$name" "$flow_why"; fi
}

pool_counter() {
	sed -n "s/^$1 //p" /proc/net/vjchan_pool
}

# XDP_VETH_EXTHDR: the kfunc parses only the linear part of a buffer.
# IPv6 datagrams with 1400 bytes of destination options, and with a chain
# of 2 KiB options headers (4168-byte frames, on veth at MTU 9000 a linear
# part and a fragment), reach a bypass channel: from XDP when their
# headers are in the linear part, else from the pre-routing hook after
# XDP passed them, each of those counted in hdr_unreadable.  An options
# header claiming more than the packet holds reaches nobody.  Nothing is
# read past data_end (the debug kernel's KASAN would report it).
t_exthdr() {
	local mac why= u0 u1 got xdp hook a=2001:db8:300::2 b=2001:db8:300::1
	mac=$(cat /sys/class/net/vjx0/address)
	if ! recv_start xext -m bypass -q -b 16384 -c 4 -t 15 udp6 dport 9411 \
			dev vjx0; then
		fail XDP_VETH_EXTHDR "vjchan-recv not ready: $(cat "$tmp/xext.out")"
		return
	fi
	local r=$rpid
	u0=$(pool_counter hdr_unreadable)
	ip netns exec vjx python3 tests/craft.py vjx1 "$mac" $a $b 9411 \
		dstopt:1400 2 || why+=" craft.py dstopt failed;"
	ip netns exec vjx python3 tests/craft.py vjx1 "$mac" $a $b 9411 \
		overrun:1400 2 || why+=" craft.py overrun failed;"
	ip netns exec vjx python3 tests/craft.py vjx1 "$mac" $a $b 9411 \
		chain:8,2048,2048 2 || why+=" craft.py chain failed;"
	recv_wait "$r"
	u1=$(pool_counter hdr_unreadable)
	got=$(field "$tmp/xext.out" received)
	xdp=$(field "$tmp/xext.out" rx_xdp)
	hook=$(field "$tmp/xext.out" rx_hook)
	[ "$got" = 4 ] || why+=" received ${got:-?} of 4;"
	[ "${xdp:-0}" -ge 2 ] || why+=" rx_xdp ${xdp:-?}, want 2 or more;"
	[ $((u1 - u0)) = "${hook:-?}" ] ||
		why+=" hdr_unreadable +$((u1 - u0)), rx_hook ${hook:-?}: want equal;"
	if [ -n "$why" ]; then
		fail XDP_VETH_EXTHDR "$why"
	else
		ok XDP_VETH_EXTHDR
		echo "# XDP_VETH_EXTHDR: rx_xdp $xdp, rx_hook $hook" >&2
	fi
}

# Ping, TCP, ARP, ND and UDP to other ports through DEV with the program
# attached: none of it belongs to a channel, all of it reaches the stack.
t_unmatched() {	# t_unmatched NAME NETNS DEV ADDR4 ADDR6 PEER4
	local name=$1 ns=$2 dev=$3 a4=$4 a6=$5 p4=$6 why= got
	# ARP and ND: forget the neighbours, then ping in both directions.
	ip neigh flush dev "$dev"
	ip -n "$ns" neigh flush all
	ping -c 2 -i 0.2 -W 2 "$p4" >/dev/null 2>&1 || why+=" ping4-out(arp)"
	ip netns exec "$ns" ping -c 2 -i 0.2 -W 2 "$a4" >/dev/null 2>&1 ||
		why+=" ping4-in"
	ip netns exec "$ns" ping -6 -c 2 -i 0.2 -W 2 "$a6" >/dev/null 2>&1 ||
		why+=" ping6-in(nd)"
	# TCP and UDP to another port of a host that has a bypass channel.
	python3 - "$a4" 9450 "$tmp/srv.ready" >"$tmp/tcp.out" 2>&1 <<'PY' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(15)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind((sys.argv[1], int(sys.argv[2]) + 1)); u.settimeout(15)
open(sys.argv[3], "w").close()
c, _ = s.accept(); c.settimeout(15); n = 0
while True:
    b = c.recv(65536)
    if not b: break
    n += len(b)
print("tcp", n); print("udp", len(u.recv(2048)))
PY
	local srv=$!
	bgpids+=("$srv")
	if wait_file "$tmp/srv.ready" 10; then
		ip netns exec "$ns" python3 -c '
import socket, sys
c = socket.create_connection((sys.argv[1], 9450), 10)
c.sendall(b"x" * 100000); c.close()
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"y" * 100, (sys.argv[1], 9451))
' "$a4" || why+=" client"
	fi
	wait "$srv"
	rm -f "$tmp/srv.ready"
	got=$(tr '\n' ' ' <"$tmp/tcp.out")
	[ "$got" = "tcp 100000 udp 100 " ] || why+=" tcp/udp: $got"
	if [ -n "$why" ]; then fail "$name" "$why"; else ok "$name"; fi
}

# UDP listeners on ADDR:DROPPED and ADDR:PASSED that count datagrams until
# the sender's end marker arrives on PASSED (at most 30 s).  The marker is
# sent after every counted datagram on the same path, so once it is seen
# every datagram to DROPPED was either delivered or dropped by then: no
# timing window decides the counts.  Writes "DROPPED-COUNT PASSED-COUNT".
udp_count2() {	# udp_count2 ADDR DROPPED PASSED OUTFILE READYFILE
	python3 -c '
import select, socket, sys, time
a, d, p = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sd = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); sd.bind((a, d))
sp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); sp.bind((a, p))
open(sys.argv[5], "w").close()
nd = np = 0; end = time.time() + 30; done = False
while not done and time.time() < end:
    for s in select.select([sd, sp], [], [], 0.5)[0]:
        b = s.recv(2048)
        if s is sd:
            nd += 1
        elif b == b"end":
            done = True
        else:
            np += 1
# Datagrams to DROPPED that raced ahead of the marker on another CPU.
sd.setblocking(False)
try:
    while True:
        sd.recv(2048); nd += 1
except BlockingIOError:
    pass
open(sys.argv[4], "w").write("%d %d%s\n" % (nd, np, "" if done else " no-marker"))
' "$@"
}

# XDP_SECOND_PROG: another program (tests/xdp_drop_port.bpf.o, dropping
# UDP to port 9499) in the same dispatcher keeps working, before and after
# vjchan's is detached, and channel traffic still comes through XDP.
t_second_prog() {
	local why= out c
	if ! out=$(xdp-loader load -m native vjx0 tests/xdp_drop_port.bpf.o 2>&1); then
		fail XDP_SECOND_PROG "xdp-loader load: $out"
		return
	fi
	out=$(vjchan-xdp show vjx0)
	[ "$out" = "vjx0 native 2" ] || why+=" show: '$out';"
	xdp_flow xdp2 bypass vjx 203.0.113.1 9420 vjx0 256 2048 rx_xdp ||
		why+=" channel:$flow_why;"
	for phase in attached detached; do
		rm -f "$tmp/c.ready" "$tmp/c"
		udp_count2 203.0.113.1 9499 9498 "$tmp/c" "$tmp/c.ready" &
		local cpid=$!
		bgpids+=("$cpid")
		wait_file "$tmp/c.ready" 10 || why+=" $phase: listener not ready;"
		ip netns exec vjx python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20):
    s.sendto(b"z" * 64, ("203.0.113.1", 9499)); s.sendto(b"z" * 64, ("203.0.113.1", 9498))
s.sendto(b"end", ("203.0.113.1", 9498))
'
		wait "$cpid"
		c=$(cat "$tmp/c" 2>/dev/null)
		[ "$c" = "0 20" ] ||
			why+=" $phase: ports 9499 9498 got '${c:-?}' (want '0 20');"
		if [ $phase = attached ]; then
			out=$(vjchan-xdp detach vjx0 2>&1) || why+=" detach: $out;"
			out=$(xdp-loader status vjx0 2>&1)
			grep -q xdp_drop_port <<<"$out" ||
				why+=" xdp_drop_port gone after detach;"
		fi
	done
	xdp-loader unload -a vjx0 >/dev/null 2>&1 || why+=" xdp-loader unload;"
	if [ -n "$why" ]; then fail XDP_SECOND_PROG "$why"; else ok XDP_SECOND_PROG; fi
}

# XDP_DETACH_FLOWING: detach while a flow runs; every datagram arrives,
# through XDP before the detach and through the pre-routing hook after.
t_detach_flowing() {
	local n=1500 why= r out got x h
	if ! recv_start detach -m bypass --verify -q -e 4096 -c $n -t 30 \
			udp4 dport 9430 dev vjx0; then
		fail XDP_DETACH_FLOWING "vjchan-recv not ready"
		return
	fi
	r=$rpid
	ip netns exec vjx vjchan-send -c $n -s 256 -r 500 203.0.113.1 9430 \
		>"$tmp/send.out" 2>&1 &
	local s=$!
	bgpids+=("$s")
	sleep 1.5
	out=$(vjchan-xdp detach vjx0 2>&1) || why+=" detach: $out;"
	wait "$s" || why+=" vjchan-send: $(cat "$tmp/send.out");"
	recv_wait "$r" || why+=" vjchan-recv exit $?;"
	got=$(field "$tmp/detach.out" received)
	x=$(field "$tmp/detach.out" rx_xdp)
	h=$(field "$tmp/detach.out" rx_hook)
	[ "$got" = $n ] || why+=" received ${got:-?} of $n;"
	[ "${x:-0}" -gt 0 ] && [ "${h:-0}" -gt 0 ] &&
		[ $((x + h)) -eq $n ] || why+=" rx_xdp ${x:-?} + rx_hook ${h:-?} != $n;"
	if [ -n "$why" ]; then fail XDP_DETACH_FLOWING "$why"; else ok XDP_DETACH_FLOWING; fi
}

# XDP_DEV_REMOVED: a device with the program goes away; libxdp's pinned
# state then still holds the program (and so the module) until "clean".
t_dev_removed() {
	local why= out
	ip link del vjx2 2>/dev/null
	if ! ip link add vjx2 type veth peer name vjx3 ||
	   ! ip link set vjx2 up || ! ip link set vjx3 up; then
		fail XDP_DEV_REMOVED "cannot make veth vjx2"
		return
	fi
	out=$(vjchan-xdp attach vjx2 2>&1) || why+=" attach: $out;"
	ip link del vjx2 || why+=" ip link del;"
	out=$(vjchan-xdp clean 2>&1) || why+=" clean: $out;"
	out=$(vjchan-xdp show 2>&1)
	[ -z "$out" ] || why+=" still shown: $out;"
	if [ -n "$why" ]; then fail XDP_DEV_REMOVED "$why"; else ok XDP_DEV_REMOVED; fi
}

# XDP_UNLOAD_BUSY: an attached program keeps vjchan loaded; after the
# detach it unloads; the tool refuses while it is not loaded; reload.
t_unload_busy() {
	local why= out
	out=$(vjchan-xdp attach vjx0 2>&1) || why+=" attach: $out;"
	rmmod_retry vjtest || why+=" rmmod vjtest: $(rmmod vjtest 2>&1);"
	if rmmod vjchan 2>/dev/null; then
		why+=" rmmod vjchan succeeded while attached;"
		insmod "$VJ_KO/vjchan.ko"
	fi
	out=$(vjchan-xdp detach vjx0 2>&1) || why+=" detach: $out;"
	rmmod_retry vjchan || why+=" rmmod after detach: $(rmmod vjchan 2>&1);"
	if out=$(vjchan-xdp attach vjx0 2>&1); then
		why+=" attach succeeded without the module;"
		vjchan-xdp detach vjx0 >/dev/null 2>&1
	elif ! grep -q "not loaded" <<<"$out"; then
		why+=" unclear refusal: $out;"
	fi
	if ! insmod "$VJ_KO/vjchan.ko" || ! insmod "$VJ_KO/vjtest.ko" ||
	   ! vjtest_setup; then
		why+=" reload failed;"
	fi
	if [ -n "$why" ]; then fail XDP_UNLOAD_BUSY "$why"; else ok XDP_UNLOAD_BUSY; fi
}

# stat_holds STAT PORT COND: in STAT, the output of vjchan-stat -c -j, the
# list ch of the channels on destination port PORT satisfies COND, a
# Python expression.  stat_show STAT PORT: those channels, for a failure.
stat_holds() {
	python3 -c '
import json, sys
ch = [c for c in json.load(sys.stdin)["channels"] if str(c["dport"]) == sys.argv[1]]
sys.exit(not eval("(" + sys.argv[2] + ")"))
' "$2" "$3" <<<"$1" 2>"$tmp/stat.err"
}

stat_show() {
	echo "$(tr -s '\n ' ' ' <<<"$1" | grep -o "\"dport\": $2.*" | cut -c1-300) $(tail -n 1 "$tmp/stat.err")"
}

# XDP_UDP_CHANNEL: a UDP channel socket in bypass mode (a Python UDP
# server under vjchan-run) is fed by the XDP path like a raw channel: 100
# datagrams arrive intact over IPv4 and over IPv6, and 5 with a bad UDP
# checksum between them, which the kfunc copies unchecked (XDP gives no
# checksum verdict), are dropped by the receiving call and counted in
# rx_udp_bad_csum.  All 105 are counted on rx_xdp, none on the hook.
udp_server_py='
import os, socket, struct, sys, time
addr, port, want, ready, stop = sys.argv[1:6]
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.bind((addr, int(port)))
s.settimeout(20)
open(ready, "w").close()
n = bad = 0
while n < int(want):
    try:
        d = s.recv(2048)
    except socket.timeout:
        break
    seq = struct.unpack("!I", d[:4])[0] if len(d) >= 4 else 0
    if len(d) != 16 or d[4:] != bytes((seq + i) & 0xFF for i in range(4, 16)):
        bad += 1
    n += 1
print("got", n, "bad", bad, flush=True)
for _ in range(200):
    if os.path.exists(stop):
        break
    time.sleep(0.1)
'

t_udp_channel() {
	local why= mac st out addr peer port p v
	mac=$(cat /sys/class/net/vjx0/address)
	if ! out=$(vjchan-xdp attach vjx0 2>&1); then
		fail XDP_UDP_CHANNEL "attach vjx0: $out"
		return
	fi
	for v in 4 6; do
		if [ $v = 4 ]; then
			addr=203.0.113.1 peer=203.0.113.2 port=9480
		else
			addr=2001:db8:300::1 peer=2001:db8:300::2 port=9481
		fi
		rm -f "$tmp/udp$v.ready" "$tmp/udp$v.stop"
		vjchan-run --mode bypass --ports $port python3 -c "$udp_server_py" \
			$addr $port 100 "$tmp/udp$v.ready" "$tmp/udp$v.stop" \
			>"$tmp/udp$v.out" 2>&1 &
		p=$!
		bgpids+=("$p")
		if ! wait_file "$tmp/udp$v.ready" 30; then
			why+=" IPv$v: server not ready: $(tail -n 1 "$tmp/udp$v.out");"
			kill $p 2>/dev/null
			continue
		fi
		printf '%s %s %s %s %s\n' "$peer" $addr $port plain 50 \
			"$peer" $addr $port badsum 5 "$peer" $addr $port plain 50 |
			ip netns exec vjx python3 tests/craft.py vjx1 "$mac" - ||
			why+=" IPv$v: craft.py failed;"
		for _ in $(seq 100); do
			grep -q '^got' "$tmp/udp$v.out" && break
			sleep 0.2
		done
		out=$(grep '^got' "$tmp/udp$v.out")
		[ "$out" = "got 100 bad 0" ] || why+=" IPv$v: server: ${out:-$(tail -n 1 "$tmp/udp$v.out")};"
		st=$(vjchan-stat -c -j)
		touch "$tmp/udp$v.stop"
		wait $p 2>/dev/null
		stat_holds "$st" $port 'len(ch) == 1 and ch[0]["rx_xdp"] == 105 and
			ch[0]["rx_hook"] == 0 and ch[0]["rx_udp_bad_csum"] == 5 and
			ch[0]["fw"] == "bypass"' ||
			why+=" IPv$v: vjchan-stat: $(stat_show "$st" $port);"
	done
	vjchan-xdp detach vjx0 >/dev/null 2>&1
	if [ -n "$why" ]; then fail XDP_UDP_CHANNEL "$why"; else ok XDP_UDP_CHANNEL; fi
}

all_cases="XDP_BTF XDP_VETH_RX XDP_VETH_FILTERED XDP_VETH_UNMATCHED XDP_SECOND_PROG
XDP_DETACH_FLOWING XDP_VETH_JUMBO XDP_VIRTIO_RX XDP_VIRTIO_FILTERED
XDP_VIRTIO_UNMATCHED XDP_STAT_PATHS XDP_DEV_REMOVED XDP_UNLOAD_BUSY
XDP_VETH_EXTHDR XDP_UDP_CHANNEL"

fail_all() {
	local c
	for c in $all_cases; do fail "$c" "$1"; done
}

mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
# XDP_BTF: the module has BTF with the kfunc (the tool checks it first).
if [ ! -e /sys/kernel/btf/vjchan ]; then
	fail_all "no /sys/kernel/btf/vjchan: $(dmesg | grep -i 'missing module BTF' | tail -n 1)"
	exit 0
fi
if ! setup_veth 1500 >"$tmp/setup.out" 2>&1; then
	fail_all "veth setup: $(tail -n 1 "$tmp/setup.out")"
	exit 0
fi
if ! out=$(vjchan-xdp attach vjx0 2>&1); then
	fail_all "vjchan-xdp attach vjx0: $out"
	exit 0
fi
ok XDP_BTF

c0=$(pool_counter xdp_claimed)
if xdp_flow XDP_VETH_RX bypass vjx 203.0.113.1 9400 vjx0 512 2048 rx_xdp; then
	c1=$(pool_counter xdp_claimed)
	if [ $((c1 - c0)) -ge 300 ]; then ok XDP_VETH_RX; else
		fail XDP_VETH_RX "xdp_claimed went from $c0 to $c1"; fi
else
	fail XDP_VETH_RX "$flow_why"
fi
case_flow XDP_VETH_FILTERED filtered vjx 203.0.113.1 9401 vjx0 512 2048 rx_filtered
# Unmatched traffic with a bypass channel bound on the device.
recv_start holdx -m bypass -q -t 120 udp4 dport 9402 dev vjx0
hold=$rpid
t_unmatched XDP_VETH_UNMATCHED vjx vjx0 203.0.113.1 2001:db8:300::1 203.0.113.2
kill "$hold" 2>/dev/null; wait "$hold" 2>/dev/null

# vjchan's program is still attached from XDP_BTF on.
t_second_prog
out=$(vjchan-xdp attach vjx0 2>&1) || fail XDP_DETACH_FLOWING "attach: $out"
t_detach_flowing

# Jumbo frames: multi-buffer XDP (xdp.frags), 16 KiB ring buffers.  The
# MTU goes back to 1500 afterwards, whatever happened.
out=
if ! ip link set vjx0 mtu 9000 || ! ip -n vjx link set vjx1 mtu 9000 ||
   ! out=$(vjchan-xdp attach vjx0 2>&1); then
	fail XDP_VETH_JUMBO "mtu 9000 / attach: $out"
	fail XDP_VETH_EXTHDR "mtu 9000 / attach: $out"
else
	N=100 case_flow XDP_VETH_JUMBO bypass vjx 203.0.113.1 9410 vjx0 8000 16384 rx_xdp
	t_exthdr
fi
vjchan-xdp detach vjx0 >/dev/null 2>&1
ip link set vjx0 mtu 1500
ip -n vjx link set vjx1 mtu 1500

# virtio_net: the peer sends across the QEMU hub to eth0.
if ! ip -n peer link show eth1 >/dev/null 2>&1 &&
   ! why=$(setup_peer 2>&1); then
	for c in XDP_VIRTIO_RX XDP_VIRTIO_FILTERED XDP_VIRTIO_UNMATCHED; do
		fail $c "peer setup: $(echo "$why" | tail -n 1)"
	done
elif ! out=$(vjchan-xdp attach eth0 2>&1); then
	for c in XDP_VIRTIO_RX XDP_VIRTIO_FILTERED XDP_VIRTIO_UNMATCHED; do
		fail $c "attach eth0: $out"
	done
else
	case_flow XDP_VIRTIO_RX bypass peer 192.0.2.1 9460 eth0 256 2048 rx_xdp
	case_flow XDP_VIRTIO_FILTERED filtered peer 192.0.2.1 9461 eth0 256 2048 rx_filtered
	t_unmatched XDP_VIRTIO_UNMATCHED peer eth0 192.0.2.1 2001:db8::1 192.0.2.2
	vjchan-xdp detach eth0 >/dev/null
fi

# XDP_STAT_PATHS: vjchan-stat shows the path counters of each channel.
# The receiver runs until its timeout, so the channel is still there when
# vjchan-stat reads it.
vjchan-xdp attach vjx0 >/dev/null 2>&1
recv_start stat -m bypass -q -t 4 udp4 dport 9470 dev vjx0
r=$rpid
ip netns exec vjx vjchan-send -c 5 -s 64 203.0.113.1 9470 >/dev/null 2>&1
sleep 1
st=$(vjchan-stat -c -j)
recv_wait $r
vjchan-xdp detach vjx0 >/dev/null 2>&1
if stat_holds "$st" 9470 'ch and ch[0]["rx_xdp"] == 5 and ch[0]["fw"] == "bypass"
			and ch[0]["rx_hook"] == 0 and ch[0]["rx_filtered"] == 0'; then
	ok XDP_STAT_PATHS
else
	fail XDP_STAT_PATHS "vjchan-stat -c -j: $(stat_show "$st" 9470)"
fi

t_udp_channel

t_dev_removed
t_unload_busy
