#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/mq.sh: vjnet on a two-queue virtio-net device with
# RSS (MAC 52:54:00:12:35:02, on a multi-queue tap), the peer on the other
# side of the tap (203.0.113.1, tests/mq_peer.py) asked through $VJ_OUT.
# The device gets 203.0.113.2/24.  Prints one line per case.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$top/tools:$top/tests:$PATH"
export VJ_KO=${VJ_KO:-kernel}
share=${VJ_OUT:?}
peer=203.0.113.1
here=203.0.113.2

# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"
trap 'kill_bg; rm -rf "$tmp"' EXIT
echo "<6>vjchan-tests: start" >/dev/kmsg

echo 0 >"$tmp/k"
# ask REQUEST...: the peer runs it (mq_peer.py); prints its answer line.
# The request number lives in a file: ask runs in command substitutions.
ask() {
	local k
	k=$(($(cat "$tmp/k") + 1))
	echo $k >"$tmp/k"
	echo "$*" >"$share/.req-$k"
	mv "$share/.req-$k" "$share/req-$k"
	if ! wait_file "$share/done-$k" 120; then
		echo "err no answer to: $*"
		return 1
	fi
	head -n 1 "$share/done-$k"
}

ethstat() {	# ethstat NAME: one ethtool -S counter of the device
	ethtool -S "$dev" | sed -n "s/^ *$1: \([0-9]*\)$/\1/p"
}

# peer_tcp_in PORT BYTES SPORT: the peer connects from SPORT to a server
# here on PORT and sends BYTES of the pattern; prints why not intact.
peer_tcp_in() {
	local out sp
	rm -f "$tmp/tcp.ready"
	timeout 60 python3 -c "$tcp_server_py" $here "$1" "$tmp/tcp.ready" \
		>/dev/null 2>&1 &
	sp=$!
	wait_file "$tmp/tcp.ready" 10 || echo " no TCP server on $1;"
	out=$(ask tcp $here "$1" "$2" "$3")
	[ "$out" = "ok $2 0" ] || echo " tcp in to $1: $out;"
	wait $sp 2>/dev/null
}

# table_to Q: table entries (ethtool -x) that send to queue Q.
table_to() {
	ethtool -x "$dev" | awk -v q="$1" '
		/^ *[0-9]+: / { for (i = 2; i <= NF; i++) if ($i == q) n++ }
		END { print n + 0 }'
}

# combined max|now: the device's most queue pairs, or those in use.
combined() {
	ethtool -l "$dev" | awk '/^Combined:/ { print $2 }' |
		if [ "$1" = max ]; then head -n 1; else tail -n 1; fi
}

cases="MQ_ATTACH MQ_RSS_SPREAD MQ_CHANNELS_TRAFFIC MQ_TCP_OUT MQ_RX_CSUM MQ_RX_GSO MQ_GSO_CHANNEL MQ_DIRECT_ONE_QUEUE MQ_DIRECT_STALLED MQ_DIRECT_REFUSED MQ_MANY_PAIRS"
fail_all() {
	local c
	for c in $cases; do
		fail "$c" "$1"
	done
	exit 0
}

