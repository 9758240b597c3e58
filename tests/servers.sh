#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real UDP servers under vjchan-run in the QEMU guest, run by run-guest.sh:
# NSD, Knot DNS and Unbound answer dig, rsyslog writes what logger-like
# clients send, each with two workers (NSD forks its server processes
# after binding, Knot and Unbound run threads; every worker has its own
# SO_REUSEPORT socket, so each port is a group of channels), in every
# firewall mode of the launcher, over IPv4 and IPv6, from the peer across
# the QEMU hub.  Every case also checks in /proc/net/vjchan that the
# datagrams went through the channels and that every worker's channel took
# some, so a launcher that does nothing, or a worker left out, fails.
#
#   SRV_<SERVER>_<MODE>    SERVER nsd, knot, unbound (answers of dig A
#                          over IPv4 and AAAA over IPv6; 16 more queries
#                          from as many source ports, spread over the
#                          workers) or rsyslog (200 lines, 100 per IP
#                          version, all written); MODE filtered,
#                          sanctioned, bypass
#   SRV_<SERVER>_RESTART   the DNS server stopped and at once started again
#                          on the same port answers again
#
# Topology (netlib.sh setup_peer): eth0 192.0.2.1, 2001:db8::1 here; eth1
# 192.0.2.2, 2001:db8::2 in netns peer.  The servers come from
# scripts/fetch-servers.sh (tests/srvlib.sh).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
export PATH="$top/tools:$top/tests:$PATH"

# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"
# shellcheck source=tests/srvlib.sh
. "$top/tests/srvlib.sh"

cleanup() {
	kill_bg
	rm -rf "$tmp"
}
trap cleanup EXIT

modes="filtered sanctioned bypass"
dns_servers="nsd knot unbound"
export SRV_ADDR4=192.0.2.1 SRV_ADDR6=2001:db8::1 SRV_THREADS=2

