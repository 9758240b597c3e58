#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vjnet tests in the QEMU guest, run by run-guest.sh after net.sh.  Prints
# one line per case: "ok NAME" or "FAIL NAME: reason".
#
# Topology: eth2 (virtio-net, third NIC on the hub) moves to vjnet with
# vjchan-ctl attach and gets 192.0.2.129/25 and 2001:db8:2::1/64; the peer
# netns (eth1, from net.sh, or made here) gets 192.0.2.130/25 and
# 2001:db8:2::2/64 next to its own addresses.  The /25 is more specific than
# eth0's 192.0.2.0/24, so traffic to the peer's .130 leaves through the
# vjnet device.  arp_ignore=1 keeps eth0 from answering ARP for eth2's
# address on the shared hub.
#
# Leaves vjnet loaded, the third NIC attached to virtio_net (each move
# names the interface anew: eth1 is in the peer netns, so the name may
# change).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$top/tools:$top/tests:$PATH"
export VJ_KO=${VJ_KO:-kernel}

# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"

vdev=
arp_ignore=$(sysctl -n net.ipv4.conf.all.arp_ignore)

cleanup() {
	kill_bg
	sysctl -qw net.ipv4.conf.all.arp_ignore="$arp_ignore"
	ip -n peer addr del 192.0.2.130/25 dev eth1 2>/dev/null
	ip -n peer addr del 2001:db8:2::2/64 dev eth1 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

drv_of() {	# drv_of VDEV: the driver the virtio device is bound to
	basename "$(readlink -f "/sys/bus/virtio/devices/$1/driver")" 2>/dev/null
}

ethstat() {	# ethstat DEV NAME: one ethtool -S counter
	ethtool -S "$1" | sed -n "s/^ *$2: \([0-9]*\)$/\1/p"
}

pool_free_ok() {	# all global buffers home (within 5 s)
	local i size free
	for i in $(seq 50); do
		size=$(sed -n 's/^pool_buffers \([0-9]*\)$/\1/p' /proc/net/vjchan_pool)
		free=$(sed -n 's/^pool_free \([0-9]*\)$/\1/p' /proc/net/vjchan_pool)
		[ -n "$size" ] && [ "$size" = "$free" ] && return 0
		sleep 0.1
	done
	echo "pool_free $free of $size"
	return 1
}

peer_setup() {
	if ! ip netns list | grep -qw peer; then
		ip netns add peer && ip link set eth1 netns peer &&
			ip -n peer link set lo up || return 1
	fi
	ip -n peer addr replace 192.0.2.130/25 dev eth1 &&
	ip -n peer -6 addr replace 2001:db8:2::2/64 dev eth1 nodad &&
	ip -n peer link set eth1 up
}

# dev_setup IFACE: addresses on the vjnet device, wait for both families.
dev_setup() {
	local i
	ip addr add 192.0.2.129/25 dev "$1" &&
	ip -6 addr add 2001:db8:2::1/64 dev "$1" nodad &&
	ip link set "$1" up || return 1
	for i in $(seq 50); do
		ping -c 1 -W 1 192.0.2.130 >/dev/null 2>&1 &&
			ping -6 -c 1 -W 1 2001:db8:2::2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "192.0.2.130 or 2001:db8:2::2 does not answer"
	return 1
}

t_attach() {
	local out why=
	[ -d /sys/bus/virtio/drivers/vjnet ] || { fail VJNET_ATTACH "vjnet not loaded"; return 1; }
	vdev=$(basename "$(readlink -f /sys/class/net/eth2/device)")
	[ "$(drv_of "$vdev")" = virtio_net ] ||
		why+=" loading vjnet took $vdev ($(drv_of "$vdev"))"
	out=$(vjchan-ctl attach eth0 2>&1 >/dev/null; vjchan-ctl detach eth0 2>&1)
	[ "$(drv_of "$(basename "$(readlink -f /sys/class/net/eth0/device)")")" = virtio_net ] ||
		why+=" eth0 moved"
	if ! dev=$(vjchan-ctl attach eth2 2>&1); then
		fail VJNET_ATTACH "vjchan-ctl attach eth2: $dev"
		return 1
	fi
	[ "$(drv_of "$vdev")" = vjnet ] || why+=" $vdev bound to $(drv_of "$vdev")"
	ethtool -i "$dev" 2>/dev/null | grep -q '^driver: vjnet$' ||
		why+=" ethtool -i $dev: $(ethtool -i "$dev" 2>&1 | head -n 1)"
	vjchan-ctl attach "$dev" >/dev/null 2>&1 && why+=" second attach succeeded"
	[ "$(cat /sys/class/net/"$dev"/mtu)" = 1500 ] || why+=" mtu $(cat /sys/class/net/"$dev"/mtu)"
	verdict VJNET_ATTACH "$why"
	: "$out"
	return 0
}

# to_channel NAME KIND DADDR PORT SIZE DEV_CTR CHAN_CTR RECV_OPTION...:
# N datagrams of SIZE bytes from the peer into a bypass channel on the
# vjnet device (vjchan-recv with RECV_OPTIONs), all verified; every one
# counted in the channel's CHAN_CTR and the device's DEV_CTR.
to_channel() {
	local name=$1 kind=$2 daddr=$3 port=$4 size=$5 dctr=$6 cctr=$7
	local n=300 rc out c0 c1 got cnt
	shift 7
	c0=$(ethstat "$dev" "$dctr")
	if ! recv_start "$name" -m bypass "$@" --verify -q -c $n -t 20 \
			$kind dport $port dev "$dev"; then
		fail "$name" "vjchan-recv not ready: $(cat "$tmp/$name.out")"
		return
	fi
	local r=$rpid
	if ! out=$(ip netns exec peer vjchan-send -c $n -s "$size" -r 500 \
			"$daddr" "$port" 2>&1); then
		fail "$name" "vjchan-send: $out"
		kill "$r" 2>/dev/null
		return
	fi
	recv_wait "$r"
	rc=$?
	c1=$(ethstat "$dev" "$dctr")
	got=$(field "$tmp/$name.out" received)
	cnt=$(field "$tmp/$name.out" "$cctr")
	if [ "$rc" -ne 0 ] || [ "$got" != "$n" ]; then
		fail "$name" "vjchan-recv exit $rc, received ${got:-?} of $n"
		sed 's/^/# /' "$tmp/$name.out" | tail -n 20 >&2
	elif [ "$cnt" != "$n" ]; then
		fail "$name" "$cctr $cnt of $n"
	elif [ $((c1 - c0)) -ne $n ]; then
		fail "$name" "device $dctr +$((c1 - c0)), sent $n"
	else
		ok "$name"
	fi
}

# bypass NAME KIND DADDR PORT: through the driver path (copied into the
# ring in the consumer's context).
bypass() {
	to_channel "$@" 256 rx_channel rx_driver -e 1024
}

t_ping() {
	local why=
	ping -c 3 -i 0.2 -W 2 192.0.2.130 >/dev/null 2>&1 || why+=" v4-out"
	ip netns exec peer ping -c 3 -i 0.2 -W 2 192.0.2.129 >/dev/null 2>&1 ||
		why+=" v4-in"
	ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2 >/dev/null 2>&1 || why+=" v6-out"
	ip netns exec peer ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::1 >/dev/null 2>&1 ||
		why+=" v6-in"
	if [ -n "$why" ]; then
		fail VJNET_PING "no answer:$why"
	else
		ok VJNET_PING
	fi
}

t_tcp() {
	local addr port=5101 total=1000000 out why= s0 s1
	s0=$(ethstat "$dev" rx_stack)
	for addr in 192.0.2.129 2001:db8:2::1; do
		out=$(tcp_in "$addr" $port $total 60) || why+=" $out"
	done
	s1=$(ethstat "$dev" rx_stack)
	# 2 MB in frames of at most 1500 bytes: well over 1300 of them.
	[ $((s1 - s0)) -ge 1300 ] || why+=" rx_stack only +$((s1 - s0))"
	verdict VJNET_TCP "$why"
}

# direct NAME KIND DADDR PORT: into a direct channel (VJ_BIND_F_DIRECT):
# the device writes them into the ring, so every one is in rx_direct.
direct() {
	to_channel "$@" 1200 rx_direct rx_direct --direct -e 512
}

# buffers_home: every channel buffer posted to the device came back.
buffers_home() {
	local i p r
	for i in $(seq 50); do
		p=$(ethstat "$dev" rx_direct_posted)
		r=$(ethstat "$dev" rx_direct_returned)
		[ -n "$p" ] && [ "$p" = "$r" ] && return 0
		sleep 0.1
	done
	echo "rx_direct_posted $p, rx_direct_returned $r"
	return 1
}

# A direct channel bound: ping and TCP (checksummed by the stack, which gets
# copies) still work, a second direct channel gets EBUSY, a non-bypass or
# device-less one EINVAL, and closing it returns every buffer.
t_direct_shared() {
	local why= out port=5102 total=1000000 addr d
	if ! recv_start dshare -m bypass --direct -q -t 120 udp4 dport 9530 \
			dev "$dev"; then
		fail VJNET_DIRECT_SHARED "vjchan-recv: $(cat "$tmp/dshare.out")"
		return
	fi
	d=$rpid
	out=$(vjchan-recv -m bypass --direct -c 1 -t 1 udp4 dport 9531 \
		dev "$dev" 2>&1) && why+=" second direct channel bound;"
	echo "$out" | grep -q 'busy' || why+=" second: $out;"
	out=$(vjchan-recv --direct -c 1 -t 1 udp4 dport 9531 dev "$dev" 2>&1) &&
		why+=" filtered direct channel bound;"
	echo "$out" | grep -q 'Invalid argument' || why+=" filtered: $out;"
	out=$(vjchan-recv -m bypass --direct -c 1 -t 1 udp4 dport 9531 2>&1) &&
		why+=" direct channel without a device bound;"
	echo "$out" | grep -q 'Invalid argument' || why+=" no dev: $out;"
	ping -c 3 -i 0.2 -W 2 192.0.2.130 >/dev/null 2>&1 || why+=" ping v4;"
	ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2 >/dev/null 2>&1 || why+=" ping v6;"
	for addr in 192.0.2.129 2001:db8:2::1; do
		out=$(tcp_in "$addr" $port $total 60) || why+=" $out"
	done
	kill "$d" 2>/dev/null
	wait "$d" 2>/dev/null
	out=$(buffers_home) || why+=" $out;"
	ping -c 2 -i 0.2 -W 2 192.0.2.130 >/dev/null 2>&1 || why+=" ping after close;"
	verdict VJNET_DIRECT_SHARED "$why"
}

# pool_ctr NAME: a counter of /proc/net/vjchan_pool.
pool_ctr() {
	sed -n "s/^$1 \([0-9]*\)$/\1/p" /proc/net/vjchan_pool
}

# crafted NAME WANT CTR CTR_WANT SHAPE:SRC:DST:COUNT...: a direct channel
# for udp6 port 9522 on the device; the peer sends each group of crafted
# frames (tests/craft.py) to the device's MAC address.  The channel must
# receive WANT of them, and the pool counter CTR grow by CTR_WANT.  One
# craft.py process sends every group (a Python start takes seconds on the
# debug kernel under TCG); the receiver waits up to 90 s for them.
crafted() {
	local name=$1 want=$2 ctr=$3 cwant=$4 mac why= c0 c1 got g shape src dst count
	shift 4
	mac=$(cat /sys/class/net/"$dev"/address)
	if ! recv_start "$name" -m bypass --direct -q -c "$want" -t 90 \
			udp6 dport 9522 dev "$dev"; then
		fail "$name" "vjchan-recv not ready: $(cat "$tmp/$name.out")"
		return
	fi
	local r=$rpid
	c0=$(pool_ctr "$ctr")
	for g in "$@"; do
		IFS=';' read -r shape src dst count <<<"$g"
		echo "$src $dst 9522 $shape $count"
	done | ip netns exec peer python3 tests/craft.py eth1 "$mac" - ||
		why+=" craft.py failed;"
	recv_wait "$r"
	c1=$(pool_ctr "$ctr")
	got=$(field "$tmp/$name.out" received)
	[ "$got" = "$want" ] || why+=" channel received ${got:-?}, want $want;"
	[ $((c1 - c0)) -eq "$cwant" ] ||
		why+=" $ctr +$((c1 - c0)), want +$cwant;"
	if [ -n "$why" ]; then
		fail "$name" "$why"
	else
		ok "$name"
	fi
}

# VJNET_DIRECT_EXTHDR: direct receive classifies a private copy of a
# frame's first 256 bytes.  IPv6 datagrams whose destination options end
# within it reach the channel; those whose headers end beyond it (1400
# bytes of options, a chain of 600-byte headers) go to the stack, counted
# in hdr_unreadable, and are never read past the copy (the debug kernel's
# KASAN would report it); an options header that claims more than the
# packet holds is dropped by the stack.
t_direct_exthdr() {
	local a=2001:db8:2::2 b=2001:db8:2::1
	crafted VJNET_DIRECT_EXTHDR 4 hdr_unreadable 3 \
		"dstopt:80;$a;$b;3" "dstopt:1400;$a;$b;2" \
		"chain:8,600,600;$a;$b;1" "overrun:1400;$a;$b;2" "plain;$a;$b;1"
}

# VJNET_DIRECT_MARTIANS: what the IPv6 layer drops as martian or not for
# this host (::1 either way, a multicast source, a group not joined) never
# reaches a direct channel, counted in not_local: 4 times by direct
# receive, and once more by the pre-routing hook for the group not joined,
# which the IPv6 layer, unlike the other three, passes on to the hook.
t_direct_martians() {
	local a=2001:db8:2::2 b=2001:db8:2::1
	crafted VJNET_DIRECT_MARTIANS 1 not_local 5 \
		"plain;$a;::1;1" "plain;::1;$b;1" "plain;ff05::1;$b;1" \
		"plain;$a;ff05::1:3;1" "plain;$a;$b;1"
}

# A hostile owner of a direct channel: vj_scribble checks first that it
# cannot get write access to the buffers (mmap, mprotect, stores,
# /proc/self/mem, process_vm_writev, read(), fork, mremap; "bad:" lines
# otherwise), then scribbles on the consumer index and descriptors and
# tries to write the buffers while datagrams flow into the channel, UDP
# datagrams to an ordinary socket and TCP to the stack.  The stack's frames
# come off the owner's queue: every UDP datagram arrives with its payload
# intact and TCP is intact; bad consumer values are counted; every frame
# the channel got was written by the device (rx_packets = rx_driver =
# rx_direct, as many as the device counted), none was lost for room, no
# store into a buffer went through, every buffer comes back on close.
t_direct_hostile() {
	local why= out s port=5103 total=500000 addr c0 c1 n u un=500
	rm -f "$tmp/scr.ready" "$tmp/scr.stop" "$tmp/hsink.ready"
	c0=$(ethstat "$dev" rx_direct)
	vj_scribble "$(cat /sys/class/net/"$dev"/ifindex)" 9540 14 \
		"$tmp/scr.ready" "$tmp/scr.stop" 3000 >"$tmp/scr.out" 2>&1 &
	s=$!
	bgpids+=("$s")
	if ! wait_file "$tmp/scr.ready" 10; then
		fail VJNET_DIRECT_HOSTILE "vj_scribble: $(tr '\n' ' ' <"$tmp/scr.out")"
		kill_bg
		return
	fi
	python3 -c "$udp_sink_py" 192.0.2.129 9541 $un "$tmp/hsink.ready" \
		>"$tmp/hsink.out" 2>&1 &
	u=$!
	bgpids+=("$u")
	wait_file "$tmp/hsink.ready" 10 || why+=" no UDP sink;"
	ip netns exec peer vjchan-send -c 3000 -s 1000 -r 500 192.0.2.129 9540 \
		>/dev/null 2>&1 &
	local snd=$!
	bgpids+=("$snd")
	ip netns exec peer vjchan-send -c $un -s 1000 -r 100 192.0.2.129 9541 \
		>"$tmp/hsend.out" 2>&1 &
	bgpids+=($!)
	for addr in 192.0.2.129 2001:db8:2::1; do
		out=$(tcp_in "$addr" $port $total 30) || why+=" $out"
	done
	wait "$u"
	# The channel's counters are read once its traffic is over (and the
	# last frames are through the hub); the device's after them.
	wait "$snd"
	sleep 1
	touch "$tmp/scr.stop"
	[ "$(cat "$tmp/hsink.out")" = $un ] ||
		why+=" UDP to the stack: $(cat "$tmp/hsink.out") of $un intact;"
	wait "$s" || why+=" vj_scribble: $(tr '\n' ' ' <"$tmp/scr.out");"
	out=$(sed -n 's/^bad: //p' "$tmp/scr.out" | tr '\n' ';')
	[ -z "$out" ] || why+=" $out"
	[ "$(field "$tmp/scr.out" buf_writes)" = 0 ] ||
		why+=" buf_writes $(field "$tmp/scr.out" buf_writes);"
	c1=$(ethstat "$dev" rx_direct)
	n=$(field "$tmp/scr.out" rx_direct)
	[ "${n:-0}" -gt 0 ] 2>/dev/null ||
		why+=" no direct frames: $(tr '\n' ' ' <"$tmp/scr.out");"
	[ "$(field "$tmp/scr.out" rx_packets)" = "$n" ] &&
		[ "$(field "$tmp/scr.out" rx_driver)" = "$n" ] ||
		why+=" counters: $(tr '\n' ' ' <"$tmp/scr.out");"
	[ "$(field "$tmp/scr.out" rx_ring_full)" = 0 ] ||
		why+=" rx_ring_full $(field "$tmp/scr.out" rx_ring_full);"
	[ $((c1 - c0)) = "$n" ] || why+=" device rx_direct +$((c1 - c0)), channel $n;"
	[ "$(field "$tmp/scr.out" rx_invalid_cons)" -gt 0 ] 2>/dev/null ||
		why+=" no consumer value rejected;"
	out=$(buffers_home) || why+=" $out;"
	ping -c 2 -i 0.2 -W 2 192.0.2.130 >/dev/null 2>&1 || why+=" ping after;"
	kill_bg
	if [ -n "$why" ]; then
		tr '\n' ' ' <"$tmp/scr.out" >&2
		echo >&2
		ethtool -S "$dev" | grep -v ': 0$' | tr -s ' \n' ' ' >&2
		echo >&2
		ip -n peer -s link show eth1 >&2
		cat "$tmp/hsend.out" >&2
		ip netns exec peer tc -s qdisc show dev eth1 >&2
		grep '^Udp:' /proc/net/snmp >&2
		fail VJNET_DIRECT_HOSTILE "$why"
	else
		ok VJNET_DIRECT_HOSTILE
	fi
}

t_neigh() {
	local why= st
	ip neigh flush dev "$dev" 2>/dev/null
	ip -n peer neigh flush dev eth1 2>/dev/null
	ping -c 1 -W 2 192.0.2.130 >/dev/null 2>&1
	ping -6 -c 1 -W 2 2001:db8:2::2 >/dev/null 2>&1
	for st in 192.0.2.130 2001:db8:2::2; do
		ip neigh show "$st" dev "$dev" | grep -qE 'REACHABLE|STALE|DELAY|PROBE' ||
			why+=" $st: '$(ip neigh show "$st" dev "$dev")'"
	done
	for st in 192.0.2.129 2001:db8:2::1; do
		ip -n peer neigh show "$st" dev eth1 |
			grep -q '52:54:00:12:34:03' ||
			why+=" peer $st: '$(ip -n peer neigh show "$st" dev eth1)'"
	done
	verdict VJNET_ARP_ND "$why"
}

t_other_udp() {
	local addr port=9600 n=20 got why= c0 c1
	c0=$(ethstat "$dev" rx_channel)
	for addr in 192.0.2.129 2001:db8:2::1; do
		rm -f "$tmp/udp.ready"
		python3 -c "$udp_sink_py" "$addr" $port $n "$tmp/udp.ready" \
			>"$tmp/udp.out" 2>&1 &
		local sp=$!
		bgpids+=("$sp")
		wait_file "$tmp/udp.ready" 10 || { why+=" $addr: no sink"; continue; }
		ip netns exec peer vjchan-send -c $n -s 100 -r 200 "$addr" $port \
			>/dev/null 2>&1 || why+=" $addr: vjchan-send failed"
		wait "$sp"
		got=$(cat "$tmp/udp.out")
		[ "$got" = "$n" ] || why+=" $addr: sink got '$got' of $n"
	done
	c1=$(ethstat "$dev" rx_channel)
	[ "$c0" = "$c1" ] || why+=" rx_channel +$((c1 - c0)) with channels bound elsewhere"
	verdict VJNET_OTHER_UDP "$why"
}

# A filtered channel on the vjnet device: the driver path leaves its
# packets to the stack; the channel gets them at LOCAL_IN, not as rx_driver.
t_filtered() {
	local n=100 rc got drv c0 c1
	c0=$(ethstat "$dev" rx_channel)
	if ! recv_start filt --verify -q -c $n -t 20 udp4 dport 9650 dev "$dev"; then
		fail VJNET_FILTERED "vjchan-recv not ready: $(cat "$tmp/filt.out")"
		return
	fi
	local r=$rpid
	ip netns exec peer vjchan-send -c $n -s 200 -r 500 192.0.2.129 9650 \
		>/dev/null 2>&1
	recv_wait "$r"
	rc=$?
	c1=$(ethstat "$dev" rx_channel)
	got=$(field "$tmp/filt.out" received)
	drv=$(field "$tmp/filt.out" rx_driver)
	if [ "$rc" -ne 0 ] || [ "$got" != "$n" ]; then
		fail VJNET_FILTERED "exit $rc, received ${got:-?} of $n"
	elif [ "$drv" != 0 ] || [ "$c0" != "$c1" ]; then
		fail VJNET_FILTERED "rx_driver $drv, device rx_channel +$((c1 - c0))"
	else
		ok VJNET_FILTERED
	fi
}

# Device counters add up, and ip -s link agrees with ethtool -S.
t_counters() {
	local i e1 e2 ipn sum why= s
	s=$(ethtool -S "$dev")
	sum=0
	for i in rx_channel rx_stack rx_stack_copied rx_dropped; do
		sum=$((sum + $(sed -n "s/^ *$i: \([0-9]*\)$/\1/p" <<<"$s")))
	done
	e1=$(sed -n 's/^ *rx_packets: \([0-9]*\)$/\1/p' <<<"$s")
	[ "$sum" = "$e1" ] || why+=" rx_packets $e1, channel+stack+dropped $sum"
	for i in $(seq 10); do
		e1=$(ethstat "$dev" rx_packets)
		ipn=$(ip -s -j link show "$dev" |
			python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])')
		e2=$(ethstat "$dev" rx_packets)
		[ "$e1" = "$e2" ] && break
	done
	[ "$e1" = "$ipn" ] || why+=" ethtool rx_packets $e1, ip -s link $ipn"
	[ "$(ethstat "$dev" tx_packets)" -gt 0 ] || why+=" tx_packets 0"
	[ "$(ethstat "$dev" rx_length_errors)" = 0 ] || why+=" rx_length_errors"
	grep -q "^default_nocopy [1-9]" /proc/net/vjchan_pool ||
		why+=" default_nocopy: $(grep default_nocopy /proc/net/vjchan_pool)"
	verdict VJNET_COUNTERS "$why"
}