# MQ_ATTACH: vjnet takes the device with both pairs and RSS; ethtool -l
# says so, and the peer answers ping.
t_attach() {
	local why= nic out i
	nic=$(ip -o link | awk -F': ' '/52:54:00:12:35:02/ { print $2 }')
	[ -n "$nic" ] || fail_all "no NIC with MAC 52:54:00:12:35:02"
	if ! dev=$(vjchan-ctl attach "$nic" 2>&1); then
		fail_all "vjchan-ctl attach $nic: $dev"
	fi
	ip addr add $here/24 dev "$dev" && ip link set "$dev" up ||
		fail_all "addresses on $dev"
	out=$(ethtool -l "$dev" 2>&1)
	[ "$(echo "$out" | awk '/^Combined:/ { print $2 }' | head -n 1)" = 2 ] ||
		why+=" max combined not 2: $out;"
	[ "$(echo "$out" | awk '/^Combined:/ { print $2 }' | tail -n 1)" = 2 ] ||
		why+=" combined not 2: $out;"
	dmesg | grep -q "vjnet on .*, 2 of 2 queue pairs, RSS" ||
		why+=" probe: $(dmesg | grep 'vjnet on' | tail -n 1);"
	[ "$(table_to 0)" = 64 ] && [ "$(table_to 1)" = 64 ] ||
		why+=" table: $(table_to 0) to 0, $(table_to 1) to 1;"
	for i in 1 2 3; do
		out=$(ask ping $here 3)
		[ "$out" = "ok 3" ] && break
	done
	[ "$out" = "ok 3" ] || why+=" peer ping: $out;"
	if [ -n "$why" ]; then
		ethtool -S "$dev" | grep -v ': 0$' >&2
		ip neigh >&2
		ip -s link show "$dev" >&2
		fail_all "MQ_ATTACH:$why"
	fi
	ok MQ_ATTACH
}

# MQ_RSS_SPREAD: 64 flows from the peer land on both receive queues.
t_rss_spread() {
	local why= a0 a1 b0 b1 out
	a0=$(ethstat rx0_packets) a1=$(ethstat rx1_packets)
	out=$(ask udp $here 9700 20000 640 64)
	[ "${out%% *}" = ok ] || why+=" peer: $out;"
	sleep 1
	b0=$(ethstat rx0_packets) b1=$(ethstat rx1_packets)
	[ $((b0 - a0 + b1 - a1)) -ge 640 ] ||
		why+=" $((b0 - a0 + b1 - a1)) of 640 received;"
	[ $((b0 - a0)) -ge 64 ] && [ $((b1 - a1)) -ge 64 ] ||
		why+=" queue 0 got $((b0 - a0)), queue 1 $((b1 - a1));"
	verdict MQ_RSS_SPREAD "$why"
}

# MQ_CHANNELS_TRAFFIC: ethtool -L combined 1 and 2, six times, while the
# peer sends 64 flows into a bound channel; the table follows the count,
# nothing splats, the channel and ping still work at the end.
t_channels_traffic() {
	local why= i out n p
	if ! recv_start chl -m bypass -q -t 120 udp4 dport 9701; then
		fail MQ_CHANNELS_TRAFFIC "vjchan-recv: $(cat "$tmp/chl.out")"
		return
	fi
	p=$rpid
	( ask udp $here 9701 21000 20000 64 >"$tmp/chl.peer" ) &
	for i in 1 2 3 4 5 6; do
		n=$((2 - i % 2))
		out=$(ethtool -L "$dev" combined $n 2>&1) ||
			why+=" ethtool -L combined $n: $out;"
		[ "$(combined now)" = $n ] ||
			why+=" combined not $n;"
		[ "$(table_to 0)" = $((128 / n)) ] || why+=" $n pairs: $(table_to 0) entries to 0;"
		sleep 0.5
	done
	wait $!
	out=$(cat "$tmp/chl.peer")
	[ "${out%% *}" = ok ] || why+=" peer: $out;"
	[ "$(combined now)" = 2 ] ||
		why+=" did not end at 2;"
	sleep 1
	stop "$p"
	n=$(field "$tmp/chl.out" received)
	[ "${n:-0}" -gt 0 ] || why+=" channel got ${n:-none};"
	out=$(ask ping $here 3)
	[ "$out" = "ok 3" ] || why+=" ping after: $out;"
	verdict MQ_CHANNELS_TRAFFIC "$why"
}

