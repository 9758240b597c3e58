# SPDX-License-Identifier: GPL-2.0
#
# A tap for a guest's NIC inside a network namespace of its own, for the
# scripts whose peer runs on the host (tests/mq.sh, bench/mq.sh,
# bench/dns.sh).  Sourced.  The namespace holds the tap and nothing else:
# no route or link out of it, so the host's own networking never changes.
#
#   tapns_up NS TAP ADDR/LEN [multi_queue]
#       make NS with lo up and TAP (a multi-queue tap with multi_queue) at
#       ADDR/LEN; IPv6 is off in NS, so nothing leaves the tap before the
#       guest asks: QEMU stops reading a tap queue whose frames arrived
#       before the guest's driver was ready until the guest adds buffers to
#       the matching receive queue again.  Sets a trap that deletes NS on
#       exit.  Returns 1 if NS or TAP could not be made.
#   tapns_down NS
#       kill whatever runs in NS (the guest's QEMU, a peer), delete NS.

tapns_down() {
	ip netns pids "$1" 2>/dev/null | xargs -r kill 2>/dev/null || true
	sleep 1
	ip netns pids "$1" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
	ip netns del "$1" 2>/dev/null || true
}

tapns_up() {
	local ns=$1 tap=$2 addr=$3 mq=${4:-}
	# shellcheck disable=SC2064 # NS is fixed now
	trap "tapns_down '$ns'" EXIT
	ip netns add "$ns" || return 1
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	# shellcheck disable=SC2086 # no word, or "multi_queue"
	ip -n "$ns" tuntap add dev "$tap" mode tap $mq || return 1
	ip -n "$ns" addr add "$addr" dev "$tap"
	ip -n "$ns" link set "$tap" up
}