# busy_start PORT [--direct]: a bypass channel on the device, and traffic
# from the peer into it and to the stack (ping); sets $busy_recv.
busy_start() {
	recv_start busy -m bypass ${2:-} -q -t 60 udp4 dport "$1" dev "$dev" ||
		return 1
	busy_recv=$rpid
	ip netns exec peer vjchan-send -c 3000 -s 512 -r 1000 192.0.2.129 "$1" \
		>/dev/null 2>&1 &
	bgpids+=($!)
	ip netns exec peer ping -q -c 100 -i 0.02 -W 1 192.0.2.129 \
		>/dev/null 2>&1 &
	bgpids+=($!)
	sleep 1
}

# busy_end: the channel's consumer saw the device go and exited.
busy_end() {
	local i
	for i in $(seq 50); do
		kill -0 "$busy_recv" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$busy_recv" 2>/dev/null; then
		kill "$busy_recv"
		echo "vjchan-recv still running after the device went"
		return 1
	fi
	wait "$busy_recv"
	grep -q 'device gone' "$tmp/busy.out" ||
		{ echo "vjchan-recv: $(head -n 2 "$tmp/busy.out" | tr '\n' ' ')"; return 1; }
	[ "$(field "$tmp/busy.out" rx_driver)" -gt 0 ] ||
		{ echo "no frames through the driver before the move"; return 1; }
	if [ -n "${1:-}" ] && ! [ "$(field "$tmp/busy.out" rx_direct)" -gt 0 ]; then
		echo "no frames written directly before the move"
		return 1
	fi
	return 0
}

