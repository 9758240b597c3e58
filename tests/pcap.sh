#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side: vjchan-recv -w.  Flows from a peer namespace (veth, an ipip
# tunnel) and over lo are written to pcapng files, which tcpdump and
# tshark read back; tests/pcap_check.py compares every packet with what
# vjchan-send sent.  Needs vjchan loaded (tests/run-guest.sh does that).
#
#   PCAP_IPV4         Ethernet frames from the peer, every byte, the time
#                     stamps equal to the kernel's tstamp plus one offset
#   PCAP_IPV6         the same over IPv6
#   PCAP_STDOUT       vjchan-recv -w - | tcpdump -r -
#   PCAP_TRUNC        datagrams longer than the buffer: captured length
#                     the buffer size, original length from the IP header
#   PCAP_SNAPLEN      --snaplen cuts further
#   PCAP_INTERFACES   one channel, packets from two interfaces: an
#                     interface description each, every packet on its own
#   PCAP_RAW_IP       packets without a link header (ipip) as raw IP
#   PCAP_OPEN_ERROR   a file that cannot be created: status 1, no channel
#   PCAP_USAGE        bad --snaplen, -w without a file: status 2
#   PCAP_DISK_FULL    writing to /dev/full: status 1, ENOSPC reported
#   PCAP_BROKEN_PIPE  the reader goes away: status 1, EPIPE, promptly
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

if [ "${VJ_IN_VM:-}" != 1 ]; then
	echo "pcap.sh: refusing to run outside the test guest" >&2
	exit 2
fi
export PATH="$top/tools:$PATH"

ns=vjpcap
here4=203.0.113.1 peer4=203.0.113.2
here6=2001:db8:113::1 peer6=2001:db8:113::2
tun_here=203.0.113.17 tun_peer=203.0.113.18
# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"	# $tmp, bgpids, ok/fail/skip, wait_file

