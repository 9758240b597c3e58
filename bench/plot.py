#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Chart of the vjchan benchmark from its summary CSV (bench/report.py).

    bench/plot.py SUMMARY.csv CHART.png

One row of panels per vCPU count: delivered packets per second under
overload and guest CPU time per delivered packet, per payload size and
method, medians with min-max whiskers.  Methods that did not run are marked
with their status instead of a bar.
"""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["udp-recvmmsg", "udp-vjchan", "udp-vjchan-filtered", "packet-v3", "afxdp-copy", "afxdp-zc",
         "vjchan-hook", "vjchan-filtered", "vjchan-xdp", "xdp-drop"]
COLORS = {"udp-recvmmsg": "#4c72b0", "udp-vjchan": "#937860", "udp-vjchan-filtered": "#da8bc3", "packet-v3": "#8172b2",
          "afxdp-copy": "#55a868", "afxdp-zc": "#a0c8a8",
          "vjchan-hook": "#c44e52", "vjchan-filtered": "#dd8452", "vjchan-xdp": "#8172b2", "xdp-drop": "#999999"}


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "tput"]
    smps = sorted({int(r["smp"]) for r in rows})
    sizes = sorted({int(r["size"]) for r in rows})
    modes = sorted({r["mode"] for r in rows},
                   key=lambda m: (ORDER.index(m) if m in ORDER else 99, m))
    if not rows:
        sys.exit("plot.py: no throughput rows in %s" % sys.argv[1])
    fig, axes = plt.subplots(len(smps), 2, figsize=(13, 4.2 * len(smps)),
                             squeeze=False)
    width = 0.8 / len(modes)
    panels = (("pps_median", "pps_min", "pps_max", "delivered packets/s"),
              ("cpu_us_per_pkt_median", "cpu_us_per_pkt_min",
               "cpu_us_per_pkt_max", "guest CPU µs per delivered packet"))
    for i, smp in enumerate(smps):
        for j, (key, kmin, kmax, label) in enumerate(panels):
            ax = axes[i][j]
            bars = []
            for m_i, mode in enumerate(modes):
                for s_i, size in enumerate(sizes):
                    r = next((r for r in rows if int(r["smp"]) == smp and
                              int(r["size"]) == size and r["mode"] == mode),
                             None)
                    x = s_i + (m_i - (len(modes) - 1) / 2) * width
                    bars.append((x, mode, s_i, r))
            meds = [num(r[key]) for _, _, _, r in bars
                    if r and num(r[key]) is not None]
            his = [num(r[kmax]) for _, _, _, r in bars
                   if r and num(r[kmax]) is not None]
            # A wild run must not flatten the rest: clip at 1.6 x the
            # largest median and print the clipped whisker's value.
            top = min(max(his + meds), max(meds) * 1.6) * 1.1 if meds else 1
            for x, mode, s_i, r in bars:
                v = num(r[key]) if r else None
                if v is None:
                    ax.text(x, 0, " " + (r["status"] if r else "no data"),
                            rotation=90, ha="center", va="bottom",
                            fontsize=7, color="#555555")
                    continue
                lo_, hi_ = num(r[kmin]), num(r[kmax])
                if lo_ is None or hi_ is None:
                    lo_ = hi_ = v
                ax.bar(x, v, width, color=COLORS.get(mode, "#333333"),
                       label=mode if s_i == 0 else None,
                       yerr=[[v - lo_], [min(hi_, top) - v]], capsize=2,
                       error_kw={"lw": 0.8})
                if hi_ > top:
                    ax.text(x + width / 2, top * 0.98, "max %.0f" % hi_,
                            rotation=90, ha="left", va="top", fontsize=6)
            ax.set_xticks(range(len(sizes)))
            ax.set_xticklabels(["%d B" % s for s in sizes])
            ax.set_xlabel("UDP payload")
            ax.set_ylabel(label)
            ax.set_ylim(0, top)
            ax.set_title("%d vCPU%s: %s" % (smp, "s" if smp > 1 else "",
                                            label), fontsize=10)
            ax.grid(axis="y", alpha=0.3)
    rate = rows[0]["rate"]
    fig.suptitle("vjchan benchmark under QEMU TCG (relative figures only), "
                 "offered load %s pps; medians, whiskers min–max" %
                 (rate if rate != "0" else "flat out"), fontsize=11)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels),
               fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