# VJNET_DIRECT_NETNS: a device with a direct channel moves to another
# namespace.  The channel sees the device go, and the queue is given back
# first: every buffer posted to the device came back (rx_direct_posted ==
# rx_direct_returned) and no frame the device receives in its new
# namespace is written into the old owner's buffers.  Then it moves back.
t_direct_netns() {
	local why= out p r d0 d1
	if ! busy_start 9702 --direct; then
		fail VJNET_DIRECT_NETNS "no channel: $(cat "$tmp/busy.out")"
		return
	fi
	ip netns add vjmove || why+=" netns add failed;"
	ip link set "$dev" netns vjmove || why+=" move failed;"
	out=$(busy_end direct) || why+=" $out;"
	kill_bg
	p=$(ip netns exec vjmove ethtool -S "$dev" | sed -n 's/^ *rx_direct_posted: //p')
	r=$(ip netns exec vjmove ethtool -S "$dev" | sed -n 's/^ *rx_direct_returned: //p')
	[ -n "$p" ] && [ "$p" = "$r" ] ||
		why+=" after the move rx_direct_posted ${p:-?}, rx_direct_returned ${r:-?};"
	# Traffic in the new namespace: none of it written directly.
	d0=$(ip netns exec vjmove ethtool -S "$dev" | sed -n 's/^ *rx_direct: //p')
	ip -n vjmove link set "$dev" up
	ip -n vjmove addr add 192.0.2.129/25 dev "$dev"
	ip netns exec peer ping -q -c 5 -i 0.2 -W 1 192.0.2.129 >/dev/null 2>&1
	d1=$(ip netns exec vjmove ethtool -S "$dev" | sed -n 's/^ *rx_direct: //p')
	[ "$d0" = "$d1" ] || why+=" rx_direct $d0 -> $d1 in the new namespace;"
	ip -n vjmove link set "$dev" netns 1 || why+=" move back failed;"
	ip netns del vjmove
	out=$(dev_setup "$dev" 2>&1) || why+=" device setup: $out;"
	verdict VJNET_DIRECT_NETNS "$why"
}

