#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a pcapng file of vjchan-recv -w against the datagrams vjchan-send
sent, as read back by tcpdump and by tshark (tests/pcap.sh).

    pcap_check.py NAME FILE [options]

Prints "ok NAME" or "FAIL NAME: why" and exits 0 or 1.  Every packet is
checked twice: the bytes tcpdump dumps (-xx) are parsed here (link, IP
and UDP headers, checksums, the test payload of every captured byte),
and the fields tshark decodes (lengths, interface description, link
type, addresses, ports, checksum status, payload) must say the same.
"""
import argparse
import ipaddress
import re
import struct
import subprocess
import sys

ETH_HLEN = 14
# Wiretap encapsulation numbers (frame.encap_type).
ENCAP = {"eth": "1", "raw": "7"}
TSHARK_FIELDS = [
    "frame.interface_id", "frame.interface_name",
    "frame.interface_description", "frame.encap_type", "frame.len",
    "frame.cap_len", "frame.time_epoch", "ip.src", "ip.dst", "ipv6.src",
    "ipv6.dst", "udp.srcport", "udp.dstport", "udp.checksum.status",
    "data.data",
]


class Bad(Exception):
    pass


def pattern(seq, n):
    """The first n payload bytes of the test pattern for seq."""
    head = struct.pack(">I", seq)
    return bytes(head[i] if i < 4 else (seq + i) & 0xff for i in range(n))


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, check=False)
    if p.returncode:
        raise Bad("%s: exit %d: %s" % (cmd[0], p.returncode,
                                       p.stderr.strip()[-200:]))
    return p.stdout


def tcpdump_packets(path):
    """[(ts_ns, bytes)] from tcpdump -xx --nano."""
    out = run(["tcpdump", "-r", path, "-nn", "-tt", "--nano", "-xx"])
    pkts = []
    for line in out.splitlines():
        m = re.match(r"^(\d+)\.(\d{9}) ", line)
        if m:
            pkts.append([int(m.group(1)) * 10**9 + int(m.group(2)),
                         bytearray()])
            continue
        m = re.match(r"^\s+0x[0-9a-f]+:\s+((?:[0-9a-f]{2,4} ?)+)", line)
        if m and pkts:
            pkts[-1][1] += bytes.fromhex(m.group(1).replace(" ", ""))
    return [(t, bytes(b)) for t, b in pkts]


def tshark_rows(path, dport):
    out = run(["tshark", "-r", path, "-n", "-d", "udp.port==%d,data" % dport,
               "-o", "udp.check_checksum:TRUE",
               "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"] +
              sum([["-e", f] for f in TSHARK_FIELDS], []))
    rows = []
    for line in out.splitlines():
        rows.append(dict(zip(TSHARK_FIELDS, line.split("\t"))))
    return rows


def parse(frame, a, caplen_full):
    """Check one captured frame; return (seq, src, dst, sport)."""
    p = frame
    if a.link == "eth":
        if len(p) < ETH_HLEN:
            raise Bad("frame of %d bytes" % len(p))
        etype = struct.unpack("!H", p[12:14])[0]
        want = 0x0800 if a.family == 4 else 0x86dd
        if etype != want:
            raise Bad("ethertype %#x" % etype)
        p = p[ETH_HLEN:]
    if a.family == 4:
        if len(p) < 20 or p[0] >> 4 != 4:
            raise Bad("not IPv4")
        ihl = (p[0] & 15) * 4
        tot, proto = struct.unpack("!H", p[2:4])[0], p[9]
        src, dst = ipaddress.ip_address(p[12:16]), ipaddress.ip_address(p[16:20])
        if csum(bytes(p[:ihl])) != 0xffff:
            raise Bad("IPv4 header checksum")
        if tot != ihl + 8 + a.size:
            raise Bad("IPv4 total length %d" % tot)
        pseudo = p[12:20] + struct.pack("!BBH", 0, 17, 8 + a.size)
        udp = p[ihl:]
    else:
        if len(p) < 40 or p[0] >> 4 != 6:
            raise Bad("not IPv6")
        plen, proto = struct.unpack("!H", p[4:6])[0], p[6]
        src, dst = ipaddress.ip_address(p[8:24]), ipaddress.ip_address(p[24:40])
        if plen != 8 + a.size:
            raise Bad("IPv6 payload length %d" % plen)
        pseudo = p[8:40] + struct.pack("!IxxxB", 8 + a.size, 17)
        udp = p[40:]
    if proto != 17:
        raise Bad("IP protocol %d" % proto)
    if str(dst) != a.dst:
        raise Bad("destination %s" % dst)
    sport, dport, ulen = struct.unpack("!HHH", udp[:6])
    if dport != a.dport or ulen != 8 + a.size:
        raise Bad("UDP dport %d length %d" % (dport, ulen))
    if caplen_full and csum(bytes(pseudo + udp)) != 0xffff:
        raise Bad("UDP checksum")
    payload = udp[8:]
    if len(payload) < 4:
        raise Bad("payload cut before the sequence number")
    seq = struct.unpack("!I", payload[:4])[0]
    if payload != pattern(seq, len(payload)):
        raise Bad("payload of seq %d is not the pattern" % seq)
    return seq, str(src), str(dst), sport


def check(a):
    origlen = (ETH_HLEN if a.link == "eth" else 0) + \
        (20 if a.family == 4 else 40) + 8 + a.size
    caplen = min(origlen, a.caplen) if a.caplen else origlen
    full = caplen == origlen
    dumps = tcpdump_packets(a.file)
    rows = tshark_rows(a.file, a.dport)
    if len(dumps) != a.count or len(rows) != a.count:
        raise Bad("tcpdump read %d packets, tshark %d, sent %d" %
                  (len(dumps), len(rows), a.count))
    ifaces = {}
    for spec in a.iface:
        name, lo, hi, src = re.match(r"^(.+)=(\d+)-(\d+)@(.+)$",
                                     spec).groups()
        ifaces[name] = (int(lo), int(hi), src)
    tstamps = []
    if a.printed:
        with open(a.printed) as f:
            tstamps = [int(m.group(1)) for m in
                       (re.search(r" tstamp=(\d+)$", l) for l in f) if m]
        if len(tstamps) != a.count:
            raise Bad("%d printed lines, %d packets" % (len(tstamps), a.count))
    seqs, offsets = [], set()
    for i, ((ts, frame), row) in enumerate(zip(dumps, rows)):
        where = "packet %d: " % (i + 1)
        try:
            if len(frame) != caplen:
                raise Bad("tcpdump dumps %d bytes, expected %d" %
                          (len(frame), caplen))
            seq, src, dst, sport = parse(frame, a, full)
            if int(row["frame.len"]) != origlen or \
               int(row["frame.cap_len"]) != caplen:
                raise Bad("tshark: len %s cap_len %s, expected %d %d" %
                          (row["frame.len"], row["frame.cap_len"], origlen,
                           caplen))
            if row["frame.encap_type"] != ENCAP[a.link]:
                raise Bad("tshark: encapsulation %s" % row["frame.encap_type"])
            s, d = (("ip.src", "ip.dst") if a.family == 4 else
                    ("ipv6.src", "ipv6.dst"))
            if (ipaddress.ip_address(row[s]), ipaddress.ip_address(row[d])) != \
               (ipaddress.ip_address(src), ipaddress.ip_address(dst)) or \
               row["udp.srcport"] != str(sport) or \
               row["udp.dstport"] != str(a.dport):
                raise Bad("tshark decodes %s:%s > %s:%s" %
                          (row[s], row["udp.srcport"], row[d],
                           row["udp.dstport"]))
            if full:
                if row["udp.checksum.status"] != "1":
                    raise Bad("tshark: UDP checksum status %s" %
                              row["udp.checksum.status"])
                if bytes.fromhex(row["data.data"]) != pattern(seq, a.size):
                    raise Bad("tshark: payload differs")
            sec, _, frac = row["frame.time_epoch"].partition(".")
            t_ns = int(sec) * 10**9 + int((frac + "000000000")[:9])
            if t_ns != ts:
                raise Bad("time stamp %d (tshark) vs %d (tcpdump)" % (t_ns, ts))
            if not a.t0 <= ts <= a.t1:
                raise Bad("time stamp %d outside the run [%d, %d]" %
                          (ts, a.t0, a.t1))
            if tstamps:
                offsets.add(ts - tstamps[i])
            name = row["frame.interface_name"]
            desc = row["frame.interface_description"]
            if not re.match(r"^ifindex \d+, vjchan channel %s$" %
                            re.escape(a.flow), desc):
                raise Bad("interface description '%s'" % desc)
            if ifaces:
                lo, hi, want_src = ifaces.get(name, (1, 0, None))
                if not lo <= seq <= hi:
                    raise Bad("seq %d on interface %s" % (seq, name))
            else:
                want_src = a.src
                if a.ifname and name != a.ifname:
                    raise Bad("interface %s, expected %s" % (name, a.ifname))
            if src != want_src:
                raise Bad("source %s, expected %s" % (src, want_src))
        except Bad as e:
            raise Bad(where + str(e))
        seqs.append(seq)
    if ifaces:
        want = sorted(sum([list(range(lo, hi + 1))
                           for lo, hi, _ in ifaces.values()], []))
    else:
        want = list(range(a.seq0, a.seq0 + a.count))
    if sorted(seqs) != want:
        raise Bad("sequence numbers %s..., expected %d..%d once each" %
                  (seqs[:8], want[0], want[-1]))
    if not ifaces and seqs != want:
        raise Bad("packets out of order: %s..." % seqs[:8])
    if len(offsets) > 1:
        raise Bad("file time minus the kernel's tstamp varies: %s" %
                  sorted(offsets)[:4])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("file")
    ap.add_argument("--family", type=int, choices=(4, 6), default=4)
    ap.add_argument("--src", help="source address (without --iface)")
    ap.add_argument("--dst", required=True)
    ap.add_argument("--dport", type=int, required=True)
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seq0", type=int, default=0)
    ap.add_argument("--link", choices=ENCAP, default="eth")
    ap.add_argument("--caplen", type=int, default=0)
    ap.add_argument("--ifname")
    ap.add_argument("--iface", action="append", default=[],
                    help="NAME=SEQLO-SEQHI@SRC: packets of these seqs came "
                    "from SRC in on NAME")
    ap.add_argument("--flow", required=True)
    ap.add_argument("--printed", help="vjchan-recv --print output")
    ap.add_argument("--t0", type=int, required=True, help="ns, before")
    ap.add_argument("--t1", type=int, required=True, help="ns, after")
    a = ap.parse_args()
    try:
        check(a)
    except Bad as e:
        print("FAIL %s: %s" % (a.name, e))
        return 1
    print("ok %s" % a.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
