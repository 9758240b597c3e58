#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise vjchan benchmark rows (bench/vjrx CSV) into a summary CSV and
markdown tables, with each method's ratio to the recvmmsg baseline.

    bench/report.py ROWS.csv SUMMARY.csv SUMMARY.md [META.txt]
                    [--tx TX.csv] [--iperf IPERF.csv]

--tx adds the transmit cells (bench/vjtx rows) to SUMMARY.md, with ratios
to the ordinary UDP socket; --iperf the iperf3 UDP rows (bench/iperf.sh),
with ratios of the server under vjchan-run to the plain one.

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
ORDER = ["udp-recvmmsg", "udp-vjchan", "udp-vjchan-xdp", "udp-vjchan-filtered",
         "udp-reuseport-1", "udp-reuseport-2", "udp-vjchan-group-1",
         "udp-vjchan-group-2", "packet-v3", "afxdp-copy", "afxdp-zc",
         "vjchan-hook", "vjchan-hook-10k", "vjchan-filtered", "vjchan-sanctioned", "vjchan-xdp",
         "xdp-drop",
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
    "udp-vjchan": "SO_TIMESTAMPNS (CLOCK_REALTIME, in the hook)",
    "udp-vjchan-xdp": "SO_TIMESTAMPNS (CLOCK_REALTIME, in the XDP kfunc)",
    "udp-vjchan-filtered": "SO_TIMESTAMPNS (CLOCK_REALTIME, at the copy from the port holder)",
    "packet-v3": "tp_sec/tp_nsec (CLOCK_REALTIME, at skb receive)",
    "afxdp-copy": "none: AF_XDP has no receive time stamp",
    "afxdp-zc": "none: AF_XDP has no receive time stamp",
    "vjchan-hook": "vj_desc.tstamp (CLOCK_MONOTONIC, in the hook)",
    "vjchan-hook-10k": "vj_desc.tstamp (CLOCK_MONOTONIC, in the hook)",
    "vjchan-filtered": "vj_desc.tstamp (CLOCK_MONOTONIC, at LOCAL_IN)",
    "vjchan-xdp": "vj_desc.tstamp (CLOCK_MONOTONIC, in the XDP kfunc)",
    "xdp-drop": "none: nothing reaches user space",
}


GROUPS = ("udp-reuseport", "udp-vjchan-group")


def group_table(tput):
    """Groups of 1 and 2 members: channel against socket, 2 against 1."""
    by = {s["mode"]: s for s in tput}
    sock, chan = GROUPS
    rows = []
    for n in (1, 2):
        c, k = by.get("%s-%d" % (chan, n)), by.get("%s-%d" % (sock, n))
        if c and k:
            rows.append("| %d | channel group × reuseport group | %s | %s |" % (
                n, fmt(ratio(c["pps_median"], k["pps_median"]), 2),
                fmt(ratio(c["cpu_us_per_pkt_median"],
                          k["cpu_us_per_pkt_median"]), 2)))
    for name in GROUPS:
        one, two = by.get(name + "-1"), by.get(name + "-2")
        if one and two:
            rows.append("| 2 / 1 | %s | %s | %s |" % (
                name, fmt(ratio(two["pps_median"], one["pps_median"]), 2),
                fmt(ratio(two["cpu_us_per_pkt_median"],
                          one["cpu_us_per_pkt_median"]), 2)))
    if not rows:
        return []
    return ["| members | comparison | pps × | CPU/pkt × |",
            "| --- | --- | ---: | ---: |"] + rows


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
            for size in sorted({s["size"] for s in tput}):
                g = group_table([s for s in tput if s["size"] == size])
                if g:
                    out += ["Groups (%d B, the medians above):" % size, ""]
                    out += g + [""]
        if lat:
            out += ["### %d vCPU%s: latency and CPU at a fixed %s pps, "
                    "%d-byte payload" % (smp, "s" if smp > 1 else "",
                                         lat[0]["rate"], lat[0]["size"]), ""]
            out += lat_table(lat) + [""]
    with open(path, "w") as f:
        f.write("\n".join(out))


TX_BASELINE = "udp-sendmmsg"


