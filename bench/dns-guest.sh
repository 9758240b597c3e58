#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/dns.sh: each DNS server of tests/srvlib.sh, with 1
# and 2 workers, run plainly and under vjchan-run (filtered and bypass
# channels), the same configuration each time, one after the other in this
# boot, while the host's dnsperf queries it through the tap NIC
# (MAC 52:54:00:12:35:01, 203.0.113.2/24 here, 203.0.113.1 on the host).
#
# Hand-shake with the host, in the vm.sh output share, per cell K:
#   ready-K   written here once the server answers: "server=S workers=N how=H"
#   go-K      the host is ready: the CPU count starts here
#   armed-K   written here once it has: the host starts dnsperf
#   end-K     dnsperf is done: the CPU count ends here
#   cpu-K     written here: "busy=J total=J hz=100 chan_rx=N user=J sys=J
#             softirq=J srv_user=J srv_sys=J" (busy and total jiffies of
#             all CPUs in /proc/stat between go-K and end-K, its user,
#             system and softirq columns, the server processes' user and
#             system time; chan_rx: datagrams the server's channels took,
#             chan_top: the percentage of those the busiest channel took)
#   sys-K     with BENCH_DNS_SYSCALLS=1, before cpu-K: the server's system
#             calls over the same window, one line per call number,
#             "NR CALLS NS" (calls that ended in it and their summed time
#             from entry to exit, all the server's threads)
# "skip-K reason" instead of ready-K when the server does not come up.
#
# The system-call split is summed in the guest kernel by histogram
# triggers on raw_syscalls (a synthetic event carries each call's time
# from sys_enter to sys_exit); switching them on patches kernel text, so
# bench/dns.sh runs that guest's vCPUs in turn (vm.sh --tcg-threads).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
export PATH="$top/tools:$PATH"
# shellcheck source=bench/lib.sh
source bench/lib.sh
# shellcheck source=tests/srvlib.sh
source tests/srvlib.sh

out=${VJ_OUT:?}
servers=${BENCH_DNS_SERVERS:-nsd knot unbound}
workers=${BENCH_DNS_WORKERS:-1 2}
hows=${BENCH_DNS_HOWS:-plain filtered bypass}
runs=${BENCH_DNS_RUNS:-1}
here=203.0.113.2

insmod kernel/vjchan.ko || exit 1
srv_install || exit 1
dev=$(bench_by_mac 52:54:00:12:35:01) || exit 1
ip link set lo up
ip addr add $here/24 dev "$dev"
# RPS: the flows of the one receive queue spread over every vCPU.
if [ "${BENCH_DNS_RPS:-0}" = 1 ]; then
	printf '%x' $(((1 << $(nproc)) - 1)) >"/sys/class/net/$dev/queues/rx-0/rps_cpus" || exit 1
fi
ip link set "$dev" up

# busy and total jiffies of all CPUs, then the user (with nice), system
# and softirq columns (sampled at the tick).
cpu_now() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i
	     print t - $5 - $6, t, $2 + $3, $4, $8; exit }' /proc/stat
}

# srv_procs COMM: the /proc/PID directory of every process named COMM or
# "COMM: ..." (the server and the workers it forked, which NSD names
# "nsd: server 1").
srv_procs() {
	local f line name
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		name=${line#*(}
		name=${name%)*}
		[ "$name" = "$1" ] || [ "${name#"$1": }" != "$name" ] || continue
		echo "${f%/stat}"
	done
}

# srv_now COMM: user and system jiffies of srv_procs COMM, threads
# included.
srv_now() {
	local p line u=0 s=0
	local -a r
	for p in $(srv_procs "$1"); do
		read -r line 2>/dev/null <"$p/stat" || continue
		read -ra r <<<"${line##*) }"
		u=$((u + r[11]))
		s=$((s + r[12]))
	done
	echo "$u $s"
}

# The system-call split (BENCH_DNS_SYSCALLS=1): sys_on before the window,
# sys_off COMM FILE after it.
tr=/sys/kernel/tracing
sys_enter=$tr/events/raw_syscalls/sys_enter/trigger
sys_exit=$tr/events/raw_syscalls/sys_exit/trigger
sys_lat=$tr/events/synthetic/vj_sys_lat/trigger
t_enter='hist:keys=common_pid:vj_t0=common_timestamp'
t_exit='hist:keys=common_pid:vj_ns=common_timestamp-$vj_t0,vj_nr=id,vj_tid=common_pid:onmatch(raw_syscalls.sys_enter).trace(vj_sys_lat,$vj_ns,$vj_nr,$vj_tid)'
t_lat='hist:keys=tid,nr:vals=ns:sort=tid:size=4096'

sys_setup() {
	[ -e $tr/trace ] || mount -t tracefs nodev $tr || return 1
	echo 'vj_sys_lat u64 ns; long nr; int tid' >>$tr/synthetic_events
}

sys_on() {
	echo "$t_enter" >"$sys_enter" && echo "$t_exit" >"$sys_exit" &&
		echo "$t_lat" >"$sys_lat"
}

