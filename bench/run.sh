#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make bench`: build, boot one QEMU guest per vCPU count with
# the benchmark NIC, feed it traffic from vjgen while bench/guest.sh runs
# every receiver over the matrix, then write the results:
#
#   $BENCH_RESULTS/bench.csv      every measured cell (one row per run)
#   $BENCH_RESULTS/summary.csv    medians, spread, ratios to recvmmsg
#   $BENCH_RESULTS/summary.md     the same as markdown tables
#   $BENCH_RESULTS/bench.png      chart of summary.csv (bench/plot.py)
#   $BENCH_RESULTS/meta.txt       command, machine, guest kernel, timing
#   $BENCH_RESULTS/nic.csv        bench/nic.sh: TCP and ping, vjnet vs virtio_net
#   $BENCH_RESULTS/tx.csv         transmit cells (bench/vjtx), one row per run
#   $BENCH_RESULTS/iperf.csv      bench/iperf.sh: iperf3 -u, plainly and under
#                                 vjchan-run
#   $BENCH_RESULTS/dns.csv        bench/dns.sh: DNS servers under dnsperf,
#                                 plainly and under vjchan-run
#
# The matrix is set by environment variables (defaults in brackets):
#   BENCH_SMP [1 2]          guest vCPU counts, one boot each
#   BENCH_MODES [all]        receive methods (bench/vjrx --list)
#   BENCH_SIZES [64 512 1472] UDP payload sizes
#   BENCH_RUNS [3]           runs per throughput cell
#   BENCH_SECONDS [4]        measurement window per cell
#   BENCH_WARMUP [1]         warm-up before the window
#   BENCH_RATE [100000]      offered load of throughput cells (0: flat out)
#   BENCH_LAT_RATE [2000]    offered load of latency cells
#   BENCH_LAT_SIZE [64]      payload size of latency cells
#   BENCH_LAT_RUNS [BENCH_RUNS] runs per latency cell (0: none)
#   BENCH_VJNET_MODES [udp-recvmmsg vjchan-driver vjchan-direct]  receivers run again
#                            with the NIC on vjnet (rows MODE@vjnet)
#   BENCH_NIC_RUNS [BENCH_RUNS] bench/nic.sh runs (0: none)
#   BENCH_TX_RUNS [BENCH_RUNS]  runs per transmit cell (0: none)
#   BENCH_TX_RATE [0]        datagrams/s of transmit cells (0: flat out)
#   BENCH_IPERF_RUNS [BENCH_RUNS] bench/iperf.sh runs (0: none)
#   BENCH_IPERF_RATES [20M 100M]  iperf3 -b of each run
#   BENCH_IPERF_SECONDS [4]  iperf3 -t
#   BENCH_IPERF_LEN [1400]   iperf3 -l
#   BENCH_DNS_RUNS [BENCH_RUNS]  bench/dns.sh runs per cell (0: none): NSD,
#                            Knot DNS and Unbound under dnsperf, plainly and
#                            under vjchan-run, in a boot of their own
#                            (BENCH_DNS_SMP [2] vCPUs; its other knobs there)
#   BENCH_MQ_RUNS [BENCH_RUNS]  bench/mq.sh runs (0: none): TCP in and
#                            out through a two-pair tap NIC, vjnet against
#                            virtio_net, one pair and two, one connection
#                            and four, in a boot of its own
#   BENCH_TCG_THREADS [multi] vm.sh --tcg-threads: a host thread per vCPU
#   BENCH_RESULTS [bench/results]  where the results go
# With the defaults a run takes about 15 minutes on a 2-core host.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_top"

smps=${BENCH_SMP:-1 2}
export BENCH_RUNS=${BENCH_RUNS:-3} BENCH_SECONDS=${BENCH_SECONDS:-4}
export BENCH_WARMUP=${BENCH_WARMUP:-1} BENCH_RATE=${BENCH_RATE:-100000}
export BENCH_LAT_RATE=${BENCH_LAT_RATE:-2000} BENCH_LAT_SIZE=${BENCH_LAT_SIZE:-64}
export BENCH_LAT_RUNS=${BENCH_LAT_RUNS:-$BENCH_RUNS}
export BENCH_SIZES=${BENCH_SIZES:-64 512 1472}
results=${BENCH_RESULTS:-$bench_dir/results}
work=$bench_dir/out