# wait_members PORT N SECS: true once N channels of each family are bound
# to PORT (the workers bind in their own time).
wait_members() {
	local i
	for i in $(seq $(($3 * 5))); do
		[ "$(srv_chans ipv4 "$1" | wc -l)" -ge "$2" ] &&
			[ "$(srv_chans ipv6 "$1" | wc -l)" -ge "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

# spread_ok FAMILY PORT: every channel of FAMILY on PORT took a datagram;
# prints what the channels took otherwise.
spread_ok() {
	local rx
	rx=$(srv_chans "$1" "$2" | tr '\n' ' ')
	[ -n "$rx" ] && ! grep -qw 0 <<<"$rx" && return 0
	echo "$1 channels took: ${rx:-none}"
	return 1
}

srv_tail() {
	tail -n 3 "$tmp/$name.out" 2>/dev/null | tr "\n" " "
}

# dig_ok ADDR TYPE WANT: the peer's dig gets WANT.
dig_ok() {
	local got
	got=$(ip netns exec peer dig +short +time=2 +tries=3 @"$1" www.example.test "$2" 2>&1)
	[ "$got" = "$3" ] && return 0
	echo "dig $2 @$1: '$got'"
	return 1
}

# dig_many ADDR N: N queries, each from its own socket (dig's batch mode),
# all answered.
dig_many() {
	local i got
	for i in $(seq "$2"); do echo "www.example.test A"; done >"$tmp/batch"
	got=$(ip netns exec peer dig +short +time=2 +tries=3 @"$1" -f "$tmp/batch" 2>&1 |
		grep -c '^203\.0\.113\.7$')
	[ "$got" -eq "$2" ] && return 0
	echo "$got of $2 batch queries to $1 answered"
	return 1
}

# t_dns SERVER MODE: case SRV_<SERVER>_<MODE>.
t_dns() {
	local srv=$1 mode=$2 name cmd why=
	name=SRV_${srv^^}_${mode^^}
	mkdir -p "$tmp/$name"
	cmd=$(srv_conf "$srv" "$tmp/$name")
	# shellcheck disable=SC2086 # the command line srv_conf prints
	bg "$name" vjchan-run --mode "$mode" --ports 53 $cmd
	if ! wait_members 53 "$SRV_THREADS" 30; then
		fail "$name" "not $SRV_THREADS channels per IP version on port 53 ($(srv_chans ipv4 53 | wc -l) IPv4, $(srv_chans ipv6 53 | wc -l) IPv6): $(srv_tail)"
		stop "$bpid"
		return
	fi
	why=$(dig_ok $SRV_ADDR4 A 203.0.113.7) &&
		why=$(dig_ok $SRV_ADDR6 AAAA 2001:db8::7) &&
		why=$(dig_many $SRV_ADDR4 16) && why=$(dig_many $SRV_ADDR6 16) &&
		why=$(spread_ok ipv4 53) && why=$(spread_ok ipv6 53)
	local st=$?
	echo "# $name: channels took, per member: IPv4 $(srv_chans ipv4 53 | tr '\n' ' ')IPv6 $(srv_chans ipv6 53 | tr '\n' ' ')"
	stop "$bpid"
	if [ $st -eq 0 ]; then
		ok "$name"
	else
		fail "$name" "$why; server: $(srv_tail)"
	fi
}

# t_restart SERVER: case SRV_<SERVER>_RESTART.
t_restart() {
	local srv=$1 name cmd why
	name=SRV_${srv^^}_RESTART
	mkdir -p "$tmp/$name"
	cmd=$(srv_conf "$srv" "$tmp/$name")
	# shellcheck disable=SC2086
	bg "$name" vjchan-run --ports 53 $cmd
	if ! wait_members 53 "$SRV_THREADS" 30 || ! why=$(dig_ok $SRV_ADDR4 A 203.0.113.7); then
		fail "$name" "first run: ${why:-no channels}; server: $(srv_tail)"
		stop "$bpid"
		return
	fi
	stop "$bpid"
	# shellcheck disable=SC2086
	bg "$name" vjchan-run --ports 53 $cmd
	if ! wait_members 53 "$SRV_THREADS" 30; then
		fail "$name" "second run: no channels: $(srv_tail)"
	elif ! why=$(dig_ok $SRV_ADDR4 A 203.0.113.7) ||
	     ! why=$(dig_ok $SRV_ADDR6 AAAA 2001:db8::7); then
		fail "$name" "second run: $why; server: $(srv_tail)"
	else
		ok "$name"
	fi
	stop "$bpid"
}

# The log lines of the rsyslog case, 100 over each IP version, each from
# its own socket (so from as many source ports).
send_log_py='
import socket, sys, time
for fam, addr in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
    for i in range(100):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.sendto(b"<14>vjtest: line %d %d" % (fam, i), (addr, 514))
        s.close()
        time.sleep(0.005)
'

# t_rsyslog MODE: case SRV_RSYSLOG_<MODE>.
t_rsyslog() {
	local mode=$1 name cmd n i why=
	name=SRV_RSYSLOG_${mode^^}
	mkdir -p "$tmp/$name"
	cmd=$(SRV_PORT=514 srv_conf rsyslog "$tmp/$name")
	# shellcheck disable=SC2086
	bg "$name" vjchan-run --mode "$mode" --ports 514 $cmd
	if ! wait_members 514 1 30; then
		fail "$name" "no channels on port 514: $(srv_tail)"
		stop "$bpid"
		return
	fi
	ip netns exec peer python3 -c "$send_log_py" 2>&1 | tail -n 2
	for i in $(seq 50); do
		n=$(grep -c 'line' "$tmp/$name/rsyslog.log" 2>/dev/null)
		[ "${n:-0}" -ge 200 ] && break
		sleep 0.2
	done
	if [ "${n:-0}" -ne 200 ]; then
		why="${n:-0} of 200 lines written"
	else
		why=$(spread_ok ipv4 514) && why=$(spread_ok ipv6 514) && why=
	fi
	echo "# $name: $n lines; channels took IPv4 $(srv_chans ipv4 514 | tr '\n' ' ')IPv6 $(srv_chans ipv6 514 | tr '\n' ' ')"
	stop "$bpid"
	if [ -z "$why" ]; then
		ok "$name"
	else
		fail "$name" "$why; server: $(srv_tail)"
	fi
}

all=
for s in $dns_servers rsyslog; do
	for m in $modes; do all+=" SRV_${s^^}_${m^^}"; done
done
for s in $dns_servers; do all+=" SRV_${s^^}_RESTART"; done

failall() {
	local c
	for c in $all; do fail "$c" "$1"; done
	exit 0
}

if ! ip -n peer link show eth1 >/dev/null 2>&1 && ! why=$(setup_peer 2>&1); then
	failall "peer setup: $(echo "$why" | tail -n 1)"
fi
for _ in $(seq 25); do
	ping -6 -c 1 -W 1 2001:db8::2 >/dev/null 2>&1 && break
	sleep 0.2
done
why=$(srv_install 2>&1) || failall "servers: $why"
command -v dig >/dev/null || failall "dig not installed (scripts/install-deps.sh)"

for s in $dns_servers; do
	for m in $modes; do t_dns "$s" "$m"; done
	t_restart "$s"
done
for m in $modes; do t_rsyslog "$m"; done
exit 0