# direct_close_hooked NAME PORT HOOK...: a busy direct channel on PORT,
# closed with each of vjnet's test HOOKs set (errors expected from here,
# until the caller's expect_end).  Fails NAME and returns 1 if it cannot.
direct_close_hooked() {
	local name=$1 port=$2 h
	shift 2
	for h in "$@"; do
		[ -w "$h" ] || { fail "$name" "no $h"; return 1; }
	done
	if ! busy_start "$port" --direct; then
		fail "$name" "no channel: $(cat "$tmp/busy.out")"
		return 1
	fi
	expect_errors "$name"
	for h in "$@"; do
		echo 1 >"$h"
	done
	kill "$busy_recv" 2>/dev/null
	wait "$busy_recv" 2>/dev/null
	kill_bg
}

# VJNET_DIRECT_DETACH_FAIL: the queue reset that gives a busy direct
# channel's buffers back fails (vjnet's fail_rx_reset test hook) when the
# channel closes.  vjnet resets the device whole instead: every buffer came
# back (rx_direct_posted == rx_direct_returned), and the device works
# again, on global buffers: the peer's ping is answered.
t_direct_detach_fail() {
	local why= p r i up= hook=/sys/module/vjnet/parameters/fail_rx_reset
	direct_close_hooked VJNET_DIRECT_DETACH_FAIL 9703 "$hook" || return
	expect_end
	[ "$(cat "$hook")" = N ] || { why+=" the hook was not used;"; echo 0 >"$hook"; }
	dmesg | grep -q "receive queue reset failed, resetting the device" ||
		why+=" no device reset logged;"
	p=$(ethstat "$dev" rx_direct_posted)
	r=$(ethstat "$dev" rx_direct_returned)
	[ "$p" = "$r" ] ||
		why+=" rx_direct_posted $p, rx_direct_returned $r;"
	for i in $(seq 10); do
		ip netns exec peer ping -c 1 -W 1 192.0.2.129 >/dev/null 2>&1 &&
			{ up=1; break; }
		sleep 0.5
	done
	[ -n "$up" ] || why+=" 192.0.2.129 does not answer after the reset;"
	verdict VJNET_DIRECT_DETACH_FAIL "$why"
}

