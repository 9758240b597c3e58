#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vjchan-run in the QEMU guest, run by run-guest.sh: programs we did not
# write, from Debian's archive, run with their UDP sockets made channels,
# their peers in netns "peer" across the QEMU hub, and pass their own
# checks; every case also checks in /proc/net/vjchan that the datagrams
# went through the channel, so a launcher that does nothing fails.
#
#   RUN_*            tests/vjrun_check under vjchan-run: flags and options
#                    carried over, non-blocking, epoll, interface
#                    queries (ioctl), SO_RCVTIMEO, fork,
#                    exec, sockets left alone, IPv6, errors
#   RUN_RING_SPREAD  --entries, --buf-size and --spread reach the channels
#   RUN_SOCAT_UDP4/6 socat UDP-LISTEN ... PIPE echoes the peer's lines
#   RUN_IPERF3_UDP   iperf3 -s (UDP test from the peer's iperf3 -u -c)
#   RUN_DNSMASQ_A/AAAA   dnsmasq answers dig's queries over IPv4 and IPv6,
#   RUN_DNSMASQ_WILD_*   with a socket per address and with wildcard sockets
#
# Topology (netlib.sh setup_peer): eth0 192.0.2.1, 2001:db8::1 here; eth1
# 192.0.2.2, 2001:db8::2 in netns peer.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$top/tools:$top/tests:$PATH"

# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"

cleanup() {
	kill_bg
	rm -rf "$tmp"
}
trap cleanup EXIT

# chan_field FAMILY PORT FIELD: that column of the channel of that family
# (ipv4, ipv6) bound to dport PORT in /proc/net/vjchan; empty if none.
chan_field() {
	awk -v fam="$1" -v port="$2" -v f="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["family"] == fam && $col["dport"] == port { print $col[f]; exit }
	' /proc/net/vjchan
}

chan_rx() {
	chan_field "$1" "$2" rx_packets
}

# chans_on FAMILY PORT: "saddr rx_packets" of every channel of that family
# bound to dport PORT, one line each.
chans_on() {
	awk -v fam="$1" -v port="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["family"] == fam && $col["dport"] == port {
		print $col["saddr"], $col["rx_packets"]
	}' /proc/net/vjchan
}

# wait_chan FAMILY PORT SECS: true once that channel exists.
wait_chan() {
	local i
	for i in $(seq $(($3 * 10))); do
		[ -n "$(chan_rx "$1" "$2")" ] && return 0
		sleep 0.1
	done
	return 1
}

# What the launcher promises a program, from its own checks.
t_check() {
	local out st names n
	names="RUN_REPLACE_FLAGS RUN_NONBLOCK RUN_EPOLL RUN_IOCTL RUN_RCVTIMEO RUN_FORK RUN_EXEC RUN_LEFT_ALONE RUN_IPV6 RUN_ERRORS"
	if [ ! -x tests/vjrun_check ]; then
		for n in $names; do fail "$n" "tests/vjrun_check not built"; done
		return
	fi
	out=$(timeout -k 5 150 vjchan-run --ports 7000-7009 tests/vjrun_check 7000 7010 2>"$tmp/check.err")
	st=$?
	echo "$out"
	for n in $names; do
		grep -qE "^(ok|FAIL) $n([: ]|\$)" <<<"$out" ||
			fail "$n" "no verdict (exit status $st): $(tail -n 2 "$tmp/check.err" | tr '\n' ' ')"
	done
	if [ "$st" -ne 0 ] && ! grep -q '^FAIL ' <<<"$out"; then
		fail RUN_CHECK_EXIT "exit status $st without a failed case"
	fi
}

# RUN_RING_SPREAD: --entries, --buf-size and --spread reach both channels
# of a reuseport group (vjrun_check --ring reads them back); an unknown
# rule stops vjchan-run before the program runs (exit status 125).
t_ring_spread() {
	local out st
	out=$(timeout -k 5 60 vjchan-run --ports 7020 --mode bypass --entries 64 \
		--buf-size 4096 --spread consumer tests/vjrun_check --ring 7020 64 4096 2 2>&1)
	st=$?
	if [ "$out" != "ok RUN_RING_SPREAD" ] || [ $st -ne 0 ]; then
		fail RUN_RING_SPREAD "exit status $st: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		return
	fi
	out=$(vjchan-run --spread round-robin true 2>&1)
	st=$?
	if [ $st -ne 125 ] || ! grep -q "unknown spread rule 'round-robin'" <<<"$out"; then
		fail RUN_RING_SPREAD "--spread round-robin: exit status $st: $out"
		return
	fi
	ok RUN_RING_SPREAD
}

