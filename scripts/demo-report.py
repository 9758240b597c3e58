#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The receive paths side by side, for `make demo`: the benchmark's smoke
cells (bench/vjrx rows: every receiver for 1 s at 1000 frames/s of 64-byte
datagrams, in the demo's guest) as a short table, and a chart when
matplotlib is installed.

    scripts/demo-report.py ROWS.csv [CHART.png]
"""
import csv
import sys

ORDER = ["udp-recvmmsg", "packet-v3", "afxdp-copy", "afxdp-zc",
         "vjchan-hook", "xdp-drop"]
WHAT = {
    "udp-recvmmsg": "UDP socket, recvmmsg()",
    "packet-v3": "PACKET_MMAP (TPACKET_V3)",
    "afxdp-copy": "AF_XDP, copy mode",
    "afxdp-zc": "AF_XDP, zero copy",
    "vjchan-hook": "vjchan channel",
    "xdp-drop": "XDP_DROP (the floor)",
}


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(v, digits=0):
    return "-" if v is None else ("%%.%df" % digits) % v


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "lat"]
    rows.sort(key=lambda r: (ORDER.index(r["mode"]) if r["mode"] in ORDER
                             else len(ORDER), r["mode"]))
    if not rows:
        print("  (no benchmark rows)")
        return 1
    print("  %-30s %9s %7s %12s %18s" % ("receive path", "frames/s", "loss %",
                                         "CPU us/pkt", "latency p50/p99 us"))
    for r in rows:
        name = WHAT.get(r["mode"], r["mode"])
        if r["status"] != "ok":
            why = r["reason"] if len(r["reason"]) <= 50 else \
                r["reason"][:47] + "..."
            print("  %-30s %s: %s" % (name, r["status"], why))
            continue
        lat = "-" if r["lat_stamp"] != "yes" else "%s / %s" % (
            fmt(num(r["lat_p50_us"])), fmt(num(r["lat_p99_us"])))
        print("  %-30s %9s %7s %12s %18s" % (
            name, fmt(num(r["pps"])), fmt(num(r["loss_pct"]), 1),
            fmt(num(r["cpu_us_per_pkt"]), 1), lat))
    print("  (QEMU under TCG: compare the rows, not the absolute figures;"
          " docs/BENCHMARKS.md)")
    if len(sys.argv) == 3:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("  (no chart: python3-matplotlib is not installed)")
            return 0
        ok = [r for r in rows if r["status"] == "ok"]
        names = [WHAT.get(r["mode"], r["mode"]) for r in ok]
        fig, ax = plt.subplots(1, 2, figsize=(11, 3.6))
        ax[0].barh(names, [num(r["cpu_us_per_pkt"]) or 0 for r in ok],
                   color=["#c44e52" if r["mode"] == "vjchan-hook"
                          else "#4c72b0" for r in ok])
        ax[0].set_xlabel("guest CPU µs per packet (lower is better)")
        ax[0].invert_yaxis()
        lat = [r for r in ok if num(r["lat_p50_us"]) is not None]
        ax[1].barh([WHAT.get(r["mode"], r["mode"]) for r in lat],
                   [num(r["lat_p50_us"]) for r in lat],
                   color=["#c44e52" if r["mode"] == "vjchan-hook"
                          else "#4c72b0" for r in lat])
        ax[1].set_xscale("log")
        ax[1].set_xlabel("latency p50, µs, log scale (lower is better)")
        ax[1].invert_yaxis()
        for a in ax:
            for bar in a.patches:
                a.annotate("%.0f" % bar.get_width(),
                           (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                           xytext=(3, 0), textcoords="offset points",
                           va="center", fontsize=8)
        fig.suptitle("vjchan demo: receive paths at 1000 frames/s, 64 B "
                     "(QEMU TCG guest)")
        fig.tight_layout()
        fig.savefig(sys.argv[2], dpi=100)
        print("  chart: %s" % sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
