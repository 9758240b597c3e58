#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Firewall modes end to end, on real nftables and iptables-nft rulesets,
# run by run-guest.sh.  Prints one line per case: "ok NAME" or
# "FAIL NAME: reason".
#
#   init ns                             netns fwpeer
#   vjf0 203.0.113.129/25  ---- veth ---- vjf1 203.0.113.130/25
#        2001:db8:f1::1/64                     2001:db8:f1::2/64
#   vjg0 192.0.2.129/25    ---- veth ---- vjg1 192.0.2.130/25 (netns fwdst)
#
# The init namespace forwards between fwpeer and fwdst for the transit
# cases.  Every case installs its rules in a table of its own and removes
# it afterwards.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$top/tools:$top/tests:$PATH"

# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"

fwd0=$(sysctl -n net.ipv4.ip_forward)

cleanup() {
	kill_bg
	nft delete table inet vjfw 2>/dev/null
	iptables -D INPUT -p udp --dport 7140 -j DROP 2>/dev/null
	sysctl -qw net.ipv4.ip_forward="$fwd0"
	ip netns del fwpeer 2>/dev/null
	ip netns del fwdst 2>/dev/null
	ip link del vjf0 2>/dev/null
	ip link del vjg0 2>/dev/null
	ip netns del bra 2>/dev/null
	ip netns del brb 2>/dev/null
	ip link del vjbr0 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
	ip netns add fwpeer && ip netns add fwdst &&
	ip link add vjf0 type veth peer name vjf1 netns fwpeer &&
	ip link add vjg0 type veth peer name vjg1 netns fwdst &&
	ip addr add 203.0.113.129/25 dev vjf0 &&
	ip -6 addr add 2001:db8:f1::1/64 dev vjf0 nodad &&
	ip addr add 192.0.2.129/25 dev vjg0 &&
	ip link set vjf0 up && ip link set vjg0 up &&
	ip -n fwpeer link set lo up &&
	ip -n fwpeer addr add 203.0.113.130/25 dev vjf1 &&
	ip -n fwpeer -6 addr add 2001:db8:f1::2/64 dev vjf1 nodad &&
	ip -n fwpeer link set vjf1 up &&
	ip -n fwpeer route add 192.0.2.128/25 via 203.0.113.129 &&
	ip -n fwdst link set lo up &&
	ip -n fwdst addr add 192.0.2.130/25 dev vjg1 &&
	ip -n fwdst link set vjg1 up &&
	ip -n fwdst route add default via 192.0.2.129 || return 1
	local i
	for i in $(seq 50); do
		ip netns exec fwpeer ping -c 1 -W 1 203.0.113.129 >/dev/null 2>&1 &&
			ip netns exec fwpeer ping -6 -c 1 -W 1 2001:db8:f1::1 \
				>/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "203.0.113.129 / 2001:db8:f1::1 do not answer ping"
	return 1
}

# need_rules NAME RULE...: rules, or "skip NAME" with nft's complaint when
# this kernel's nftables lacks what the rules use (the debug kernel is
# built without log, limit, reject, conntrack marks and the xt compat).
need_rules() {
	local name=$1 err
	shift
	if ! err=$(rules "$@" 2>&1); then
		skip "$name" "this kernel's nftables refuses the rule: $(echo "$err" | head -n 1)"
		return 1
	fi
}

# rules RULE...: a fresh inet table vjfw whose input chain holds RULEs.
rules() {
	local r body=""
	nft delete table inet vjfw 2>/dev/null
	for r in "$@"; do
		body+="		$r"$'\n'
	done
	nft -f - <<-NFT
	table inet vjfw {
		chain input {
			type filter hook input priority 0; policy accept;
	$body
		}
	}
	NFT
}

# counter HANDLE-COMMENT: packets of the counter rule commented COMMENT.
counter() {
	nft list chain inet vjfw input |
		sed -n "s/.*counter packets \([0-9]*\) bytes.*comment \"$1\".*/\1/p"
}

