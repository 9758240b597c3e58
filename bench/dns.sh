#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DNS servers under their own load generator: dnsperf on the host side
# against NSD, Knot DNS and Unbound in the guest (bench/dns-guest.sh), each
# run plainly and under vjchan-run (filtered and bypass channels), with 1
# and 2 workers, one boot.  Part of make bench (bench/run.sh); alone:
#
#   bench/dns.sh [OUT.CSV]      (default bench/results/dns.csv, rewritten)
#
# The guest's fourth NIC is a tap inside a network namespace made here and
# deleted on exit ("vjdns-PID": the tap at 203.0.113.1/24, nothing else, no
# route or link to anything else); QEMU and dnsperf run in it, so the
# host's own networking never changes.  Needs /dev/net/tun: without it the
# benchmark prints "skip" and the reason.
#
# Each cell: BENCH_DNS_SECONDS [8] seconds of dnsperf -c 16 -q 200 (closed
# loop: 200 queries outstanding from 16 source ports), every query
# www.example.test A.  Rows: "smp,server,workers,how,run,qps,cpu_per_query_us,
# p50_us,p99_us,sent,completed,lost,chan_rx" where cpu_per_query_us is the
# busy time of all guest CPUs over the cell divided by the completed
# queries, p50/p99 the latency percentiles of dnsperf -v's per-query
# times, chan_rx the datagrams the channels took (0 for plain), and the
# breakdown per query, in microseconds of tick-sampled time: the server
# processes' user and system time (srv_user_us, srv_sys_us: its system
# calls), and the guest's user, system and softirq columns (the receive
# and transmit work done in softirq lands in softirq_us, or in none when
# it interrupted the idle task); chan_top_pct, the share of chan_rx that
# the busiest channel (worker) took, in percent.
# Knobs: BENCH_DNS_SERVERS, BENCH_DNS_WORKERS, BENCH_DNS_HOWS [plain
# filtered bypass; also cpu and consumer: bypass channels whose reuseport
# groups spread by that VJ_GROUP rule, vjchan-run --spread],
# BENCH_DNS_RUNS, BENCH_DNS_SECONDS, BENCH_DNS_SMP [2], BENCH_DNS_RPS [0;
# 1: receive packet steering spreads the flows of the guest NIC's one
# receive queue over every vCPU, so that more than one CPU takes queries
# in].  The medians per
# cell and their ratios to the same server run plainly go to stdout and
# bench/out/dns/summary.md.
#
# BENCH_DNS_SYSCALLS=1 splits the server's system time by call instead:
# every cell also writes, to OUT-syscalls.csv, "smp,server,workers,how,run,
# call,calls,us_per_call,us_per_query" for each system call the server's
# threads made in the window (time from entry to exit, so a call that
# sleeps, epoll_wait or poll, counts its sleep), and the medians of the
# receiving and sending calls go to bench/out/dns/syscalls.md.  Counting
# them costs time in every call, so the other columns of such a run are
# not comparable with a plain one, and its guest runs the vCPUs in turn
# (BENCH_TCG_THREADS [single]; see scripts/vm.sh --tcg-threads).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_top"

csv=${1:-$bench_dir/results/dns.csv}
secs=${BENCH_DNS_SECONDS:-8}
smp=${BENCH_DNS_SMP:-2}
syscalls=${BENCH_DNS_SYSCALLS:-0}
rps=0
[ "${BENCH_DNS_RPS:-0}" != 1 ] || rps=1
tcg=${BENCH_TCG_THREADS:-multi}
[ "$syscalls" != 1 ] || tcg=${BENCH_TCG_THREADS:-single}
sys_csv=${csv%.csv}-syscalls.csv
out=$bench_dir/out/dns
ns=vjdns-$$
tap=vjdns0

if [ ! -c /dev/net/tun ]; then
	echo "skip BENCH_DNS: no /dev/net/tun (the guest's tap NIC needs it)"
	exit 0
fi
command -v dnsperf >/dev/null ||
	{ echo "bench/dns.sh: no dnsperf (scripts/install-deps.sh)" >&2; exit 1; }
scripts/fetch-servers.sh

# Whatever runs in the namespace (the guest's QEMU, dnsperf) goes with it,
# also when this script ends early.
# shellcheck source=scripts/tapns.sh
. "$bench_top/scripts/tapns.sh"
tapns_up "$ns" $tap 203.0.113.1/24

