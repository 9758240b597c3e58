#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the UDP and TCP checksums of every Ethernet frame in a pcapng
file (vjchan-recv -w), IPv4 and IPv6 without extension headers.

    csum_check.py FILE

Prints "packets N bad M [first bad: why]"; exits 0 if N > 0 and M == 0.
"""
import struct
import sys

from pcap_check import csum as fold


def frames(path):
    with open(path, "rb") as f:
        buf = f.read()
    off, endian = 0, "<"
    while off + 12 <= len(buf):
        btype, blen = struct.unpack_from(endian + "II", buf, off)
        if btype == 0x0a0d0d0a:         # section header: byte order
            endian = "<" if buf[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" \
                else ">"
            blen = struct.unpack_from(endian + "I", buf, off + 4)[0]
        elif btype == 6:                # enhanced packet block
            caplen = struct.unpack_from(endian + "I", buf, off + 20)[0]
            yield buf[off + 28:off + 28 + caplen]
        if blen < 12:
            raise ValueError("bad block length %d" % blen)
        off += blen


def check(frame):
    """None if the checksum is right, else why not."""
    etype = struct.unpack_from("!H", frame, 12)[0]
    ip = frame[14:]
    if etype == 0x0800:
        ihl = (ip[0] & 15) * 4
        total, proto = struct.unpack_from("!H", ip, 2)[0], ip[9]
        l4 = ip[ihl:total]
        pseudo = ip[12:20] + struct.pack("!BBH", 0, proto, len(l4))
    elif etype == 0x86dd:
        plen, proto = struct.unpack_from("!HB", ip, 4)
        l4 = ip[40:40 + plen]
        pseudo = ip[8:40] + struct.pack("!IxxxB", len(l4), proto)
    else:
        return "ethertype %#x" % etype
    if proto not in (6, 17):
        return "protocol %d" % proto
    if proto == 17 and etype == 0x0800 and l4[6:8] == b"\0\0":
        return "no UDP checksum"
    if fold(pseudo + l4) != 0xffff:
        return "bad %s checksum" % ("UDP" if proto == 17 else "TCP")
    return None


def main():
    n = bad = 0
    first = ""
    for fr in frames(sys.argv[1]):
        n += 1
        why = check(fr)
        if why:
            bad += 1
            first = first or " first bad: packet %d: %s" % (n, why)
    print("packets %d bad %d%s" % (n, bad, first))
    return 0 if n and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