# MQ_TCP_OUT: with the device's transmit offloads (checksum, TSO; the tap
# offers them), TCP streams from here reach the peer intact (1 MB, then 15
# of 20 kB); ethtool -k shows the offloads on, and both transmit queues
# carry some of the 16 connections (the stack hashes each to one; all on
# one queue would happen once in 32768 runs).
t_tcp_out() {
	local why= out i a0 a1
	out=$(ethtool -k "$dev")
	echo "$out" | grep -q '^tx-checksumming: on' || why+=" tx-checksumming off;"
	echo "$out" | grep -q '^tcp-segmentation-offload: on' || why+=" TSO off;"
	a0=$(ethstat tx0_packets) a1=$(ethstat tx1_packets)
	for i in $(seq 16); do
		out=$(ask tcpsink $((9720 + i)) 30)
		[ "$out" = "ok listening" ] || { why+=" peer: $out;"; break; }
		out=$(timeout 60 python3 -c "$tcp_client_py" $peer $((9720 + i)) \
			$((i == 1 ? 1000000 : 20000)) 2>&1)
		[ "$out" = "$((i == 1 ? 1000000 : 20000)) 0" ] ||
			why+=" connection $i: $out;"
	done
	[ $(($(ethstat tx0_packets) - a0)) -gt 0 ] &&
		[ $(($(ethstat tx1_packets) - a1)) -gt 0 ] ||
		why+=" tx0 +$(($(ethstat tx0_packets) - a0)), tx1 +$(($(ethstat tx1_packets) - a1));"
	verdict MQ_TCP_OUT "$why"
}

# csum_recv NAME N: vjchan-recv NAME's N packets arrived, each marked
# CSUM_OK, each checksum right (tests/csum_check.py on its -w file).
csum_recv() {
	local n out
	n=$(grep -c 'flags=[A-Z0-9_,]*CSUM_OK' "$tmp/$1.out")
	[ "$n" = "$2" ] || echo " $1: $n of $2 marked CSUM_OK;"
	out=$(python3 tests/csum_check.py "$tmp/$1.pcapng" 2>&1)
	[ "$out" = "packets $2 bad 0" ] || echo " $1: $out;"
}

# MQ_RX_CSUM: with the device's receive checksum offload (GUEST_CSUM; the
# tap passes the peer's datagrams on with their checksums left to
# complete), ethtool -k shows rx-checksumming on; 200 datagrams reach a
# bypass channel and 200 a direct one (queue 1) with their checksums
# completed and marked CSUM_OK, counted in rx_csum_partial; a TCP stream
# in (300 kB) arrives intact.
t_rx_csum() {
	local why= out p0 p1 b d
	out=$(ethtool -k "$dev")
	echo "$out" | grep -q '^rx-checksumming: on' || why+=" rx-checksumming off;"
	p0=$(ethstat rx_csum_partial)
	recv_start csb -m bypass -c 200 -t 60 --print -w "$tmp/csb.pcapng" \
		udp4 dport 9706 || why+=" vjchan-recv: $(cat "$tmp/csb.out");"
	b=$rpid
	recv_start csd -m bypass --direct -c 200 -t 60 --print \
		-w "$tmp/csd.pcapng" udp4 saddr $peer sport 26001 daddr $here \
		dport 9708 dev "$dev" ||
		why+=" vjchan-recv --direct: $(cat "$tmp/csd.out");"
	d=$rpid
	out=$(ask udp $here 9706 26000 200)
	[ "${out%% *}" = ok ] || why+=" peer: $out;"
	out=$(ask udp $here 9708 26001 200)
	[ "${out%% *}" = ok ] || why+=" peer: $out;"
	recv_wait "$b" || why+=" bypass: $(tail -n 2 "$tmp/csb.out" | tr '\n' ' ');"
	recv_wait "$d" || why+=" direct: $(tail -n 2 "$tmp/csd.out" | tr '\n' ' ');"
	why+=$(csum_recv csb 200)
	why+=$(csum_recv csd 200)
	p1=$(ethstat rx_csum_partial)
	[ $((p1 - p0)) -ge 400 ] || why+=" rx_csum_partial +$((p1 - p0));"
	why+=$(peer_tcp_in 9707 300000 26002)
	[ "$(ethstat rx_hdr_errors)" = 0 ] || why+=" rx_hdr_errors $(ethstat rx_hdr_errors);"
	verdict MQ_RX_CSUM "$why"
}