# VJNET_DIRECT_BROKEN: the device reset of VJNET_DIRECT_DETACH_FAIL fails
# too (vjnet's fail_reinit test hook), which leaves the device down with
# no queues.  A direct channel then bound to it is refused with EIO, at
# once (vjnet used to disable NAPI a second time and reset a deleted
# queue, hung under rtnl_lock); the device will not come up; detached and
# attached again, it works.
t_direct_broken() {
	local why= out i pid up= h1=/sys/module/vjnet/parameters/fail_rx_reset
	local h2=/sys/module/vjnet/parameters/fail_reinit
	direct_close_hooked VJNET_DIRECT_BROKEN 9704 "$h1" "$h2" || return
	[ "$(cat "$h2")" = N ] || { why+=" the hook was not used;"; echo 0 >"$h2"; }
	echo 0 >"$h1"
	dmesg | grep -q "device reset failed (-5): down until unbound" ||
		why+=" no failed device reset logged;"
	vjchan-recv -m bypass --direct -q -t 2 udp4 dport 9705 dev "$dev" \
		>"$tmp/broken.out" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		why+=" a direct bind on the broken device hangs;"
		bgpids+=("$pid")
	else
		wait "$pid" && why+=" a direct bind on the broken device succeeded;"
		grep -q 'Input/output error' "$tmp/broken.out" ||
			why+=" direct bind: $(tail -n 1 "$tmp/broken.out");"
	fi
	ip link set "$dev" down
	out=$(ip link set "$dev" up 2>&1) && why+=" the broken device came up;"
	expect_end
	if out=$(vjchan-ctl detach "$dev" 2>&1) &&
	   dev=$(vjchan-ctl attach "$(ls "/sys/bus/virtio/devices/$vdev/net/")" 2>&1) &&
	   out=$(dev_setup "$dev" 2>&1); then
		up=1
	fi
	[ -n "$up" ] || why+=" detach and attach again: $out $dev;"
	verdict VJNET_DIRECT_BROKEN "$why"
}