rm -rf "$out"
mkdir -p "$out"
echo "www.example.test A" >"$out/.queries"
srvs=${BENCH_DNS_SERVERS:-nsd knot unbound} wks=${BENCH_DNS_WORKERS:-1 2}
hows=${BENCH_DNS_HOWS:-plain filtered bypass} runs=${BENCH_DNS_RUNS:-1}
# Per cell: the window, the server's start (up to 20 s) and the hand-shake.
cells=$(( $(wc -w <<<"$srvs") * $(wc -w <<<"$wks") * $(wc -w <<<"$hows") * runs ))
ip netns exec "$ns" "$bench_top/scripts/vm.sh" --smp "$smp" \
	--tcg-threads "$tcg" \
	--timeout $((cells * (secs + 25) + 180)) \
	--out "$out/vm" --quiet-boot \
	--netdev-extra "-netdev tap,id=dn,ifname=$tap,script=no,downscript=no -device virtio-net-pci,netdev=dn,mac=52:54:00:12:35:01,romfile=" \
	-- "BENCH_DNS_SERVERS='$srvs' BENCH_DNS_WORKERS='$wks' BENCH_DNS_HOWS='$hows' BENCH_DNS_RUNS=$runs BENCH_DNS_SYSCALLS=$syscalls BENCH_DNS_RPS=$rps bash bench/dns-guest.sh" \
	>"$out/vm.log" 2>&1 &
vmpid=$!

echo "smp,server,workers,how,run,qps,cpu_per_query_us,p50_us,p99_us,sent,completed,lost,chan_rx,srv_user_us,srv_sys_us,user_us,sys_us,softirq_us,chan_top_pct" >"$csv"
[ "$syscalls" != 1 ] ||
	echo "smp,server,workers,how,run,call,calls,us_per_call,us_per_query" >"$sys_csv"
vo=$out/vm
k=1
while kill -0 $vmpid 2>/dev/null; do
	if [ -e "$vo/skip-$k" ]; then
		echo "bench/dns.sh: cell $k skipped: $(cat "$vo/skip-$k")" >&2
		k=$((k + 1))
		continue
	fi
	if [ ! -e "$vo/ready-$k" ]; then
		sleep 0.1
		continue
	fi
	read -r line <"$vo/ready-$k"
	server='' workers='' how='' run=''
	eval "$(tr ' ' '\n' <<<"$line" | grep -E '^(server|workers|how|run)=[a-z0-9]+$')"
	touch "$vo/go-$k"
	bench_wait_file "$vo/armed-$k" 30 || true
	ip netns exec "$ns" dnsperf -s 203.0.113.2 -d "$out/.queries" -l "$secs" \
		-c 16 -q 200 -t 2 -v >"$out/perf-$k.txt" 2>&1 || true
	touch "$vo/end-$k"
	bench_wait_file "$vo/cpu-$k" 10 || true
	row=$(python3 - "$out/perf-$k.txt" "$vo/cpu-$k" <<-'PY'
	import re, sys
	txt = open(sys.argv[1]).read()
	def num(key):
	    m = re.search(key + r":\s+([0-9.]+)", txt)
	    return float(m.group(1)) if m else 0.0
	# "> RCODE NAME TYPE SECONDS" per answer, "> T NAME TYPE" per timeout.
	lat = sorted(float(l.split()[4]) for l in txt.splitlines()
	             if l.startswith("> ") and len(l.split()) == 5)
	def pct(p):
	    return "%.0f" % (lat[min(len(lat) - 1, int(p * len(lat)))] * 1e6) if lat else ""
	cpu = dict(kv.split("=") for kv in open(sys.argv[2]).read().split())
	done = num("Queries completed")
	busy_s = int(cpu["busy"]) / int(cpu["hz"])
	cpq = "%.1f" % (busy_s / done * 1e6) if done else ""
	def per_q(key):
	    return "%.1f" % (int(cpu[key]) / int(cpu["hz"]) / done * 1e6) if done else ""
	print("%.0f,%s,%s,%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s" % (
	      num("Queries per second"), cpq, pct(0.5), pct(0.99),
	      num("Queries sent"), done, num("Queries lost"), cpu["chan_rx"],
	      per_q("srv_user"), per_q("srv_sys"), per_q("user"), per_q("sys"),
	      per_q("softirq"), cpu.get("chan_top", "")))
	PY
	) || row=",,,,,,,,,,,,,"
	echo "$smp,$server,$workers,$how,$run,$row" | tee -a "$csv"
	if [ "$syscalls" = 1 ] && [ -s "$vo/sys-$k" ]; then
		# "NR CALLS NS" per call number; x86-64 numbers of the calls a
		# UDP server makes, the others as nrN.
		done_q=$(echo "$row" | cut -d, -f6)
		awk -v pre="$smp,$server,$workers,$how,$run" -v q="${done_q:-0}" '
		BEGIN { split("0 read 1 write 7 poll 20 writev 23 select 44 sendto 45 recvfrom 46 sendmsg 47 recvmsg 202 futex 232 epoll_wait 270 pselect6 271 ppoll 281 epoll_pwait 299 recvmmsg 307 sendmmsg 441 epoll_pwait2", a)
			for (i = 1; i in a; i += 2) nm[a[i]] = a[i + 1] }
		{ c = ($1 in nm) ? nm[$1] : "nr" $1
		  printf "%s,%s,%d,%.2f,%.2f\n", pre, c, $2, $3 / $2 / 1000, q ? $3 / q / 1000 : 0 }' \
			"$vo/sys-$k" >>"$sys_csv"
	fi
	k=$((k + 1))