# MQ_RX_GSO: with the device's receive segmentation offload (GUEST_TSO4
# and mergeable buffers), ethtool -k shows rx-gro-hw on; a TCP stream in
# (1 MB) arrives intact in frames across several buffers (rx_gso), none
# refused (rx_hdr_errors, rx_length_errors, driver_bad stay).  With
# ethtool -K rx-gro-hw off the device sends none (rx_gso stays) and a
# stream still arrives intact; on again, it does.
t_rx_gso() {
	local why= g0 b0 out
	ethtool -k "$dev" | grep -q '^rx-gro-hw: on' || why+=" rx-gro-hw off;"
	g0=$(ethstat rx_gso) b0=$(pool driver_bad)
	why+=$(peer_tcp_in 9710 1000000 26004)
	[ $(($(ethstat rx_gso) - g0)) -gt 0 ] || why+=" rx_gso +0;"
	[ "$(ethstat rx_hdr_errors)" = 0 ] && [ "$(ethstat rx_length_errors)" = 0 ] ||
		why+=" rx_hdr_errors $(ethstat rx_hdr_errors) rx_length_errors $(ethstat rx_length_errors);"
	[ "$(pool driver_bad)" = "$b0" ] || why+=" driver_bad $b0 -> $(pool driver_bad);"
	out=$(ethtool -K "$dev" rx-gro-hw off 2>&1) || why+=" rx-gro-hw off: $out;"
	g0=$(ethstat rx_gso)
	why+=$(peer_tcp_in 9712 300000 26006)
	[ "$(ethstat rx_gso)" = "$g0" ] || why+=" rx_gso +$(($(ethstat rx_gso) - g0)) with rx-gro-hw off;"
	out=$(ethtool -K "$dev" rx-gro-hw on 2>&1) || why+=" rx-gro-hw on: $out;"
	g0=$(ethstat rx_gso)
	why+=$(peer_tcp_in 9713 300000 26007)
	[ $(($(ethstat rx_gso) - g0)) -gt 0 ] || why+=" rx_gso +0 with rx-gro-hw on again;"
	verdict MQ_RX_GSO "$why"
}

# MQ_GSO_CHANNEL: a bypass channel bound to a TCP connection while the
# peer streams into it gets the frames in flight, among them frames of the
# receive segmentation offload, cut into wire frames by the driver path
# (gso_segmented; each marked DRIVER and CSUM_OK; only frames the stack
# already held at the bind come by the hook): none longer than 1514 bytes,
# every checksum right.
t_gso_channel() {
	local why= s0 n big p f hook
	rm -f "$tmp/tcp.ready"
	timeout 30 python3 -c "$tcp_server_py" $here 9711 "$tmp/tcp.ready" \
		discard >/dev/null 2>&1 &
	p=$!
	wait_file "$tmp/tcp.ready" 10 || why+=" no TCP server;"
	# Up to 20 s: the sender stalls 3 s after the bind anyway (the
	# channel takes the flow), but a slow bind must not find it over.
	( ask tcpflood $here 9711 20 26005 >"$tmp/gso.peer" ) &
	f=$!
	sleep 2
	s0=$(pool gso_segmented)
	recv_start gso -m bypass -t 8 --print -w "$tmp/gso.pcapng" tcp4 \
		saddr $peer sport 26005 daddr $here dport 9711 ||
		why+=" vjchan-recv: $(cat "$tmp/gso.out");"
	wait $f
	recv_wait "$rpid"
	stop $p
	n=$(field "$tmp/gso.out" received)
	[ "${n:-0}" -gt 0 ] || why+=" channel got ${n:-none};"
	[ $(($(pool gso_segmented) - s0)) -gt 0 ] || why+=" gso_segmented +0;"
	# Over 1514 bytes (a number: awk compares a field changed by sub()
	# as a string, and "730" > "1514").
	awk '/^ifindex=/ { l = $0; sub("len=", "", $2); if ($2 + 0 > 1514) print l }' \
		"$tmp/gso.out" >"$tmp/gso.big"
	big=$(wc -l <"$tmp/gso.big")
	[ "$big" = 0 ] || why+=" $big frames over 1514 bytes: $(head -n 1 "$tmp/gso.big");"
	# The driver path's (the hook would cut aggregates too, without it):
	# every frame but those the driver had handed to the stack before the
	# bind and the hook then found the channel for (the stack holds a
	# frame at most until the end of the NAPI poll that took it: they are
	# ringed within 500 ms of the channel's first frame).
	hook=$(awk '/^ifindex=/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^tstamp=/) { t = substr($i, 8) + 0 }
			if (t0 == "") t0 = t
			if ($0 ~ / flags=L2,DRIVER,CSUM_OK /) { d++; next }
			if (t - t0 > 500000000) late++; else early++
		}
		END { printf "%d %d %d\n", d, early, late }' "$tmp/gso.out")
	set -- $hook
	[ "$1" -gt 0 ] || why+=" none by the driver path;"
	[ "$3" = 0 ] ||
		why+=" $3 frames not by the driver path after the bind: $(grep flags= "$tmp/gso.out" | grep -m 1 -v 'flags=L2,DRIVER,CSUM_OK ');"
	echo "MQ_GSO_CHANNEL: $1 frames by the driver path, $2 in flight at the bind by the hook" >&2
	out=$(python3 tests/csum_check.py "$tmp/gso.pcapng" 2>&1)
	[ "${out% bad 0}" != "$out" ] || why+=" $out;"
	grep -q '^ok' "$tmp/gso.peer" || why+=" peer: $(cat "$tmp/gso.peer");"
	if [ -n "$why" ]; then
		grep flags= "$tmp/gso.out" | grep -m 5 -v 'flags=L2,DRIVER,CSUM_OK ' >&2
		grep -E '^(gso|driver)' /proc/net/vjchan_pool >&2
		ethtool -S "$dev" | grep -E 'gso|csum|hdr' >&2
		fail MQ_GSO_CHANNEL "$why"
	else
		ok MQ_GSO_CHANNEL
	fi
}