cleanup() {
	kill_bg
	ip link del vjt0 2>/dev/null
	ip link del vjp0 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

now_ns() {
	date +%s%N
}


setup() {
	modprobe veth || return 1
	ip netns add "$ns" &&
	ip link add vjp0 type veth peer name vjp1 netns "$ns" &&
	ip addr add "$here4/28" dev vjp0 &&
	ip -6 addr add "$here6/64" dev vjp0 nodad &&
	ip link set vjp0 up &&
	ip -n "$ns" link set lo up &&
	ip -n "$ns" addr add "$peer4/28" dev vjp1 &&
	ip -n "$ns" -6 addr add "$peer6/64" dev vjp1 nodad &&
	ip -n "$ns" link set vjp1 up &&
	ip link set lo up || return 1
	# Resolve the neighbours now, so no datagram waits for ARP or ND.
	ping -c 1 -W 5 "$peer4" >/dev/null && ping -6 -c 1 -W 5 "$peer6" >/dev/null
}

# recv NAME ARGS...: vjchan-recv --ready-file in the background, output in
# $tmp/NAME.out; sets $rpid; fails if the channel is not up in 10 s.
recv() {
	local name=$1
	shift
	rm -f "$tmp/$name.ready"
	vjchan-recv --ready-file "$tmp/$name.ready" "$@" >"$tmp/$name.out" 2>&1 &
	rpid=$!
	bgpids+=("$rpid")
	wait_file "$tmp/$name.ready" 10
}

# capture NAME FLOWSPEC COUNT SENDER... : write FLOWSPEC to NAME.pcapng
# with --print while SENDER runs, wait for COUNT packets; sets t0, t1.
# Extra vjchan-recv options come in $ropts.
capture() {
	local name=$1 flow=$2 count=$3 rc
	shift 3
	t0=$(now_ns)
	if ! recv "$name" -w "$tmp/$name.pcapng" --print -c "$count" -t 30 \
			${ropts:-} $flow; then
		fail "$name" "vjchan-recv not ready: $(cat "$tmp/$name.out")"
		return 1
	fi
	if ! "$@" >"$tmp/$name.send" 2>&1; then
		fail "$name" "sender: $(cat "$tmp/$name.send")"
		return 1
	fi
	wait "$rpid"
	rc=$?
	t1=$(now_ns)
	if [ "$rc" -ne 0 ]; then
		fail "$name" "vjchan-recv exit $rc: $(tail -n 5 "$tmp/$name.out" | tr '\n' ' ')"
		return 1
	fi
	return 0
}

check() {	# check NAME ARGS...: pcap_check.py on NAME.pcapng
	local name=$1
	shift
	python3 tests/pcap_check.py "$name" "$tmp/$name.pcapng" \
		--printed "$tmp/$name.out" --t0 "$t0" --t1 "$t1" "$@"
}

peer() {
	ip netns exec "$ns" "$@"
}

if ! command -v tcpdump >/dev/null || ! command -v tshark >/dev/null; then
	for c in PCAP_IPV4 PCAP_IPV6 PCAP_STDOUT PCAP_TRUNC PCAP_SNAPLEN \
		 PCAP_INTERFACES PCAP_RAW_IP; do
		fail "$c" "tcpdump or tshark missing (scripts/install-deps.sh)"
	done
	exit 1
fi
if ! setup; then
	fail PCAP_SETUP "veth pair to namespace $ns"
	exit 1
fi

capture PCAP_IPV4 "udp4 dport 9200" 40 \
	peer vjchan-send -c 40 -s 200 -r 200 -S 1000 "$here4" 9200 &&
	check PCAP_IPV4 --src "$peer4" --dst "$here4" --dport 9200 --size 200 \
		--count 40 --seq0 1000 --ifname vjp0 --flow "udp4 dport 9200"

capture PCAP_IPV6 "udp6 dport 9201" 30 \
	peer vjchan-send -c 30 -s 1000 -r 200 "$here6" 9201 &&
	check PCAP_IPV6 --family 6 --src "$peer6" --dst "$here6" --dport 9201 \
		--size 1000 --count 30 --ifname vjp0 --flow "udp6 dport 9201"

# -w -: the pcapng stream on stdout, the rest on stderr.
rm -f "$tmp/so.ready"
( vjchan-recv -w - -c 20 -t 30 --ready-file "$tmp/so.ready" udp4 dport 9202 \
	2>"$tmp/so.err" | tcpdump -r - -nn >"$tmp/so.td" 2>"$tmp/so.tderr"
  echo "${PIPESTATUS[*]}" >"$tmp/so.st" ) &
spid=$!
bgpids+=("$spid")
why=
if ! wait_file "$tmp/so.ready" 10; then
	why="vjchan-recv not ready: $(cat "$tmp/so.err")"
else
	peer vjchan-send -c 20 -s 64 -r 200 "$here4" 9202 >/dev/null 2>&1
	wait "$spid"
	n=$(grep -c -E "^[0-9:.]+ IP $peer4\.[0-9]+ > $here4\.9202: UDP, length 64$" "$tmp/so.td")
	[ "$(cat "$tmp/so.st")" = "0 0" ] || why+="exit statuses $(cat "$tmp/so.st"): $(tr '\n' ' ' <"$tmp/so.tderr"); "
	[ "$n" = 20 ] || why+="tcpdump shows $n of 20 datagrams; "
	grep -qx 'received 20' "$tmp/so.err" || why+="no summary on stderr; "
	[ "$(wc -l <"$tmp/so.td")" = 20 ] || why+="other lines on stdout: $(grep -v UDP "$tmp/so.td" | head -n 2 | tr '\n' ' '); "
fi
if [ -n "$why" ]; then
	fail PCAP_STDOUT "$why"
else
	ok PCAP_STDOUT
fi

# lo has a 64 KiB MTU: 4000-byte datagrams arrive whole, longer than the
# 2048-byte buffers.
ropts="-b 2048" capture PCAP_TRUNC "udp4 dport 9203 dev lo" 10 \
	vjchan-send -c 10 -s 4000 127.0.0.1 9203 &&
	if ! grep -qx 'rx_truncated 10' "$tmp/PCAP_TRUNC.out"; then
		fail PCAP_TRUNC "rx_truncated is not 10: $(grep rx_truncated "$tmp/PCAP_TRUNC.out")"
	else
		check PCAP_TRUNC --src 127.0.0.1 --dst 127.0.0.1 --dport 9203 \
			--size 4000 --count 10 --caplen 2048 --ifname lo \
			--flow "udp4 dport 9203 ifindex 1"
	fi

ropts="-b 8192 --snaplen 100" capture PCAP_SNAPLEN "udp4 dport 9204 dev lo" 10 \
	vjchan-send -c 10 -s 4000 127.0.0.1 9204 &&
	check PCAP_SNAPLEN --src 127.0.0.1 --dst 127.0.0.1 --dport 9204 \
		--size 4000 --count 10 --caplen 100 --ifname lo \
		--flow "udp4 dport 9204 ifindex 1"

# Seqs 0-9 from the peer over the veth, 100-109 to our own address over lo.
send_both() {
	peer vjchan-send -c 10 -s 300 -r 200 "$here4" 9205 &&
	vjchan-send -c 10 -s 300 -r 200 -S 100 -B "$here4" "$here4" 9205
}
capture PCAP_INTERFACES "udp4 dport 9205" 20 send_both &&
	check PCAP_INTERFACES --dst "$here4" --dport 9205 --size 300 --count 20 \
		--iface "vjp0=0-9@$peer4" --iface "lo=100-109@$here4" \
		--flow "udp4 dport 9205"

# An ipip tunnel over the veth: the inner packets reach the hook on vjt0,
# which has no link header.
if ! modprobe ipip 2>/dev/null; then
	skip PCAP_RAW_IP "no ipip module"
elif ! { ip link add vjt0 type ipip local "$here4" remote "$peer4" dev vjp0 &&
	 ip addr add "$tun_here" peer "$tun_peer" dev vjt0 &&
	 ip link set vjt0 up &&
	 peer ip link add vjt1 type ipip local "$peer4" remote "$here4" dev vjp1 &&
	 peer ip addr add "$tun_peer" peer "$tun_here" dev vjt1 &&
	 peer ip link set vjt1 up; }; then
	fail PCAP_RAW_IP "cannot set up the ipip tunnel"
else
	capture PCAP_RAW_IP "udp4 dport 9206" 10 \
		peer vjchan-send -c 10 -s 120 -r 200 "$tun_here" 9206 &&
		check PCAP_RAW_IP --link raw --src "$tun_peer" --dst "$tun_here" \
			--dport 9206 --size 120 --count 10 --ifname vjt0 \
			--flow "udp4 dport 9206"
fi

# Failures.
vjchan-recv -w "$tmp/no/such/dir.pcapng" -c 1 -t 5 udp4 dport 9207 \
	>"$tmp/oe.out" 2>&1
rc=$?
if [ "$rc" != 1 ] || ! grep -q "No such file or directory" "$tmp/oe.out"; then
	fail PCAP_OPEN_ERROR "exit $rc: $(tr '\n' ' ' <"$tmp/oe.out")"
elif grep -q ' 9207 ' /proc/net/vjchan; then
	fail PCAP_OPEN_ERROR "the channel is still bound"
else
	ok PCAP_OPEN_ERROR
fi

why=
for args in "--snaplen 0 -w $tmp/u.pcapng" "--snaplen x -w $tmp/u.pcapng" "-w"; do
	vjchan-recv $args udp4 dport 9208 >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || why+="'$args' exit $rc; "
done
[ -e "$tmp/u.pcapng" ] && why+="a file was created; "
if [ -n "$why" ]; then
	fail PCAP_USAGE "$why"
else
	ok PCAP_USAGE
fi

if ! recv full -w /dev/full -c 5 -t 20 udp4 dport 9209; then
	fail PCAP_DISK_FULL "vjchan-recv not ready: $(cat "$tmp/full.out")"
else
	peer vjchan-send -c 5 -r 100 "$here4" 9209 >/dev/null 2>&1
	wait "$rpid"
	rc=$?
	if [ "$rc" != 1 ] || ! grep -q 'write /dev/full: No space left on device' "$tmp/full.out"; then
		fail PCAP_DISK_FULL "exit $rc: $(tr '\n' ' ' <"$tmp/full.out")"
	else
		ok PCAP_DISK_FULL
	fi
fi

# The reader takes 100 bytes and leaves; the next write must fail.
rm -f "$tmp/bp.ready"
start=$(date +%s)
( vjchan-recv -w - -t 25 --ready-file "$tmp/bp.ready" udp4 dport 9210 \
	2>"$tmp/bp.err" | head -c 100 >/dev/null
  echo "${PIPESTATUS[0]}" >"$tmp/bp.st" ) &
bpid=$!
bgpids+=("$bpid")
if ! wait_file "$tmp/bp.ready" 10; then
	fail PCAP_BROKEN_PIPE "vjchan-recv not ready: $(cat "$tmp/bp.err")"
else
	peer vjchan-send -c 400 -r 100 "$here4" 9210 >/dev/null 2>&1 &
	bgpids+=($!)
	wait "$bpid"
	secs=$(($(date +%s) - start))
	st=$(cat "$tmp/bp.st")
	if [ "$st" != 1 ] || ! grep -q 'Broken pipe' "$tmp/bp.err"; then
		fail PCAP_BROKEN_PIPE "exit $st: $(tr '\n' ' ' <"$tmp/bp.err")"
	elif [ "$secs" -ge 20 ]; then
		fail PCAP_BROKEN_PIPE "took ${secs}s to notice"
	else
		ok PCAP_BROKEN_PIPE
	fi
fi
exit 0
