#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise vjchan benchmark rows (bench/vjrx CSV) into a summary CSV and
markdown tables, with each method's ratio to the recvmmsg baseline.

    bench/report.py ROWS.csv SUMMARY.csv SUMMARY.md [META.txt]

One summary row per (vCPUs, kind, payload size, method): the number of runs
that succeeded, medians and min/max of delivered pps and of guest CPU time
per delivered packet, median loss and latency, ratios to the baseline's
medians.  A cell that did not run says why (status and reason of its rows);
no row is ever left out.
"""
import csv
import statistics
import sys

BASELINE = "udp-recvmmsg"
ORDER = ["udp-recvmmsg", "packet-v3", "afxdp-copy", "afxdp-zc",
         "vjchan-hook", "vjchan-filtered", "vjchan-xdp", "xdp-drop",
         "udp-recvmmsg@vjnet", "vjchan-driver@vjnet", "vjchan-direct@vjnet"]

FIELDS = ["smp", "kind", "size", "mode", "rate", "runs", "status", "reason",
          "pps_median", "pps_min", "pps_max", "pps_ratio",
          "loss_pct_median", "cpu_us_per_pkt_median", "cpu_us_per_pkt_min",
          "cpu_us_per_pkt_max", "cpu_ratio", "softirq_us_per_pkt_median",
          "unsampled_us_per_pkt_median", "pkts_per_call_median", "lat_stamp", "lat_p50_us_median",
          "lat_p99_us_median", "lat_p50_ratio", "bad_total", "method_drops"]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def med(rows, key):
    vals = [num(r[key]) for r in rows if num(r[key]) is not None]
    return statistics.median(vals) if vals else None


def lo(rows, key):
    vals = [num(r[key]) for r in rows if num(r[key]) is not None]
    return min(vals) if vals else None


def hi(rows, key):
    vals = [num(r[key]) for r in rows if num(r[key]) is not None]
    return max(vals) if vals else None


def mode_key(m):
    return (ORDER.index(m) if m in ORDER else len(ORDER), m)


def summarise(rows):
    groups = {}
    for r in rows:
        k = (int(r["smp"]), r["kind"], int(r["size"]), r["mode"])
        groups.setdefault(k, []).append(r)
    out = []
    for k in sorted(groups, key=lambda k: (k[0], k[1] != "tput", k[2],
                                           mode_key(k[3]))):
        g = groups[k]
        ok = [r for r in g if r["status"] == "ok"]
        s = {"smp": k[0], "kind": k[1], "size": k[2], "mode": k[3],
             "rate": g[0]["rate"], "runs": len(ok)}
        if ok:
            s["status"] = "ok" if len(ok) == len(g) else \
                "ok %d/%d" % (len(ok), len(g))
        else:
            s["status"] = g[0]["status"]
        s["reason"] = "; ".join(sorted({r["reason"] for r in g
                                        if r["reason"]}))
        s["pps_median"] = med(ok, "pps")
        s["pps_min"] = lo(ok, "pps")
        s["pps_max"] = hi(ok, "pps")
        s["loss_pct_median"] = med(ok, "loss_pct")
        s["cpu_us_per_pkt_median"] = med(ok, "cpu_us_per_pkt")
        s["cpu_us_per_pkt_min"] = lo(ok, "cpu_us_per_pkt")
        s["cpu_us_per_pkt_max"] = hi(ok, "cpu_us_per_pkt")
        s["softirq_us_per_pkt_median"] = med(ok, "softirq_us_per_pkt")
        s["unsampled_us_per_pkt_median"] = med(ok, "unsampled_us_per_pkt")
        s["pkts_per_call_median"] = med(ok, "pkts_per_call")
        s["lat_stamp"] = g[0]["lat_stamp"]
        s["lat_p50_us_median"] = med(ok, "lat_p50_us")
        s["lat_p99_us_median"] = med(ok, "lat_p99_us")
        s["bad_total"] = sum(int(num(r["bad"]) or 0) for r in ok)
        s["method_drops"] = ok[-1]["method_drops"] if ok else ""
        out.append(s)
    # Ratios to the baseline of the same vCPUs, kind and size.
    base = {(s["smp"], s["kind"], s["size"]): s for s in out
            if s["mode"] == BASELINE}
    for s in out:
        b = base.get((s["smp"], s["kind"], s["size"]))
        for key, bkey in (("pps_ratio", "pps_median"),
                          ("cpu_ratio", "cpu_us_per_pkt_median"),
                          ("lat_p50_ratio", "lat_p50_us_median")):
            s[key] = (s[bkey] / b[bkey]) if b and s[bkey] and b[bkey] else None
    return out


def fmt(v, digits=0):
    if v is None:
        return ""
    if isinstance(v, float):
        return ("%%.%df" % digits) % v
    return str(v)


def write_csv(summary, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for s in summary:
            w.writerow({k: fmt(s.get(k), 4) if isinstance(s.get(k), float)
                        else s.get(k, "") for k in FIELDS})


def cell_status(s):
    """Text for a cell whose method did not run."""
    return "**%s**: %s" % (s["status"], s["reason"] or "no reason given")


def tput_table(rows):
    lines = ["| method | payload B | delivered pps (median, min–max) "
             "| × recvmmsg | loss % | guest CPU µs/pkt (median, min–max) "
             "| × recvmmsg | pkts per call | runs |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for s in rows:
        if not s["runs"]:
            lines.append("| %s | %d | %s | | | | | | 0 |" %
                         (s["mode"], s["size"], cell_status(s)))
            continue
        lines.append("| %s | %d | %s (%s–%s) | %s | %s | %s (%s–%s) | %s | %s | %s |" % (
            s["mode"], s["size"], fmt(s["pps_median"]), fmt(s["pps_min"]),
            fmt(s["pps_max"]), fmt(s["pps_ratio"], 2),
            fmt(s["loss_pct_median"], 1), fmt(s["cpu_us_per_pkt_median"], 1),
            fmt(s["cpu_us_per_pkt_min"], 1), fmt(s["cpu_us_per_pkt_max"], 1),
            fmt(s["cpu_ratio"], 2), fmt(s["pkts_per_call_median"], 1),
            s["status"] if s["status"] != "ok" else s["runs"]))
    return lines


def lat_table(rows):
    lines = ["| method | kernel time stamp | latency p50 µs | p99 µs "
             "| p50 × recvmmsg | guest CPU µs/pkt (median, min–max) | × recvmmsg "
             "| loss % | runs |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for s in rows:
        if not s["runs"]:
            lines.append("| %s | | %s | | | | | | 0 |" %
                         (s["mode"], cell_status(s)))
            continue
        stamp = STAMPS.get(s["mode"], "")
        if s["lat_stamp"] != "yes":
            p50 = p99 = "n/a"
        else:
            p50 = fmt(s["lat_p50_us_median"])
            p99 = fmt(s["lat_p99_us_median"])
        lines.append("| %s | %s | %s | %s | %s | %s (%s–%s) | %s | %s | %s |" % (
            s["mode"], stamp, p50, p99, fmt(s["lat_p50_ratio"], 2),
            fmt(s["cpu_us_per_pkt_median"], 1),
            fmt(s["cpu_us_per_pkt_min"], 1), fmt(s["cpu_us_per_pkt_max"], 1),
            fmt(s["cpu_ratio"], 2), fmt(s["loss_pct_median"], 1),
            s["status"] if s["status"] != "ok" else s["runs"]))
    return lines


STAMPS = {
    "udp-recvmmsg": "SO_TIMESTAMPNS (CLOCK_REALTIME, at skb receive)",
    "packet-v3": "tp_sec/tp_nsec (CLOCK_REALTIME, at skb receive)",
    "afxdp-copy": "none: AF_XDP has no receive time stamp",
    "afxdp-zc": "none: AF_XDP has no receive time stamp",
    "vjchan-hook": "vj_desc.tstamp (CLOCK_MONOTONIC, in the hook)",
    "vjchan-filtered": "vj_desc.tstamp (CLOCK_MONOTONIC, at LOCAL_IN)",
    "vjchan-xdp": "vj_desc.tstamp (CLOCK_MONOTONIC, in the XDP kfunc)",
    "xdp-drop": "none: nothing reaches user space",
}


def write_md(summary, path, meta):
    out = []
    if meta:
        out += ["```", meta.rstrip("\n"), "```", ""]
    for smp in sorted({s["smp"] for s in summary}):
        tput = [s for s in summary if s["smp"] == smp and s["kind"] == "tput"]
        lat = [s for s in summary if s["smp"] == smp and s["kind"] == "lat"]
        if tput:
            out += ["### %d vCPU%s: throughput, offered %s pps" %
                    (smp, "s" if smp > 1 else "", tput[0]["rate"]
                     if tput[0]["rate"] != "0" else "flat out"), ""]
            out += tput_table(tput) + [""]
        if lat:
            out += ["### %d vCPU%s: latency and CPU at a fixed %s pps, "
                    "%d-byte payload" % (smp, "s" if smp > 1 else "",
                                         lat[0]["rate"], lat[0]["size"]), ""]
            out += lat_table(lat) + [""]
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("smp") != "smp"]
    meta = open(sys.argv[4]).read() if len(sys.argv) == 5 else ""
    summary = summarise(rows)
    write_csv(summary, sys.argv[2])
    write_md(summary, sys.argv[3], meta)


if __name__ == "__main__":
    main()