# buffers_home: every channel buffer posted came back.
buffers_home() {
	local i p r
	for i in $(seq 50); do
		p=$(ethstat rx_direct_posted)
		r=$(ethstat rx_direct_returned)
		[ -n "$p" ] && [ "$p" = "$r" ] && return 0
		sleep 0.1
	done
	echo "rx_direct_posted $p, rx_direct_returned $r"
	return 1
}

# MQ_DIRECT_ONE_QUEUE: a direct channel for one 4-tuple owns queue 1:
# exactly one table entry sends there (ethtool -x), all 500 of its
# datagrams are published in place on queue 1 and none on queue 0, and 64
# other flows meanwhile reach the stack on queue 0.  Closing it spreads
# the table over both queues again.
t_direct_one_queue() {
	local why= out n d0 d1 s0 s1 i
	if ! recv_start d1q -m bypass --direct -q -c 500 -t 60 udp4 \
			saddr $peer sport 22000 daddr $here dport 9702 dev "$dev"; then
		fail MQ_DIRECT_ONE_QUEUE "vjchan-recv: $(cat "$tmp/d1q.out")"
		return
	fi
	[ "$(table_to 1)" = 1 ] || why+=" $(table_to 1) entries to queue 1;"
	d0=$(ethstat rx0_direct) d1=$(ethstat rx1_direct)
	s0=$(ethstat rx0_packets)
	out=$(ask udp $here 9702 22000 500)
	[ "${out%% *}" = ok ] || why+=" peer: $out;"
	out=$(ask udp $here 9703 23000 640 64)
	[ "${out%% *}" = ok ] || why+=" peer: $out;"
	recv_wait "$rpid" || why+=" vjchan-recv: $(tail -n 3 "$tmp/d1q.out" | tr '\n' ' ');"
	n=$(field "$tmp/d1q.out" received)
	[ "${n:-0}" = 500 ] || why+=" channel got ${n:-none} of 500;"
	[ $(($(ethstat rx1_direct) - d1)) = 500 ] ||
		why+=" rx1_direct +$(($(ethstat rx1_direct) - d1));"
	[ "$(ethstat rx0_direct)" = "$d0" ] || why+=" rx0_direct moved;"
	# The peer has sent them; a slow guest may still be taking them.
	for i in $(seq 100); do
		s1=$(ethstat rx0_packets)
		[ $((s1 - s0)) -ge 320 ] && break
		sleep 0.2
	done
	[ $((s1 - s0)) -ge 320 ] || why+=" queue 0 got $((s1 - s0)) of the other flows in 20 s;"
	out=$(buffers_home) || why+=" $out;"
	[ "$(table_to 1)" = 64 ] || why+=" after close $(table_to 1) entries to 1;"
	verdict MQ_DIRECT_ONE_QUEUE "$why"
}

