#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multi-queue vjnet against multi-queue virtio_net: ordinary TCP into and
# out of one guest whose fourth NIC is a two-pair virtio-net device with
# RSS on a multi-queue tap, iperf3's other end on the host side of the tap
# (bench/mq-guest.sh says what each row measures).  The tap, QEMU and the
# peer (tests/mq_peer.py) live in a network namespace made here and deleted
# on exit ("vjmqb-PID": the tap at 203.0.113.1/24, nothing else); the host's
# own networking never changes.  Skipped without /dev/net/tun.
#
#   bench/mq.sh OUT.CSV
#
# BENCH_MQ_RUNS [3] runs of every cell, BENCH_MQ_SECONDS [5] per iperf3,
# BENCH_MQ_SMP [2] vCPUs.  Writes "smp,run,driver,queues,dir,streams,
# mbps,guest_busy_pct" rows to OUT.CSV.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
csv=${1:?usage: bench/mq.sh OUT.CSV}
runs=${BENCH_MQ_RUNS:-3}
secs=${BENCH_MQ_SECONDS:-5}
smp=${BENCH_MQ_SMP:-2}

if [ ! -c /dev/net/tun ]; then
	echo "skip BENCH_MQ: no /dev/net/tun (the multi-queue tap needs it)"
	exit 0
fi
command -v iperf3 >/dev/null ||
	{ echo "bench/mq.sh: no iperf3 (scripts/install-deps.sh)" >&2; exit 1; }

ns=vjmqb-$$
tap=vjmqb0
out=$top/bench/out/mq
# shellcheck source=scripts/tapns.sh
. "$top/scripts/tapns.sh"
tapns_up "$ns" $tap 203.0.113.1/24 multi_queue || exit 1

rm -rf "$out"
mkdir -p "$out/vm"
ip netns exec "$ns" python3 "$top/tests/mq_peer.py" "$out/vm" 3000 &
ip netns exec "$ns" "$top/scripts/vm.sh" --smp "$smp" --tcg-threads multi \
	--timeout $((runs * 16 * (secs + 20) + 300)) --out "$out/vm" --quiet-boot \
	--netdev-extra "-netdev tap,id=mq,ifname=$tap,script=no,downscript=no,queues=2 -device virtio-net-pci,netdev=mq,mq=on,rss=on,vectors=6,mac=52:54:00:12:35:02,romfile=" \
	-- "BENCH_MQ_RUNS=$runs BENCH_MQ_SECONDS=$secs bash bench/mq-guest.sh" \
	>"$out/vm.log" 2>&1
rc=$?
touch "$out/vm/quit"
echo "smp,run,driver,queues,dir,streams,mbps,guest_busy_pct" >"$csv"
[ -s "$out/vm/mq.csv" ] && sed "s/^/$smp,/" "$out/vm/mq.csv" >>"$csv"
grep -v '^\[' "$out/vm.log" | grep -E '^(mq|skip|FAIL)' || true
# Medians per cell; each driver against virtio_net with one pair and with
# as many pairs, and two pairs against one (for one stream and for four).
# A cell whose iperf3 failed counts 0 Mbit/s.
python3 - "$csv" >"$out/summary.md" <<-'PY'
	import csv, statistics, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	cell = {}
	for r in rows:
	    k = (r["driver"], int(r["queues"]), r["dir"], int(r["streams"]))
	    cell.setdefault(k, []).append((float(r["mbps"]), float(r["guest_busy_pct"])))
	med = {k: (statistics.median(m for m, _ in v), statistics.median(b for _, b in v), len(v))
	       for k, v in cell.items()}
	print("| driver | pairs | TCP | streams | Mbit/s | guest busy % | x virtio_net 1 pair | x virtio_net same pairs | x same driver 1 pair | runs |")
	print("|---|---|---|---|---|---|---|---|---|---|")
	for k in sorted(med, key=lambda k: (k[3], k[2], k[0], k[1])):
	    m, b, n = med[k]
	    base = med.get(("virtio_net", 1, k[2], k[3]), (0,))[0]
	    same = med.get(("virtio_net", k[1], k[2], k[3]), (0,))[0]
	    one = med.get((k[0], 1, k[2], k[3]), (0,))[0]
	    print("| %s | %d | %s | %d | %.0f | %.0f | %s | %s | %s | %d |" % (
	        k[0], k[1], k[2], k[3], m, b,
	        "%.2f" % (m / base) if base else "-",
	        "%.2f" % (m / same) if same else "-",
	        "%.2f" % (m / one) if one else "-", n))
	PY
cat "$out/summary.md"
echo "bench/mq.sh: $(($(wc -l <"$csv") - 1)) rows in $csv (vm.sh exit $rc)"
[ "$rc" = 0 ]
