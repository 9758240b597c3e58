#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send a burst of back-to-back TCP segments of one flow as raw Ethernet
frames, so that the receiving device's GRO can merge them.

  tcpburst.py IFACE DST_MAC SRC_IP DST_IP SPORT DPORT COUNT SIZE

Segments carry ACK only (PSH would end a GRO merge), consecutive sequence numbers and correct
checksums; the payload of segment i is bytes (i + j) & 0xff.
"""
import socket
import struct
import sys

from craft import csum   # tests/craft.py, beside this script


def main():
    iface, dmac, sip, dip, sport, dport, count, size = sys.argv[1:9]
    sport, dport, count, size = int(sport), int(dport), int(count), int(size)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    smac = s.getsockname()[4]
    dmac = bytes(int(x, 16) for x in dmac.split(":"))
    src, dst = socket.inet_aton(sip), socket.inet_aton(dip)
    seq0 = 1000
    frames = []
    for i in range(count):
        payload = bytes((i + j) & 0xFF for j in range(size))
        tcp = struct.pack("!HHIIBBHHH", sport, dport, seq0 + i * size, 1,
                          5 << 4, 0x10, 65535, 0, 0) + payload
        pseudo = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
        c = csum(pseudo + tcp)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), i, 0x4000,
                         64, 6, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        frames.append(dmac + smac + b"\x08\x00" + ip + tcp)
    for f in frames:
        s.send(f)


if __name__ == "__main__":
    main()