# MQ_DIRECT_STALLED: the owner of queue 1 stops consuming (SIGSTOP) and
# the peer sends its flow until it holds every buffer; ARP (the neighbour
# table flushed), ping and a TCP connection on the same device keep
# working.  Resumed, it takes what its ring holds; closed, every buffer
# comes back.
t_direct_stalled() {
	local why= out d pst d1
	if ! recv_start dst -m bypass --direct -q -e 64 -t 120 udp4 \
			saddr $peer sport 24000 daddr $here dport 9704 dev "$dev"; then
		fail MQ_DIRECT_STALLED "vjchan-recv: $(cat "$tmp/dst.out")"
		return
	fi
	d=$rpid
	kill -STOP "$d"
	d1=$(ethstat rx1_direct)
	out=$(ask udp $here 9704 24000 2000)
	[ "${out%% *}" = ok ] || why+=" peer: $out;"
	sleep 1
	pst=$(($(ethstat rx1_direct) - d1))
	# The ring's 64 slots hold what was published; the queue has nothing.
	[ "$pst" -ge 64 ] && [ "$pst" -lt 2000 ] || why+=" published $pst of 2000;"
	out=$(ask ping $here 5 flush)
	[ "$out" = "ok 5" ] || why+=" ping with ARP: $out;"
	why+=$(peer_tcp_in 9705 200000 25000)
	kill -CONT "$d"
	stop "$d"
	out=$(buffers_home) || why+=" $out;"
	out=$(ask ping $here 2)
	[ "$out" = "ok 2" ] || why+=" ping after close: $out;"
	if [ -n "$why" ]; then
		ethtool -S "$dev" | grep -v ': 0$' >&2
		fail MQ_DIRECT_STALLED "$why"
	else
		ok MQ_DIRECT_STALLED
	fi
}

# MQ_DIRECT_REFUSED: with two pairs in use, a direct channel whose flow
# leaves a port or an address open cannot be steered (EOPNOTSUPP); with
# a direct channel bound, ethtool -L is refused (EBUSY); with one pair in
# use, the owner has the device's only queue.
t_direct_refused() {
	local why= out
	out=$(vjchan-recv -m bypass --direct -c 1 -t 1 udp4 dport 9706 \
		dev "$dev" 2>&1) && why+=" wildcard flow bound;"
	echo "$out" | grep -q 'not supported' || why+=" wildcard: $out;"
	if recv_start drf -m bypass --direct -q -t 60 udp4 \
			saddr $peer sport 26000 daddr $here dport 9707 dev "$dev"; then
		out=$(ethtool -L "$dev" combined 1 2>&1) &&
			why+=" ethtool -L with an owner;"
		echo "$out" | grep -q 'busy' || why+=" ethtool -L: $out;"
		stop "$rpid"
	else
		why+=" vjchan-recv: $(cat "$tmp/drf.out");"
	fi
	out=$(ethtool -L "$dev" combined 1 2>&1) || why+=" ethtool -L 1: $out;"
	if recv_start dr1 -m bypass --direct -q -c 100 -t 60 udp4 dport 9708 \
			dev "$dev"; then
		out=$(ask udp $here 9708 27000 100 4)
		recv_wait "$rpid" ||
			why+=" one pair: $(tail -n 2 "$tmp/dr1.out" | tr '\n' ' ');"
	else
		why+=" one pair: $(cat "$tmp/dr1.out");"
	fi
	out=$(ethtool -L "$dev" combined 2 2>&1) || why+=" ethtool -L 2: $out;"
	out=$(buffers_home) || why+=" $out;"
	verdict MQ_DIRECT_REFUSED "$why"
}

