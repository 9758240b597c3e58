#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/profile.sh (never on the host): where the guest
# kernel's time goes per packet for each receive method, from ftrace's
# function_graph tracer.  For every mode of PROFILE_MODES and every set of
# PROFILE_SETS, one bench/vjrx cell runs as in bench/guest.sh; about a second
# into its measurement window the tracer records the set's functions for
# PROFILE_SECS, and bench/fgraph.py sums their durations over the frames the
# NIC took in that time.  Rows go to $VJ_OUT/profile.csv, vjrx's own rows
# (rates with the tracer on) to $VJ_OUT/rows.csv.
#
# Why sets: a traced function's duration holds the tracer's cost at each
# traced call below it, so the "outer" set (one function per softirq pass,
# per wake-up flush, per receiving call) gives totals that the tracer
# barely inflates, and the "inner" set splits them, at a price.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

: "${VJ_OUT:?run me in the guest through scripts/vm.sh}"
[ "${VJ_IN_VM:-}" = 1 ] || { echo "profile-guest.sh: guest only" >&2; exit 2; }

read -ra modes <<<"${PROFILE_MODES:-udp-recvmmsg vjchan-hook udp-vjchan udp-vjchan-xdp vjchan-xdp afxdp-copy}"
read -ra sets <<<"${PROFILE_SETS:-outer inner}"
size=${PROFILE_SIZE:-64} rate=${PROFILE_RATE:-0} psecs=${PROFILE_SECS:-0.3}
tr=/sys/kernel/tracing

# The functions of each set.  The outer ones: a softirq pass, a wake-up
# flush (its own bottom-half work), a receiving or waiting call; they nest
# only where a softirq pass runs on the way out of an interrupt that hit a
# call, and bench/fgraph.py takes such passes out of the call's time.  The
# inner ones are the steps of each path between the driver and the ring or
# socket queue, and of the receiving call; the passes and flushes are
# traced with them so that they can be taken out in the same way.
declare -A set_fns
set_fns[outer]="net_rx_action vj_wake_flush __x64_sys_recvmmsg do_sys_poll"
set_fns[inner]="net_rx_action vj_wake_flush virtnet_poll ip_list_rcv ip_rcv_core nf_hook_slow vj_hook_in
vj_classify_skb vj_deliver_skb vj_ring_rx_skb ip_local_deliver
__udp4_lib_rcv udp_queue_rcv_one_skb __udp_enqueue_schedule_skb
xdp_do_redirect __xsk_map_redirect vj_xdp_deliver vj_ring_rx_xdp
vj_ring_publish_batch sock_def_readable try_to_wake_up
udp_recvmsg skb_copy_datagram_iter vj_udp_recvmsg vj_udp_rx_one
vj_udp_check xsk_poll"

bench_nic_up
insmod kernel/vjchan.ko
bench/vjrx --header >"$VJ_OUT/rows.csv"
python3 bench/fgraph.py --header >"$VJ_OUT/profile.csv"

echo 0 >"$tr/tracing_on"
echo "${PROFILE_BUF_KB:-32768}" >"$tr/buffer_size_kb"

# arm SET: the function_graph tracer on SET's functions (those this kernel
# can trace), off until tracing_on.  Durations exclude time asleep.
arm() {
	local f
	echo nop >"$tr/current_tracer"
	: >"$tr/set_ftrace_filter"
	for f in ${set_fns[$1]}; do
		echo "$f" >>"$tr/set_ftrace_filter" 2>/dev/null ||
			echo "profile-guest.sh: cannot trace $f" >&2
	done
	echo function_graph >"$tr/current_tracer"
	echo 1 >"$tr/options/funcgraph-tail"
	echo 1 >"$tr/options/funcgraph-proc"
	echo 0 >"$tr/options/sleep-time"
}

overruns() {
	cat "$tr"/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }'
}

stat=/sys/class/net/$bench_nic/statistics/rx_packets
k=0
for s in "${sets[@]}"; do
	[ -n "${set_fns[$s]:-}" ] || { echo "profile-guest.sh: no set $s" >&2; exit 2; }
	arm "$s"
	for mode in "${modes[@]}"; do
		k=$((k + 1))
		bench/vjrx -k "$k" -s "$size" -r "$rate" -w 1 -T 3 --smp "$(nproc)" \
			--run 1 "$mode" "$bench_nic" >/dev/null &
		rx=$!
		bench_wait_file "$VJ_OUT/ready-$k" 20 || { echo "profile-guest.sh: $mode: no ready-$k" >&2; }
		sleep 2
		: >"$tr/trace"
		o0=$(overruns)
		# Builtins only between the counter and the tracer: a fork
		# here takes tens of milliseconds of the window.
		read -r p0 <"$stat"
		echo 1 >"$tr/tracing_on"
		sleep "$psecs"
		echo 0 >"$tr/tracing_on"
		read -r p1 <"$stat"
		o1=$(overruns)
		wait "$rx" || true
		cp "$tr/trace" "$VJ_OUT/trace-$s-$mode"
		python3 bench/fgraph.py "$VJ_OUT/trace-$s-$mode" $((p1 - p0)) "$mode" "$s" \
			>>"$VJ_OUT/profile.csv"
		echo "profile: $s $mode packets=$((p1 - p0)) overruns=$((o1 - o0))"
		[ "${PROFILE_KEEP:-0}" = 1 ] || rm -f "$VJ_OUT/trace-$s-$mode"
	done
done
# The tracer stays armed: the guest powers off next, and every patch of
# kernel text risks the stale int3 of a guest with a thread per vCPU.
echo "cells=$k" >"$VJ_OUT/finished"