def group(rows, keys):
    """Rows by the tuple of their @keys, with the ok ones apart."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    for k, g in groups.items():
        ok = [r for r in g if r["status"] == "ok"]
        yield k, g, ok


def status_of(g, ok):
    if ok:
        return "ok" if len(ok) == len(g) else "ok %d/%d" % (len(ok), len(g))
    return g[0]["status"]


def reasons(g):
    return "; ".join(sorted({r["reason"] for r in g if r["reason"]}))


def ratio(a, b):
    return a / b if a is not None and b else None


def tx_tables(rows):
    """Markdown for the transmit cells (bench/vjtx)."""
    out = []
    summ = []
    for (smp, size, mode), g, ok in group(rows, ("smp", "size", "mode")):
        summ.append({"smp": int(smp), "size": int(size), "mode": mode,
                     "rate": g[0]["rate"], "runs": len(ok),
                     "status": status_of(g, ok), "reason": reasons(g),
                     "sent": med(ok, "sent_pps"), "sent_lo": lo(ok, "sent_pps"),
                     "sent_hi": hi(ok, "sent_pps"), "peer": med(ok, "peer_pps"),
                     "loss": med(ok, "loss_pct"),
                     "cpu": med(ok, "cpu_us_per_pkt"),
                     "cpu_lo": lo(ok, "cpu_us_per_pkt"),
                     "cpu_hi": hi(ok, "cpu_us_per_pkt"),
                     "ppc": med(ok, "pkts_per_call"),
                     "bad": sum(int(num(r["peer_bad"]) or 0) for r in ok)})
    base = {(s["smp"], s["size"]): s for s in summ if s["mode"] == TX_BASELINE}
    summ.sort(key=lambda s: (s["smp"], s["size"], s["mode"] != TX_BASELINE,
                             s["mode"]))
    for smp in sorted({s["smp"] for s in summ}):
        cells = [s for s in summ if s["smp"] == smp]
        rate = cells[0]["rate"]
        out += ["### %d vCPU%s: transmit, sendmmsg of 64, %s" %
                (smp, "s" if smp > 1 else "",
                 "flat out" if rate == "0" else rate + " datagrams/s"), "",
                "| socket | payload B | sent pps (median, min–max) "
                "| × UDP socket | received by the peer pps | × UDP socket "
                "| loss % | guest CPU µs/pkt sent (median, min–max) "
                "| × UDP socket | pkts per call | runs |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
                "| ---: | ---: | ---: |"]
        for s in cells:
            if not s["runs"]:
                out.append("| %s | %d | %s | | | | | | | | 0 |" %
                           (s["mode"], s["size"], cell_status(s)))
                continue
            b = base.get((s["smp"], s["size"]), {})
            out.append("| %s | %d | %s (%s–%s) | %s | %s | %s | %s | %s (%s–%s) | %s | %s | %s |" % (
                s["mode"], s["size"], fmt(s["sent"]), fmt(s["sent_lo"]),
                fmt(s["sent_hi"]), fmt(ratio(s["sent"], b.get("sent")), 2),
                fmt(s["peer"]), fmt(ratio(s["peer"], b.get("peer")), 2),
                fmt(s["loss"], 1), fmt(s["cpu"], 1), fmt(s["cpu_lo"], 1),
                fmt(s["cpu_hi"], 1), fmt(ratio(s["cpu"], b.get("cpu")), 2),
                fmt(s["ppc"], 1),
                s["status"] if s["status"] != "ok" else s["runs"]))
        out.append("")
    return out


def iperf_tables(rows):
    """Markdown for the iperf3 UDP rows (bench/iperf.sh)."""
    out = []
    summ = []
    for (smp, rate, server), g, ok in group(rows, ("smp", "rate", "server")):
        summ.append({"smp": int(smp), "rate": rate, "server": server,
                     "len": g[0]["len"], "runs": len(ok),
                     "status": status_of(g, ok), "reason": reasons(g),
                     "rx": med(ok, "rx_mbps"), "rx_lo": lo(ok, "rx_mbps"),
                     "rx_hi": hi(ok, "rx_mbps"), "lost": med(ok, "lost_pct"),
                     "jitter": med(ok, "jitter_ms"),
                     "chan": med(ok, "chan_rx_packets")})
    base = {(s["smp"], s["rate"]): s for s in summ if s["server"] == "plain"}
    summ.sort(key=lambda s: (s["smp"], num(s["rate"].rstrip("KMG")) or 0,
                             s["rate"], s["server"] != "plain"))
    for smp in sorted({s["smp"] for s in summ}):
        cells = [s for s in summ if s["smp"] == smp]
        out += ["### %d vCPU%s: iperf3 -u, %s-byte datagrams, server plainly "
                "and under vjchan-run" % (smp, "s" if smp > 1 else "",
                                          cells[0]["len"]), "",
                "| server | offered bit/s | received Mbit/s (median, min–max) "
                "| × plain | lost % | jitter ms | × plain | runs |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for s in cells:
            if not s["runs"]:
                out.append("| %s | %s | **%s**: %s | | | | | 0 |" % (
                    s["server"], s["rate"], s["status"],
                    s["reason"] or "no reason given"))
                continue
            b = base.get((s["smp"], s["rate"]), {})
            out.append("| %s | %s | %s (%s–%s) | %s | %s | %s | %s | %s |" % (
                s["server"], s["rate"], fmt(s["rx"], 1), fmt(s["rx_lo"], 1),
                fmt(s["rx_hi"], 1), fmt(ratio(s["rx"], b.get("rx")), 2),
                fmt(s["lost"], 2), fmt(s["jitter"], 3),
                fmt(ratio(s["jitter"], b.get("jitter")), 2),
                s["status"] if s["status"] != "ok" else s["runs"]))
        out.append("")
    return out


def read_rows(path, first):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get(first) != first]


def main():
    args, extra = [], {}
    argv = sys.argv[1:]
    while argv:
        a = argv.pop(0)
        if a in ("--tx", "--iperf") and argv:
            extra[a] = argv.pop(0)
        else:
            args.append(a)
    if len(args) not in (3, 4):
        sys.exit(__doc__)
    rows = read_rows(args[0], "smp")
    meta = open(args[3]).read() if len(args) == 4 else ""
    summary = summarise(rows)
    write_csv(summary, args[1])
    write_md(summary, args[2], meta)
    more = []
    if "--tx" in extra:
        more += tx_tables(read_rows(extra["--tx"], "smp"))
    if "--iperf" in extra:
        more += iperf_tables(read_rows(extra["--iperf"], "smp"))
    if more:
        with open(args[2], "a") as f:
            f.write("\n" + "\n".join(more))


if __name__ == "__main__":
    main()