# deliver NAME MODE ADDR PORT N [SEND_ARGS...]: a channel of MODE on udp
# ADDR:PORT receives for a few seconds while fwpeer sends N datagrams;
# sets got, full, hook, filtered from its summary.
deliver() {
	local name=$1 mode=$2 addr=$3 port=$4 n=$5 kind=udp4 out
	shift 5
	[[ $addr == *:* ]] && kind=udp6
	got= full= hook= filtered=
	if ! recv_start "$name" -m "$mode" -q -e 512 -b 4096 -t 4 \
			$kind dport "$port"; then
		fail "$name" "vjchan-recv not ready: $(cat "$tmp/$name.out")"
		return 1
	fi
	local r=$rpid
	if ! out=$(ip netns exec fwpeer vjchan-send -c "$n" -r 200 "$@" \
			"$addr" "$port" 2>&1); then
		fail "$name" "vjchan-send: $out"
		kill "$r" 2>/dev/null
		return 1
	fi
	recv_wait "$r"
	got=$(field "$tmp/$name.out" received)
	full=$(field "$tmp/$name.out" rx_ring_full)
	hook=$(field "$tmp/$name.out" rx_hook)
	filtered=$(field "$tmp/$name.out" rx_filtered)
	bad=$(field "$tmp/$name.out" bad_payload)
	[ -n "$got" ] || { fail "$name" "no summary: $(tail -n 3 "$tmp/$name.out")"; return 1; }
	return 0
}

# A drop rule keeps a filtered channel's packets out and counts them; the
# same rule does not see a bypass channel's packets.
t_drop() {
	local n=20 c
	rules 'udp dport 7101 counter drop comment "d"' || { fail FW_NFT_DROP_FILTERED "nft"; return; }
	if deliver FW_NFT_DROP_FILTERED filtered 203.0.113.129 7101 $n; then
		c=$(counter d)
		if [ "$got" = 0 ] && [ "$c" = $n ] && [ "${full:-0}" = 0 ]; then
			ok FW_NFT_DROP_FILTERED
		else
			fail FW_NFT_DROP_FILTERED "channel got $got, rule counted $c of $n"
		fi
	fi
	rules 'udp dport 7101 counter drop comment "d"'
	if deliver FW_NFT_DROP_BYPASS bypass 203.0.113.129 7101 $n; then
		c=$(counter d)
		if [ "$got" = $n ] && [ "$hook" = $n ] && [ "$c" = 0 ]; then
			ok FW_NFT_DROP_BYPASS
		else
			fail FW_NFT_DROP_BYPASS "channel got $got (rx_hook $hook), rule counted $c of $n"
		fi
	fi
	rules 'meta nfproto ipv6 udp dport 7102 counter drop comment "d6"'
	if deliver FW_NFT_DROP6 filtered 2001:db8:f1::1 7102 $n; then
		c=$(counter d6)
		if [ "$got" = 0 ] && [ "$c" = $n ]; then
			ok FW_NFT_DROP6
		else
			fail FW_NFT_DROP6 "channel got $got, rule counted $c of $n"
		fi
	fi
}

# Accepted packets arrive through the filtered path, counted by the rule.
t_accept() {
	local n=20 c
	rules 'udp dport 7103 counter accept comment "a"'
	if deliver FW_NFT_COUNTER filtered 203.0.113.129 7103 $n; then
		c=$(counter a)
		if [ "$got" = $n ] && [ "$filtered" = $n ] && [ "$c" = $n ] &&
		   [ "${bad:-0}" = 0 ]; then
			ok FW_NFT_COUNTER
		else
			fail FW_NFT_COUNTER "channel got $got (rx_filtered $filtered), rule counted $c of $n"
		fi
	fi
}