t_detach_busy() {
	local why= out
	# A direct channel: its buffers must come back from the queue.
	if ! busy_start 9700 --direct; then
		fail VJNET_DETACH_BUSY "no channel: $(cat "$tmp/busy.out")"
		return
	fi
	out=$(vjchan-ctl detach "$dev" 2>&1) || why+=" detach: $out;"
	[ "$(drv_of "$vdev")" = virtio_net ] || why+=" $vdev on $(drv_of "$vdev");"
	out=$(busy_end direct) || why+=" $out;"
	out=$(pool_free_ok) || why+=" $out;"
	kill_bg
	verdict VJNET_DETACH_BUSY "$why"
}

t_unload_busy() {
	local why= out i
	# The move back to virtio_net may have named the interface anew.
	out=
	dev=$(ls "/sys/bus/virtio/devices/$vdev/net/" 2>/dev/null)
	if ! dev=$(vjchan-ctl attach "$dev" 2>&1) || ! out=$(dev_setup "$dev"); then
		fail VJNET_UNLOAD_BUSY "re-attach: $dev $out"
		return
	fi
	if ! busy_start 9701 --direct; then
		fail VJNET_UNLOAD_BUSY "no channel: $(cat "$tmp/busy.out")"
		return
	fi
	for i in $(seq 30); do
		rmmod vjnet 2>/dev/null && break
		sleep 0.2
	done
	[ -d /sys/module/vjnet ] && why+=" rmmod vjnet: $(rmmod vjnet 2>&1);"
	out=$(busy_end direct) || why+=" $out;"
	out=$(pool_free_ok) || why+=" $out;"
	kill_bg
	echo "$vdev" >/sys/bus/virtio/drivers/virtio_net/bind 2>/dev/null
	[ "$(drv_of "$vdev")" = virtio_net ] || why+=" $vdev not back on virtio_net;"
	insmod "$VJ_KO/vjnet.ko" || why+=" reload failed;"
	verdict VJNET_UNLOAD_BUSY "$why"
}