# MQ_MANY_PAIRS: a device with more queue pairs (18, the fifth NIC, on a
# tap of its own at 198.51.100.1) than vjnet drives.  vjnet drives as many
# pairs as half the global pool fills with 66 buffers each, at most 16:
# 7 with the default 1024 buffers, 16 with 4096 (vjchan reloaded).  Each
# time ethtool -L takes it to the most, to 1 and to 2, the RSS table
# follows each count, the tap's side answers ping at each, and no receive
# queue found the pool empty.  (Before the share, vjnet took 16 pairs and
# filled the first four queues from the whole pool: a frame steered to
# another waited for good, and no ping came back.)  The first vjnet device
# goes back to virtio_net first: the pool is this device's alone.
t_many_pairs() {
	local why= nic d out n max want p1 i pool
	nic=$(ip -o link | awk -F': ' '/52:54:00:12:35:03/ { print $2 }')
	if [ -z "$nic" ]; then
		fail MQ_MANY_PAIRS "no NIC with MAC 52:54:00:12:35:03"
		return
	fi
	out=$(vjchan-ctl detach "$dev" 2>&1) || why+=" detach $dev: $out;"
	for pool in 1024 4096; do
		if [ $pool = 4096 ]; then
			nic=$(vjchan-ctl detach "$d" 2>&1) || why+=" detach $d: $nic;"
			if ! out=$({ rmmod vjnet && rmmod vjchan &&
				     insmod "$VJ_KO/vjchan.ko" pool_buffers=4096 &&
				     insmod "$VJ_KO/vjnet.ko"; } 2>&1); then
				why+=" reload with 4096 buffers: $out;"
				break
			fi
		fi
		[ "$(cat /sys/module/vjchan/parameters/pool_buffers)" = $pool ] ||
			why+=" pool not $pool;"
		if ! d=$(vjchan-ctl attach "$nic" 2>&1); then
			why+=" vjchan-ctl attach $nic: $d;"
			break
		fi
		want=$((pool / 132 > 16 ? 16 : pool / 132))
		ip addr add 198.51.100.2/24 dev "$d" && ip link set "$d" up ||
			why+=" addresses on $d;"
		max=$(dev=$d combined max)
		[ "$max" = $want ] || why+=" pool $pool: max combined ${max:-none}, not $want;"
		for n in $want 1 2; do
			out=$(ethtool -L "$d" combined $n 2>&1) ||
				why+=" ethtool -L combined $n: $out;"
			[ "$(dev=$d combined now)" = $n ] ||
				why+=" combined not $n;"
			for i in 0 $((n - 1)); do
				[ "$(dev=$d table_to $i)" = $(((128 - i + n - 1) / n)) ] ||
					why+=" $n pairs: $(dev=$d table_to $i) entries to $i;"
			done
			ping -c 3 -i 0.2 -W 2 198.51.100.1 >/dev/null 2>&1 ||
				why+=" pool $pool: no ping with $n pairs;"
		done
		# Counted from the attach, the fill at link up included.
		p1=$(dev=$d ethstat rx_pool_empty)
		[ "$p1" = 0 ] || why+=" pool $pool: rx_pool_empty $p1;"
	done
	verdict MQ_MANY_PAIRS "$why"
}

if ! out=$(insmod "$VJ_KO/vjchan.ko" 2>&1 && insmod "$VJ_KO/vjnet.ko" 2>&1); then
	fail_all "insmod: $out"
fi
t_attach
t_rss_spread
t_channels_traffic
t_tcp_out
t_rx_csum
t_rx_gso
t_gso_channel
t_direct_one_queue
t_direct_stalled
t_direct_refused
t_many_pairs
