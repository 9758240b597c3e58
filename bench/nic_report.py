#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise bench/nic.sh rows: ordinary TCP and ping through vjnet against
virtio_net, measured in the same boot, as a markdown table on stdout.

    bench/nic_report.py NIC.csv

Per vCPU count and driver: runs, median TCP Mbit/s each way and median ping
round trip.  The ratio lines compare vjnet with virtio_net (target from the
vjnet issue: >= 0.90, for latency as virtio_net's round trip over vjnet's,
so that higher is better everywhere).
"""
import csv
import statistics
import sys


def med(rows, key):
    vals = [float(r[key]) for r in rows if r[key]]
    return statistics.median(vals) if vals else None


def fmt(v, spec="%.1f"):
    return spec % v if v is not None else "n/a"


def ratio(a, b):
    return a / b if a is not None and b else None


def main():
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print("no bench/nic.sh rows")
        return 1
    print("| vCPUs | driver | runs | TCP in Mbit/s | TCP out Mbit/s | ping rtt us (mdev) |")
    print("| --- | --- | --- | --- | --- | --- |")
    out = []
    for smp in sorted({int(r["smp"]) for r in rows}):
        m = {}
        for drv in ("virtio_net", "vjnet"):
            g = [r for r in rows if int(r["smp"]) == smp and r["driver"] == drv]
            ok = [r for r in g if r["tcp_rx_mbps"]]
            m[drv] = (med(g, "tcp_rx_mbps"), med(g, "tcp_tx_mbps"),
                      med(g, "ping_avg_us"), med(g, "ping_mdev_us"))
            print("| %d | %s | %d of %d | %s | %s | %s (%s) |" % (
                smp, drv, len(ok), len(g), fmt(m[drv][0]), fmt(m[drv][1]),
                fmt(m[drv][2], "%.0f"), fmt(m[drv][3], "%.0f")))
        v, j = m["virtio_net"], m["vjnet"]
        for name, r in (("TCP in", ratio(j[0], v[0])),
                        ("TCP out", ratio(j[1], v[1])),
                        ("ping (virtio_net rtt / vjnet rtt)", ratio(v[2], j[2]))):
            verdict = "n/a" if r is None else ("met" if r >= 0.9 else "MISSED")
            out.append("%d vCPU: vjnet/virtio_net %s: %s (target >= 0.90: %s)"
                       % (smp, name, fmt(r, "%.2f"), verdict))
    print()
    for line in out:
        print("- " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