# reject: nothing reaches the channel, the sender gets port unreachable.
t_reject() {
	local n=5 c
	need_rules FW_NFT_REJECT 'udp dport 7104 counter reject comment "r"' ||
		return
	ip netns exec fwpeer nft -f - <<-NFT
	table inet vjfwpeer {
		chain input {
			type filter hook input priority 0;
			icmp type destination-unreachable counter comment "u"
		}
	}
	NFT
	if deliver FW_NFT_REJECT filtered 203.0.113.129 7104 $n; then
		c=$(counter r)
		local u
		u=$(ip netns exec fwpeer nft list chain inet vjfwpeer input |
			sed -n 's/.*counter packets \([0-9]*\) bytes.*/\1/p')
		if [ "$got" = 0 ] && [ "$c" = $n ] && [ "${u:-0}" -ge 1 ]; then
			ok FW_NFT_REJECT
		else
			fail FW_NFT_REJECT "channel got $got, rule counted $c of $n, peer saw ${u:-0} unreachables"
		fi
	fi
	ip netns exec fwpeer nft delete table inet vjfwpeer 2>/dev/null
}

# A default-drop policy with "ct state established": the channel takes
# the datagrams after the input chain accepted them as new (one-way UDP
# stays "new" until a reply), and the conntrack entry is confirmed: it is
# in the table, so the host's reply makes the flow established and the
# peer's next datagrams pass the "established" rule.
t_ct() {
	local n=10 c c2
	nft delete table inet vjfw 2>/dev/null
	nft -f - <<-NFT
	table inet vjfw {
		chain input {
			type filter hook input priority 0; policy drop;
			ct state established,related counter accept comment "est"
			udp dport 7105 ct state new counter accept comment "new"
			icmp type echo-request accept
			meta l4proto ipv6-icmp accept
		}
	}
	NFT
	deliver FW_NFT_CT_ESTABLISHED filtered 203.0.113.129 7105 $n -p 5555 || return
	c=$(counter new)
	if [ "$got" != $n ] || [ "$c" != $n ]; then
		fail FW_NFT_CT_ESTABLISHED "channel got $got of $n; 'ct state new' matched $c times"
		return
	fi
	if [ ! -e /proc/net/nf_conntrack ]; then
		skip FW_NFT_CT_ESTABLISHED "no /proc/net/nf_conntrack (NF_CONNTRACK_PROCFS) to see the entry"
		return
	fi
	if ! grep -q "src=203.0.113.130 dst=203.0.113.129 sport=5555 dport=7105" \
			/proc/net/nf_conntrack; then
		fail FW_NFT_CT_ESTABLISHED "no conntrack entry for the channel's flow (not confirmed)"
		return
	fi
	python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("203.0.113.129", 7105))
s.sendto(b"reply", ("203.0.113.130", 5555))'
	deliver FW_NFT_CT_ESTABLISHED filtered 203.0.113.129 7105 $n -p 5555 -S 100 || return
	c2=$(counter new)
	if [ "$got" = $n ] && [ "$c2" = "$c" ] && [ "$(counter est)" -ge $n ]; then
		ok FW_NFT_CT_ESTABLISHED
	else
		fail FW_NFT_CT_ESTABLISHED "after the reply: channel got $got of $n, 'new' $c -> $c2, 'established' $(counter est)"
	fi
}

# A rate limit: what it drops is counted, the rest arrives; nothing lost.
t_limit() {
	local n=60 c
	need_rules FW_NFT_LIMIT 'udp dport 7106 limit rate over 10/second burst 5 packets counter drop comment "l"' ||
		return
	if deliver FW_NFT_LIMIT filtered 203.0.113.129 7106 $n; then
		c=$(counter l)
		if [ -n "$c" ] && [ "$c" -gt 0 ] && [ "$got" -gt 0 ] &&
		   [ $((got + c)) = $n ]; then
			ok FW_NFT_LIMIT
		else
			fail FW_NFT_LIMIT "channel got $got, the limit dropped $c, of $n"
		fi
	fi
}

# A log rule logs the channel's packets, which still arrive.
t_log() {
	local n=5 c
	need_rules FW_NFT_LOG 'udp dport 7107 log prefix "vjfw-log7107 " counter accept comment "g"' ||
		return
	if deliver FW_NFT_LOG filtered 203.0.113.129 7107 $n; then
		c=$(dmesg | grep -c "vjfw-log7107 ")
		if [ "$got" = $n ] && [ "$c" -ge 1 ]; then
			ok FW_NFT_LOG
		else
			fail FW_NFT_LOG "channel got $got of $n, $c log lines"
		fi
	fi
}