# t_socat NAME FAMILY LISTEN CONNECT PORT: socat's UDP echo (PIPE) on a
# channel; the peer's socat sends 5 lines and must get them back.  How
# many datagrams carry them depends on how the lines reach the client's
# reads, so the channel's count is checked in bytes: its rx_bytes, less
# the Ethernet, IP and UDP headers of each datagram, must be the 65 bytes
# of the lines.
t_socat() {
	local name=$1 fam=$2 listen=$3 connect=$4 port=$5 want got srv i
	local rx0 rx1 b0 b1 hdr=42 payload
	[ "$fam" = ipv6 ] && hdr=62
	bg "$name" vjchan-run --ports "$port" socat -T 20 "$listen" PIPE
	srv=$bpid
	if ! wait_chan "$fam" "$port" 10; then
		fail "$name" "no channel on port $port: $(tail -n 3 "$tmp/$name.out" | tr '\n' ' ')"
		stop $srv
		return
	fi
	rx0=$(chan_rx "$fam" "$port")
	b0=$(chan_field "$fam" "$port" rx_bytes)
	want=$(for i in 1 2 3 4 5; do echo "vjrun line $i"; done)
	got=$(for i in 1 2 3 4 5; do echo "vjrun line $i"; sleep 0.2; done |
		timeout 30 ip netns exec peer socat -t 2 -T 5 - "$connect" 2>&1)
	rx1=$(chan_rx "$fam" "$port")
	b1=$(chan_field "$fam" "$port" rx_bytes)
	stop $srv
	payload=$((b1 - b0 - (rx1 - rx0) * hdr))
	if [ "$got" != "$want" ]; then
		fail "$name" "echo: got '$(echo $got)'; server: $(tail -n 3 "$tmp/$name.out" | tr '\n' ' ')"
	elif [ $((rx1 - rx0)) -lt 1 ] || [ "$payload" -ne 65 ]; then
		fail "$name" "the channel counted $((rx1 - rx0)) datagrams of $payload payload bytes, not 65"
	else
		ok "$name"
	fi
}

# iperf3's UDP test, the server under vjchan-run: the peer's client reports
# the datagrams sent, the server those received (lost ones subtracted).
# iperf3's server connect()s its bound socket (SO_REUSEADDR) to the client
# and then binds a new one to the same port for further streams: both must
# be channels, the connected one with the client's address in its flow id,
# which takes the test's datagrams, the new one with the wildcard flow id
# beside it.  The channels go when the server ends, before the client does,
# so the datagrams they took are counted by the filtered path's global
# fw_claimed (no other channel is bound meanwhile), and the connected
# channel's own count is only sampled.
t_iperf3() {
	local name=RUN_IPERF3_UDP port=5201 srv cl rx=0 r i res sa n fw0 fw1
	bg iperf3-s vjchan-run --verbose --ports $port iperf3 -s -1 -B 192.0.2.1 -p $port -J
	srv=$bpid
	for i in $(seq 50); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	fw0=$(awk '$1 == "fw_claimed" { print $2 }' /proc/net/vjchan_pool)
	ip netns exec peer timeout 60 iperf3 -c 192.0.2.1 -p $port -u -b 20M \
		-l 1200 -t 3 -J >"$tmp/iperf3-c.out" 2>&1 &
	cl=$!
	bgpids+=("$cl")
	# The count of the channel whose flow id has the client's address.  The
	# new socket lives only until the stream is set up (iperf3 closes it
	# then): vjchan-run's log tells that it was a channel too.
	while kill -0 $cl 2>/dev/null; do
		while read -r sa r; do
			[ "$sa" = 192.0.2.2 ] && [ "$r" -gt "$rx" ] && rx=$r
		done < <(chans_on ipv4 $port)
		sleep 0.2
	done
	wait $cl
	wait $srv
	fw1=$(awk '$1 == "fw_claimed" { print $2 }' /proc/net/vjchan_pool)
	n=$(grep -c "192.0.2.1:$port is a UDP channel" "$tmp/iperf3-s.out")
	res=$(python3 - "$tmp/iperf3-s.out" "$tmp/iperf3-c.out" "$rx" "$n" \
		"$((fw1 - fw0))" <<-'PY' 2>&1
	import json, sys
	def load(p):
	    t = open(p).read()
	    return json.loads(t[t.index("{"):])
	s, c = load(sys.argv[1]), load(sys.argv[2])
	rx, maxn, fw = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
	for who, j in (("server", s), ("client", c)):
	    if j.get("error"):
	        sys.exit("%s: %s" % (who, j["error"]))
	sent = c["end"]["sum"]["packets"]
	got = s["end"]["sum"]["packets"] - s["end"]["sum"]["lost_packets"]
	if got < 100:
	    sys.exit("server received %d of %d datagrams" % (got, sent))
	if maxn < 2:
	    sys.exit("%d channel(s) bound to the port, want the connected one and the new one" % maxn)
	if rx < 1:
	    sys.exit("no datagram counted by a channel with the client's address in its flow id")
	if fw < got:
	    sys.exit("the channels took %d datagrams, the server received %d" % (fw, got))
	print("sent %d received %d, taken by the channels %d (the connected one seen at %d), channels bound %d" % (sent, got, fw, rx, maxn))
	PY
	)
	if [ $? -eq 0 ]; then
		echo "# $name: $res"
		ok $name
	else
		fail $name "$res; server: $(grep -v '^[ {}]' "$tmp/iperf3-s.out" | tail -n 2 | tr '\n' ' ')"
	fi
}