cases="VJNET_ATTACH VJNET_BYPASS_UDP4 VJNET_BYPASS_UDP6 VJNET_PING VJNET_TCP
       VJNET_ARP_ND VJNET_OTHER_UDP VJNET_FILTERED VJNET_COUNTERS
       VJNET_DIRECT_UDP4 VJNET_DIRECT_UDP6 VJNET_DIRECT_EXTHDR
       VJNET_DIRECT_MARTIANS VJNET_DIRECT_SHARED VJNET_DIRECT_HOSTILE
       VJNET_DIRECT_NETNS VJNET_DIRECT_DETACH_FAIL VJNET_DIRECT_BROKEN
       VJNET_DETACH_BUSY VJNET_UNLOAD_BUSY"
fail_all() {
	local c
	for c in $cases; do
		fail "$c" "$*"
	done
}

if [ ! -e /sys/class/net/eth2 ]; then
	fail_all "no eth2 in the guest"
	exit 0
fi
if [ ! -d /sys/module/vjnet ] && ! out=$(insmod "$VJ_KO/vjnet.ko" 2>&1); then
	fail_all "insmod vjnet: $out"
	exit 0
fi
sysctl -qw net.ipv4.conf.all.arp_ignore=1
if ! why=$(peer_setup 2>&1); then
	fail_all "peer setup: $why"
	exit 0
fi
t_attach || exit 0
if ! why=$(dev_setup "$dev" 2>&1); then
	fail_all "device setup: $why"
	exit 0
fi
bypass VJNET_BYPASS_UDP4 udp4 192.0.2.129 9500
bypass VJNET_BYPASS_UDP6 udp6 2001:db8:2::1 9501
# Channels that stay bound (on other ports) during the default-path cases.
recv_start hold4 -m bypass -q -t 120 udp4 dport 9510 dev "$dev" && hold4=$rpid
recv_start hold6 -m bypass -q -t 120 udp6 dport 9511 && hold6=$rpid
t_ping
t_tcp
t_neigh
t_other_udp
t_filtered
t_counters
kill "${hold4:-}" "${hold6:-}" 2>/dev/null
wait "${hold4:-}" "${hold6:-}" 2>/dev/null
direct VJNET_DIRECT_UDP4 udp4 192.0.2.129 9520
direct VJNET_DIRECT_UDP6 udp6 2001:db8:2::1 9521
t_direct_exthdr
t_direct_martians
t_direct_shared
t_direct_hostile
t_direct_netns
t_direct_detach_fail
t_direct_broken
t_detach_busy
t_unload_busy