# iptables-nft: the same, through the iptables front end.
t_iptables() {
	local n=20 c
	nft delete table inet vjfw 2>/dev/null
	if ! iptables -A INPUT -p udp --dport 7140 -j DROP 2>"$tmp/ipt"; then
		# iptables-nft needs the kernel's xt compatibility (NFT_COMPAT).
		if grep -q -i "not supported\|Could not fetch\|Protocol not\|No such file" "$tmp/ipt"; then
			skip FW_IPTABLES_DROP "this kernel refuses iptables-nft rules: $(head -n 1 "$tmp/ipt")"
		else
			fail FW_IPTABLES_DROP "iptables: $(cat "$tmp/ipt")"
		fi
		return
	fi
	if deliver FW_IPTABLES_DROP filtered 203.0.113.129 7140 $n; then
		c=$(iptables -L INPUT -v -x -n | awk '/dpt:7140/ { print $1 }')
		if [ "$got" = 0 ] && [ "$c" = $n ]; then
			ok FW_IPTABLES_DROP
		else
			fail FW_IPTABLES_DROP "channel got $got, iptables counted $c of $n"
		fi
	fi
	iptables -D INPUT -p udp --dport 7140 -j DROP
}

# Fragments: the reassembled datagram arrives whole, after the firewall.
t_frags() {
	local n=10
	nft delete table inet vjfw 2>/dev/null
	if deliver FW_FRAGMENTS filtered 203.0.113.129 7108 $n -s 3000; then
		local len
		len=$(field "$tmp/FW_FRAGMENTS.out" rx_bytes)
		if [ "$got" = $n ] && [ "$filtered" = $n ] &&
		   [ "${bad:-0}" = 0 ] && [ "$len" = $((n * (14 + 28 + 3000))) ]; then
			ok FW_FRAGMENTS
		else
			fail FW_FRAGMENTS "got $got of $n (rx_filtered $filtered, bad $bad, rx_bytes $len)"
		fi
	fi
}

# Transit traffic: a wildcard bypass channel on the router does not take
# traffic for fwdst unless bound with VJ_BIND_F_TRANSIT.
t_transit() {
	local n=20 d nl0 nl
	sysctl -qw net.ipv4.ip_forward=1
	ip netns exec fwdst nft -f - <<-NFT
	table inet vjdst {
		chain input {
			type filter hook input priority 0;
			udp dport 7109 counter comment "t"
		}
	}
	NFT
	nl0=$(pool not_local)
	if deliver FW_TRANSIT_NOT_TAKEN bypass 192.0.2.130 7109 $n; then
		d=$(ip netns exec fwdst nft list chain inet vjdst input |
			sed -n 's/.*counter packets \([0-9]*\) bytes.*/\1/p')
		nl=$(($(pool not_local) - nl0))
		if [ "$got" = 0 ] && [ "$d" = $n ] && [ "$nl" -ge $n ]; then
			ok FW_TRANSIT_NOT_TAKEN
		else
			fail FW_TRANSIT_NOT_TAKEN "channel got $got, fwdst got $d of $n, not_local +$nl"
		fi
	fi
	if deliver FW_TRANSIT_FLAG bypass,transit 192.0.2.130 7109 $n; then
		d=$(ip netns exec fwdst nft list chain inet vjdst input |
			sed -n 's/.*counter packets \([0-9]*\) bytes.*/\1/p')
		if [ "$got" = $n ] && [ "$d" = $n ]; then
			ok FW_TRANSIT_FLAG
		else
			fail FW_TRANSIT_FLAG "channel got $got of $n, fwdst total $d (want $n from before)"
		fi
	fi
	ip netns exec fwdst nft delete table inet vjdst 2>/dev/null
	sysctl -qw net.ipv4.ip_forward="$fwd0"
}