# t_dnsmasq NAME HOW...: dnsmasq (no configuration file, --port on a
# channel) answers the peer's dig over IPv4 and IPv6 (cases NAME_A and
# NAME_AAAA).  With a socket per address (--bind-interfaces), or with
# wildcard sockets, where it reads the destination address and the arrival
# interface from IP_PKTINFO / IPV6_PKTINFO and asks the socket for that
# interface's name (SIOCGIFNAME, answered through vjchan-run's ioctl()).
t_dnsmasq() {
	local name=$1 port=5353 srv a aaaa r4 r6 c
	shift
	bg dnsmasq vjchan-run --ports $port dnsmasq -k --conf-file=/dev/null \
		--no-resolv --no-hosts --port=$port "$@" \
		--address=/example.test/203.0.113.7 \
		--address=/example.test/2001:db8::7 --user=root --group=root \
		--pid-file="$tmp/dnsmasq.pid" --log-facility="$tmp/dnsmasq.log"
	srv=$bpid
	if ! wait_chan ipv4 $port 10 || ! wait_chan ipv6 $port 5; then
		for c in ${name}_A ${name}_AAAA; do
			fail $c "no channels on port $port: $(tail -n 3 "$tmp/dnsmasq.out" | tr '\n' ' ')"
		done
		stop $srv
		return
	fi
	a=$(ip netns exec peer dig +short +time=2 +tries=3 -p $port @192.0.2.1 www.example.test A 2>&1)
	aaaa=$(ip netns exec peer dig +short +time=2 +tries=3 -p $port @2001:db8::1 www.example.test AAAA 2>&1)
	r4=$(chan_rx ipv4 $port)
	r6=$(chan_rx ipv6 $port)
	stop $srv
	if [ "$a" != 203.0.113.7 ]; then
		fail ${name}_A "dig A: '$a'; dnsmasq: $(tail -n 2 "$tmp/dnsmasq.out" | tr '\n' ' ')"
	elif [ "${r4:-0}" -lt 1 ]; then
		fail ${name}_A "answered, but the channel counted ${r4:-no} datagrams"
	else
		ok ${name}_A
	fi
	if [ "$aaaa" != 2001:db8::7 ]; then
		fail ${name}_AAAA "dig AAAA: '$aaaa'; dnsmasq: $(tail -n 2 "$tmp/dnsmasq.out" | tr '\n' ' ')"
	elif [ "${r6:-0}" -lt 1 ]; then
		fail ${name}_AAAA "answered, but the channel counted ${r6:-no} datagrams"
	else
		ok ${name}_AAAA
	fi
}

all="RUN_SOCAT_UDP4 RUN_SOCAT_UDP6 RUN_IPERF3_UDP RUN_DNSMASQ_A RUN_DNSMASQ_AAAA RUN_DNSMASQ_WILD_A RUN_DNSMASQ_WILD_AAAA"
missing=
for p in socat iperf3 dnsmasq dig; do
	command -v $p >/dev/null || missing+=" $p"
done
if ! ip -n peer link show eth1 >/dev/null 2>&1 && ! why=$(setup_peer 2>&1); then
	for c in RUN_CHECK $all; do
		fail $c "peer setup: $(echo "$why" | tail -n 1)"
	done
	exit 0
fi
# IPv6 neighbours resolved first (see net.sh).
for i in $(seq 25); do
	ping -6 -c 1 -W 1 2001:db8::2 >/dev/null 2>&1 && break
	sleep 0.2
done

t_check
t_ring_spread
if [ -n "$missing" ]; then
	for c in $all; do
		fail $c "not installed:$missing (scripts/install-deps.sh)"
	done
	exit 0
fi
t_socat RUN_SOCAT_UDP4 ipv4 UDP4-LISTEN:9200,bind=192.0.2.1 UDP4:192.0.2.1:9200 9200
t_socat RUN_SOCAT_UDP6 ipv6 "UDP6-LISTEN:9201,bind=[2001:db8::1]" "UDP6:[2001:db8::1]:9201" 9201
t_iperf3
t_dnsmasq RUN_DNSMASQ --bind-interfaces --listen-address=192.0.2.1 \
	--listen-address=2001:db8::1
t_dnsmasq RUN_DNSMASQ_WILD --interface=eth0
exit 0