bench_deps
bench_build
modes=${BENCH_MODES:-$("$bench_dir/vjrx" --list | tr '\n' ' ')}
export BENCH_MODES=${modes% }

export BENCH_VJNET_MODES=${BENCH_VJNET_MODES-udp-recvmmsg vjchan-driver vjchan-direct}
export BENCH_NIC_RUNS=${BENCH_NIC_RUNS:-$BENCH_RUNS}
export BENCH_TX_RUNS=${BENCH_TX_RUNS:-$BENCH_RUNS} BENCH_TX_RATE=${BENCH_TX_RATE:-0}
export BENCH_IPERF_RUNS=${BENCH_IPERF_RUNS:-$BENCH_RUNS}
export BENCH_IPERF_RATES=${BENCH_IPERF_RATES:-20M 100M}
export BENCH_IPERF_SECONDS=${BENCH_IPERF_SECONDS:-4} BENCH_IPERF_LEN=${BENCH_IPERF_LEN:-1400}

read -ra m <<<"$BENCH_MODES $BENCH_VJNET_MODES"
read -ra s <<<"$BENCH_SIZES"
read -ra ir <<<"$BENCH_IPERF_RATES"
cells=$(( ${#m[@]} * (${#s[@]} * BENCH_RUNS + BENCH_LAT_RUNS) + 2 * ${#s[@]} * BENCH_TX_RUNS ))
iperfs=$(( 2 * ${#ir[@]} * BENCH_IPERF_RUNS ))
# Per cell: warm-up, window, start-up and hand-shake; per bench/nic.sh run
# two drivers of two iperf3 runs and 2 s of ping; per iperf3 UDP test its
# time and start-up; plus the boot.
tmo=$(awk -v c="$cells" -v w="$BENCH_WARMUP" -v t="$BENCH_SECONDS" \
	-v n="$BENCH_NIC_RUNS" -v i="$iperfs" -v it="$BENCH_IPERF_SECONDS" \
	'BEGIN { printf "%d", c * (w + t + 8) + n * 2 * (2 * 4 + 30) + i * (it + 15) + 180 }')

guest_env= shown="BENCH_SMP='$smps'"
for v in BENCH_MODES BENCH_SIZES BENCH_RUNS BENCH_SECONDS BENCH_WARMUP \
	 BENCH_RATE BENCH_LAT_RATE BENCH_LAT_SIZE BENCH_LAT_RUNS \
	 BENCH_VJNET_MODES BENCH_NIC_RUNS BENCH_TX_RUNS BENCH_TX_RATE \
	 BENCH_IPERF_RUNS BENCH_IPERF_RATES BENCH_IPERF_SECONDS BENCH_IPERF_LEN; do
	guest_env+="$v=$(printf '%q' "${!v}") "
	shown+=" $v='${!v}'"
done

mkdir -p "$results" "$work"
meta=$work/meta.txt
{
	echo "command: $shown bench/run.sh"
	echo "started: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $(git -C "$bench_top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "host: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
	echo "qemu: $(qemu-system-x86_64 --version | head -n 1) (TCG, -accel tcg,thread=${BENCH_TCG_THREADS:-multi})"
	echo "host load at start: $(cut -d' ' -f1-3 /proc/loadavg); compiler jobs running: $(pgrep -c -x cc1 || true)"
} >"$meta"

# append_csv FROM TO: FROM's rows onto TO, its header only if TO is empty.
append_csv() {
	[ -f "$1" ] || return 0
	if [ -s "$2" ]; then
		tail -n +2 "$1" >>"$2"
	else
		cat "$1" >"$2"
	fi
}

status=0
rows=$work/bench.csv nic=$work/nic.csv tx=$work/tx.csv iperf=$work/iperf.csv
: >"$rows"
: >"$nic"
: >"$tx"
: >"$iperf"
for smp in $smps; do
	out=$work/smp$smp
	bench_say "$smp vCPU(s): $cells cells, at most ${tmo}s"
	st=0
	bench_boot "$smp" "$out" "$tmo" "$guest_env bash bench/guest.sh" || st=$?
	if [ "$st" != 0 ]; then
		bench_say "guest with $smp vCPU(s): vm.sh exit $st"
		echo "guest with $smp vCPU(s): vm.sh exit status $st (see $out/console.log)" >>"$meta"
		status=1
	fi
	append_csv "$out/nic.csv" "$nic"
	append_csv "$out/rows.csv" "$rows"
	append_csv "$out/tx.csv" "$tx"
	append_csv "$out/iperf.csv" "$iperf"
	[ -f "$out/guest-info" ] &&
		sed "s/^/guest ($smp vCPU): /" "$out/guest-info" >>"$meta"
done
{
	echo "host load at end: $(cut -d' ' -f1-3 /proc/loadavg); compiler jobs running: $(pgrep -c -x cc1 || true)"
	echo "finished: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
} >>"$meta"

[ -s "$rows" ] || { bench_say "no results"; exit 1; }
cp "$rows" "$results/bench.csv"
cp "$meta" "$results/meta.txt"
extra=()
for f in tx iperf; do
	rm -f "$results/$f.csv"
	if [ -s "$work/$f.csv" ]; then
		cp "$work/$f.csv" "$results/$f.csv"
		extra+=("--$f" "$results/$f.csv")
	fi
done
/usr/bin/python3 "$bench_dir/report.py" "$results/bench.csv" \
	"$results/summary.csv" "$results/summary.md" "$results/meta.txt" \
	"${extra[@]}"
/usr/bin/python3 "$bench_dir/plot.py" "$results/summary.csv" "$results/bench.png"
rm -f "$results/nic.csv"	# none of an earlier run
if [ -s "$nic" ]; then
	cp "$nic" "$results/nic.csv"
	{
		echo
		echo "### Ordinary traffic through vjnet and virtio_net (bench/nic.sh)"
		echo
		/usr/bin/python3 "$bench_dir/nic_report.py" "$results/nic.csv"
	} >>"$results/summary.md"
fi
rm -f "$results/dns.csv"
if [ "${BENCH_DNS_RUNS:-$BENCH_RUNS}" != 0 ]; then
	bench_say "DNS servers under dnsperf (bench/dns.sh)"
	st=0
	BENCH_DNS_RUNS=${BENCH_DNS_RUNS:-$BENCH_RUNS} \
		bench/dns.sh "$work/dns.csv" >"$work/dns.log" 2>&1 || st=$?
	if [ "$st" != 0 ]; then
		bench_say "bench/dns.sh: exit $st (see ${work#"$bench_top"/}/dns.log)"
		status=1
	fi
	[ -s "$work/dns.csv" ] && mv "$work/dns.csv" "$results/dns.csv"
	{
		echo
		echo "### DNS servers under dnsperf, plainly and under vjchan-run (bench/dns.sh)"
		echo
		if [ -s "$work/dns/summary.md" ]; then
			cat "$work/dns/summary.md"
		else
			grep -m1 '^skip' "$work/dns.log" || echo "no rows: see ${work#"$bench_top"/}/dns.log"
		fi
	} >>"$results/summary.md"
fi
rm -f "$results/mq.csv"
if [ "${BENCH_MQ_RUNS:-$BENCH_RUNS}" != 0 ]; then
	bench_say "multi-queue vjnet and virtio_net (bench/mq.sh)"
	st=0
	BENCH_MQ_RUNS=${BENCH_MQ_RUNS:-$BENCH_RUNS} \
		bench/mq.sh "$work/mq.csv" >"$work/mq.log" 2>&1 || st=$?
	if [ "$st" != 0 ]; then
		bench_say "bench/mq.sh: exit $st (see ${work#"$bench_top"/}/mq.log)"
		status=1
	fi
	[ -s "$work/mq.csv" ] && mv "$work/mq.csv" "$results/mq.csv"
	{
		echo
		echo "### TCP through a two-pair tap NIC: vjnet and virtio_net (bench/mq.sh)"
		echo
		if [ -s "$work/mq/summary.md" ]; then
			cat "$work/mq/summary.md"
		else
			grep -m1 '^skip' "$work/mq.log" || echo "no rows: see ${work#"$bench_top"/}/mq.log"
		fi
	} >>"$results/summary.md"
fi
cat "$results/summary.md"
made="bench.csv summary.csv summary.md bench.png meta.txt"
for f in nic tx iperf dns mq; do
	[ -s "$results/$f.csv" ] && made+=" $f.csv"
done
bench_say "results in ${results#"$bench_top"/}/: $made"
exit "$status"