# GRO on: a TCP flow's segments, merged by GRO on the veth, all reach the
# channel one by one, and are counted.
t_gro() {
	local mode name n=32 seg0 mac got rxp
	if ! ethtool -K vjf0 gro on 2>"$tmp/eth"; then
		fail FW_GRO_TCP_BYPASS "ethtool -K vjf0 gro on: $(cat "$tmp/eth")"
		return
	fi
	# veth merges only what a device without TSO sent (GRO needs NAPI,
	# which it uses only for such packets).
	ip netns exec fwpeer ethtool -K vjf1 tso off 2>/dev/null
	# netem's slots hold the burst and release it at once, so that one
	# NAPI poll of vjf0 sees many segments to merge.
	if ! ip netns exec fwpeer tc qdisc add dev vjf1 root netem \
			slot 300ms 300ms packets 64 2>"$tmp/tc"; then
		# The debug kernel has no packet scheduler (NET_SCHED).
		skip FW_GRO_TCP_BYPASS "no netem in this kernel: $(head -n 1 "$tmp/tc")"
		skip FW_GRO_TCP_FILTERED "as FW_GRO_TCP_BYPASS"
		return
	fi
	mac=$(cat /sys/class/net/vjf0/address)
	for mode in bypass filtered; do
		name=FW_GRO_TCP_${mode^^}
		seg0=$(pool gso_segmented)
		if ! recv_start "$name" -m "$mode" -q -e 512 -t 10 -c $n \
				tcp4 dport 7110; then
			fail "$name" "vjchan-recv not ready"
			continue
		fi
		local r=$rpid
		ip netns exec fwpeer python3 "$top/tests/tcpburst.py" vjf1 "$mac" \
			203.0.113.130 203.0.113.129 4000 7110 $n 1000
		recv_wait "$r"
		got=$(field "$tmp/$name.out" received)
		rxp=$(field "$tmp/$name.out" rx_packets)
		if [ "$(pool gso_segmented)" = "$seg0" ]; then
			fail "$name" "GRO merged nothing (gso_segmented did not move); got $got of $n"
		elif [ "$got" = $n ] && [ "$rxp" = $n ]; then
			ok "$name"
		else
			fail "$name" "got $got, rx_packets $rxp of $n segments"
		fi
	done
	ethtool -K vjf0 gro off 2>/dev/null
	ip netns exec fwpeer tc qdisc del dev vjf1 root 2>/dev/null
}

# Bridged traffic that br_netfilter shows to the IP hooks is not this
# host's: a wildcard bypass channel does not take it.
t_bridge() {
	local n=20 d
	if [ ! -e /sys/module/bridge ] && ! modprobe bridge 2>/dev/null; then
		skip FW_BRIDGE_NOT_TAKEN "this kernel has no bridge"
		return
	fi
	if ! { modprobe br_netfilter 2>"$tmp/br" &&
	       ip netns add bra && ip netns add brb &&
	       ip link add vjbr0 type bridge &&
	       ip link add vjba0 type veth peer name vjba1 netns bra &&
	       ip link add vjbb0 type veth peer name vjbb1 netns brb &&
	       ip link set vjba0 master vjbr0 && ip link set vjbb0 master vjbr0 &&
	       ip link set vjbr0 up && ip link set vjba0 up &&
	       ip link set vjbb0 up &&
	       ip -n bra addr add 203.0.113.10/28 dev vjba1 &&
	       ip -n brb addr add 203.0.113.11/28 dev vjbb1 &&
	       ip -n bra link set vjba1 up && ip -n brb link set vjbb1 up &&
	       sysctl -qw net.bridge.bridge-nf-call-iptables=1; } 2>>"$tmp/br"; then
		fail FW_BRIDGE_NOT_TAKEN "set-up: $(tail -n 1 "$tmp/br")"
		return
	fi
	ip netns exec brb nft -f - <<-NFT
	table inet vjdst {
		chain input {
			type filter hook input priority 0;
			udp dport 7113 counter comment "b"
		}
	}
	NFT
	sleep 1
	if ! recv_start FW_BRIDGE_NOT_TAKEN -m bypass -q -t 4 udp4 dport 7113; then
		fail FW_BRIDGE_NOT_TAKEN "vjchan-recv not ready"
	else
		local r=$rpid
		ip netns exec bra vjchan-send -c $n -r 200 203.0.113.11 7113 >/dev/null 2>&1
		recv_wait "$r"
		got=$(field "$tmp/FW_BRIDGE_NOT_TAKEN.out" received)
		d=$(ip netns exec brb nft list chain inet vjdst input |
			sed -n 's/.*counter packets \([0-9]*\) bytes.*/\1/p')
		if [ "$got" = 0 ] && [ "$d" = $n ]; then
			ok FW_BRIDGE_NOT_TAKEN
		else
			fail FW_BRIDGE_NOT_TAKEN "channel took $got, brb got $d of $n"
		fi
	fi
	ip netns del bra
	ip netns del brb
	ip link del vjbr0
}