done
st=0
wait $vmpid || st=$?
[ $st = 0 ] || echo "bench/dns.sh: vm.sh exit status $st (log: ${out#"$bench_top"/}/vm.log)" >&2
python3 - "$csv" "$smp" <<-'PY' | tee "$out/summary.md"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["smp"] == sys.argv[2] and r["qps"]]
cells = {}
for r in rows:
    cells.setdefault((r["server"], r["workers"], r["how"]), []).append(r)
def med(rs, k):
    v = [float(r[k]) for r in rs if r[k]]
    return statistics.median(v) if v else 0.0
print("| server | workers | how | runs | queries/s | x plain | CPU/query us | x plain | p50 us | p99 us | lost | server user / sys / softirq us per query | busiest channel % |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (srv, w, how), rs in cells.items():
    b = cells.get((srv, w, "plain"), [])
    q, c = med(rs, "qps"), med(rs, "cpu_per_query_us")
    bq, bc = med(b, "qps"), med(b, "cpu_per_query_us")
    xq = "%.2f" % (q / bq) if bq and how != "plain" else ""
    xc = "%.2f" % (c / bc) if bc and how != "plain" else ""
    top = med(rs, "chan_top_pct")
    print("| %s | %s | %s | %d | %.0f | %s | %.1f | %s | %.0f | %.0f | %d | %.1f / %.1f / %.1f | %s |" % (
        srv, w, how, len(rs), q, xq, c, xc, med(rs, "p50_us"),
        med(rs, "p99_us"), sum(int(r["lost"] or 0) for r in rs),
        med(rs, "srv_user_us"), med(rs, "srv_sys_us"), med(rs, "softirq_us"),
        "%.0f" % top if top else ""))
PY
[ "$syscalls" != 1 ] || python3 - "$sys_csv" "$smp" <<-'PY' | tee "$out/syscalls.md"
import csv, statistics, sys
cells = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["smp"] == sys.argv[2]:
        cells.setdefault((r["server"], r["workers"], r["how"]), {}) \
             .setdefault(r["call"], []).append(r)
recv = ("recvfrom", "recvmsg", "recvmmsg", "read")
send = ("sendto", "sendmsg", "sendmmsg", "write", "writev")
def med(rs, k):
    return statistics.median(float(r[k]) for r in rs)
print("| server | workers | how | receiving calls: us per call / per query | sending calls: us per call / per query | waiting (epoll, poll, select) us per query |")
print("|---|---|---|---|---|---|")
for (srv, w, how), calls in cells.items():
    def cols(names):
        return ", ".join("%s %.1f / %.1f" % (c, med(calls[c], "us_per_call"),
                         med(calls[c], "us_per_query")) for c in names if c in calls) or "-"
    wait = sum(med(rs, "us_per_query") for c, rs in calls.items()
               if "poll" in c or "select" in c or c == "epoll_wait")
    print("| %s | %s | %s | %s | %s | %.1f |" % (srv, w, how, cols(recv), cols(send), wait))
PY
exit $st
