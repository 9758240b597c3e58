#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send crafted Ethernet frames from a packet socket, for the cases that
check what every receive path does with hostile headers (vjnet.sh,
xdp.sh, net.sh).  The shapes are those of tests/lib/craft.c.

  craft.py IFACE DST_MAC SRC_IP DST_IP DPORT SHAPE [COUNT]
  craft.py IFACE DST_MAC - <LINES

The second form reads one "SRC_IP DST_IP DPORT SHAPE [COUNT]" per line
and sends them in order, from one process (a Python start takes seconds
on the debug kernel under TCG).

SHAPE:
  plain          UDP, no extension headers
  badsum         as plain, but the UDP checksum is off by one
  dstopt:N       IPv6: one destination-options header of N bytes (a
                 multiple of 8, at most 2048) before UDP
  chain:N,M,...  IPv6: hop-by-hop then destination-options headers of
                 those sizes
  overrun:N      IPv6: a destination-options header of N bytes in a packet
                 that ends 8 bytes into it (its length claims the rest)

Each datagram carries 16 bytes (a sequence number, then the test
pattern); the UDP checksum is right.  Addresses may be IPv4 or IPv6
(dstopt, chain and overrun are IPv6 only); the source MAC is IFACE's.
"""
import socket
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def opt_hdr(nexthdr, size):
    """An options header of size bytes: PadN options after its first 2."""
    if size % 8 or not 8 <= size <= 2048:
        sys.exit("craft.py: option header size %d" % size)
    pad, left = b"", size - 2
    while left:
        n = min(left, 257)
        if n == 1 or left - n == 1:
            n -= 2          # no Pad1 at the end: leave room for a PadN
        pad += bytes([1, n - 2]) + bytes(n - 2)
        left -= n
    return bytes([nexthdr, size // 8 - 1]) + pad


def udp(src, dst, sport, dport, payload, v6):
    ulen = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, ulen, 0)
    if v6:
        pseudo = src + dst + struct.pack("!IxxxB", ulen, 17)
    else:
        pseudo = src + dst + struct.pack("!xBH", 17, ulen)
    c = csum(pseudo + hdr + payload) or 0xFFFF
    return struct.pack("!HHHH", sport, dport, ulen, c) + payload


def frame(args, seq):
    iface, dmac, saddr, daddr, dport, shape = args[:6]
    v6 = ":" in daddr
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    src = socket.inet_pton(fam, saddr)
    dst = socket.inet_pton(fam, daddr)
    payload = struct.pack("!I", seq) + bytes((seq + i) & 0xFF
                                             for i in range(4, 16))
    l4 = udp(src, dst, 40000, int(dport), payload, v6)
    kind, _, arg = shape.partition(":")
    if kind == "badsum":
        c = struct.unpack("!H", l4[6:8])[0]
        l4 = l4[:6] + struct.pack("!H", c ^ 1 or 2) + l4[8:]
        kind = "plain"
    if not v6:
        if kind != "plain":
            sys.exit("craft.py: %s is IPv6 only" % kind)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), seq & 0xFFFF,
                         0, 64, 17, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        return ip + l4, 0x0800
    ext, first, cut = b"", 17, 0
    if kind == "dstopt":
        ext, first = opt_hdr(17, int(arg)), 60
    elif kind == "chain":
        sizes = [int(x) for x in arg.split(",")]
        for i in reversed(range(len(sizes))):
            nxt = 17 if not ext else 60
            ext = opt_hdr(nxt, sizes[i]) + ext
        first = 0
    elif kind == "overrun":
        ext, first = opt_hdr(17, int(arg)), 60
        cut = len(ext) - 8 + len(l4)
    elif kind != "plain":
        sys.exit("craft.py: unknown shape %s" % shape)
    body = (ext + l4)[:len(ext) + len(l4) - cut]
    ip = struct.pack("!IHBB16s16s", 6 << 28, len(body), first, 64, src, dst)
    return ip + body, 0x86DD


def main():
    if len(sys.argv) == 4 and sys.argv[3] == "-":
        groups = [sys.argv[1:3] + line.split()
                  for line in sys.stdin if line.strip()]
    elif len(sys.argv) in (7, 8):
        groups = [sys.argv[1:]]
    else:
        sys.exit(__doc__)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((sys.argv[1], 0))
    smac = s.getsockname()[4]
    dmac = bytes.fromhex(sys.argv[2].replace(":", ""))
    for args in groups:
        if len(args) not in (6, 7):
            sys.exit("craft.py: bad group %r" % " ".join(args[2:]))
        count = int(args[6]) if len(args) > 6 else 1
        for seq in range(count):
            pkt, etype = frame(args, seq)
            s.send(dmac + smac + struct.pack("!H", etype) + pkt)


if __name__ == "__main__":
    main()