# The threads of srv_procs COMM, summed per call number, into FILE.
sys_off() {
	local p tids=' '
	for p in $(srv_procs "$1"); do
		tids+="$(cd "$p/task" 2>/dev/null && echo *) "
	done
	awk -v tids="$tids" '/^\{ tid:/ { gsub(/[{},]/, " ")
		if (index(tids, " " $2 " ")) { n[$4] += $6; t[$4] += $8 } }
		END { for (nr in n) print nr, n[nr], t[nr] }' \
		$tr/events/synthetic/vj_sys_lat/hist >"$2"
	echo "!$t_lat" >"$sys_lat"
	echo "!$t_exit" >"$sys_exit"
	echo "!$t_enter" >"$sys_enter"
}

chan_rx() {	# datagrams taken by the channels bound to port 53 (IPv4 only here)
	srv_chans ipv4 53 | awk '{ n += $1 } END { print n + 0 }'
}

# chan_top "BEFORE" "AFTER": of the datagrams the channels took between the
# two lists of srv_chans (one count per channel, in the same order), the
# percentage the busiest channel took; empty without channels.
chan_top() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x); split(b, y)
		for (i = 1; i <= n; i++) { d = y[i] - x[i]; t += d; if (d > m) m = d }
		if (t > 0) printf "%d", 100 * m / t }'
}

syscalls=${BENCH_DNS_SYSCALLS:-0}
[ "$syscalls" != 1 ] || sys_setup || exit 1
k=1
for srv in $servers; do
	for n in $workers; do
		# Runs outermost: a drift over the boot falls on every way alike.
		for ((run = 1; run <= runs; run++)); do
			for how in $hows; do
				dir=/tmp/dns-$k
				mkdir -p "$dir"
				cmd=$(SRV_ADDR4=$here SRV_ADDR6='' SRV_THREADS=$n srv_conf "$srv" "$dir")
				comm=$(basename "${cmd%% *}")
				if [ "$how" = plain ]; then
					# shellcheck disable=SC2086
					$cmd >"$dir/out" 2>&1 &
				elif [ "$how" = cpu ] || [ "$how" = consumer ]; then
					# Bypass channels spread by that VJ_GROUP rule.
					# shellcheck disable=SC2086
					vjchan-run --mode bypass --spread "$how" --ports 53 $cmd >"$dir/out" 2>&1 &
				else
					# shellcheck disable=SC2086
					vjchan-run --mode "$how" --ports 53 $cmd >"$dir/out" 2>&1 &
				fi
				pid=$!
				up=0
				for _ in $(seq 100); do
					[ "$(dig +short +time=1 +tries=1 @$here www.example.test A 2>/dev/null)" = 203.0.113.7 ] &&
						{ up=1; break; }
					sleep 0.2
				done
				if [ $up = 0 ]; then
					echo "$srv $how did not answer: $(tail -n 2 "$dir/out" | tr '\n' ' ')" >"$out/.skip-$k"
					mv "$out/.skip-$k" "$out/skip-$k"
					kill "$pid" 2>/dev/null
					wait "$pid" 2>/dev/null
					k=$((k + 1))
					continue
				fi
				# Whole or not at all: the host reads it once it exists.
				echo "server=$srv workers=$n how=$how run=$run" >"$out/.ready-$k"
				mv "$out/.ready-$k" "$out/ready-$k"
				if bench_wait_file "$out/go-$k" 60; then
					read -r b0 t0 u0 s0 q0 <<<"$(cpu_now)"
					read -r su0 ss0 <<<"$(srv_now "$comm")"
					r0=$(chan_rx)
					c0=$(srv_chans ipv4 53 | tr '\n' ' ')
					[ "$syscalls" != 1 ] || sys_on
					# dnsperf starts now, not before the counts above.
					touch "$out/armed-$k"
					bench_wait_file "$out/end-$k" 120
					read -r b1 t1 u1 s1 q1 <<<"$(cpu_now)"
					read -r su1 ss1 <<<"$(srv_now "$comm")"
					r1=$(chan_rx)
					c1=$(srv_chans ipv4 53 | tr '\n' ' ')
					if [ "$syscalls" = 1 ]; then
						sys_off "$comm" "$out/.sys-$k"
						mv "$out/.sys-$k" "$out/sys-$k"
					fi
					echo "busy=$((b1 - b0)) total=$((t1 - t0)) hz=100 chan_rx=$((r1 - r0))" \
						"user=$((u1 - u0)) sys=$((s1 - s0)) softirq=$((q1 - q0))" \
						"srv_user=$((su1 - su0)) srv_sys=$((ss1 - ss0))" \
						"chan_top=$(chan_top "$c0" "$c1")" >"$out/.cpu-$k"
					mv "$out/.cpu-$k" "$out/cpu-$k"
				fi
				kill "$pid" 2>/dev/null
				wait "$pid" 2>/dev/null
				k=$((k + 1))
			done
		done
	done
done
echo "$k" >"$out/cells-done"