# Sanctioned: the ruleset marks the connection once; its later packets
# take the pre-routing hook.  Without the mark, everything stays filtered.
t_sanctioned() {
	local n=20 c mark0 noted0
	mark0=$(cat /sys/module/vjchan/parameters/sanction_mark)
	echo $((0x10000)) >/sys/module/vjchan/parameters/sanction_mark
	noted0=$(pool sanction_noted)
	if ! need_rules FW_SANCTIONED \
		'udp dport 7111 ct mark set ct mark or 0x10000 counter accept comment "s"' \
		'udp dport 7112 counter accept comment "u"'; then
		skip FW_SANCTIONED_UNMARKED "as FW_SANCTIONED"
		skip FW_SANCTION_ENDS "as FW_SANCTIONED"
		echo "$mark0" >/sys/module/vjchan/parameters/sanction_mark
		return
	fi
	if deliver FW_SANCTIONED sanctioned 203.0.113.129 7111 $n -p 6001; then
		c=$(counter s)
		if [ "$got" = $n ] && [ "$filtered" = 1 ] &&
		   [ "$hook" = $((n - 1)) ] && [ "$c" = 1 ] &&
		   [ "$(pool sanction_noted)" = $((noted0 + 1)) ]; then
			ok FW_SANCTIONED
		else
			fail FW_SANCTIONED "got $got of $n: rx_filtered $filtered rx_hook $hook, the rule saw $c, noted +$(($(pool sanction_noted) - noted0))"
		fi
	fi
	if deliver FW_SANCTIONED_UNMARKED sanctioned 203.0.113.129 7112 $n -p 6002; then
		c=$(counter u)
		if [ "$got" = $n ] && [ "$filtered" = $n ] && [ "$hook" = 0 ] &&
		   [ "$c" = $n ]; then
			ok FW_SANCTIONED_UNMARKED
		else
			fail FW_SANCTIONED_UNMARKED "got $got of $n: rx_filtered $filtered rx_hook $hook, the rule saw $c"
		fi
	fi
	# The channel is gone: its sanction ended with it.
	if [ "$(pool sanction_ended)" -ge "$(pool sanction_noted)" ]; then
		ok FW_SANCTION_ENDS
	else
		fail FW_SANCTION_ENDS "noted $(pool sanction_noted), ended $(pool sanction_ended)"
	fi
	echo "$mark0" >/sys/module/vjchan/parameters/sanction_mark
}

cases="FW_BRIDGE_NOT_TAKEN FW_SANCTIONED FW_SANCTIONED_UNMARKED FW_SANCTION_ENDS FW_NFT_DROP_FILTERED FW_NFT_DROP_BYPASS FW_NFT_DROP6 FW_NFT_COUNTER
FW_NFT_REJECT FW_NFT_CT_ESTABLISHED FW_NFT_LIMIT FW_NFT_LOG FW_IPTABLES_DROP
FW_FRAGMENTS FW_TRANSIT_NOT_TAKEN FW_TRANSIT_FLAG FW_GRO_TCP_BYPASS
FW_GRO_TCP_FILTERED"
if ! why=$(setup 2>&1); then
	for c in $cases; do
		fail $c "set-up: $(echo "$why" | tail -n 1)"
	done
	exit 0
fi
t_drop
t_accept
t_reject
t_ct
t_limit
t_log
t_iptables
t_frags
t_transit
t_bridge
t_sanctioned
t_gro
