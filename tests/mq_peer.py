#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host-side peer of tests/mq-guest.sh and bench/mq-guest.sh, run by
tests/mq.sh and bench/mq.sh inside the network namespace that holds the
guest's multi-queue tap (and nothing else).

The guest asks through its output share DIR: it writes req-K (one line, a
command below) and waits for done-K, whose first line is "ok ..." or
"err ...".  Requests are served in order K = 1, 2, ...; the peer ends when
the file "quit" appears or after --timeout seconds.

  udp DST DPORT SPORT COUNT [FLOWS]
      COUNT datagrams of 64 bytes to DST:DPORT, from source ports SPORT ..
      SPORT+FLOWS-1 in turn (FLOWS default 1); each carries its sequence
      number (8 bytes, big endian) first; 2000 a second at most, which a
      guest under TCG (debug kernel included) takes without loss.
  ping DST COUNT [flush]
      ping -c COUNT; with flush, the neighbour table is flushed first, so
      ARP must work too.  "ok R" with R the replies.
  iperf DST PORT SECS [reverse|forward [STREAMS]]
      iperf3 TCP for SECS seconds to the iperf3 server on DST:PORT (with
      reverse, from it), in STREAMS connections (iperf3 -P, default 1):
      "ok MBPS" received, summed over them.
  tcpsink PORT SECS
      listen on PORT for one connection (SECS to come), answered at once
      with "ok listening"; the connection's bytes are checked against the
      pattern below and answered with "BYTES BAD" when it closes its
      sending side, as tests/netlib.sh's TCP server does.
  tcpflood DST PORT SECS SPORT
      connect from SPORT and send the pattern below for SECS seconds, or
      until the connection stalls for 3 seconds: "ok sent BYTES" or "ok
      stalled BYTES".
  tcp DST PORT BYTES SPORT
      connect from SPORT, send BYTES of the pattern (i * 7 + 3) & 0xff
      that tests/netlib.sh's TCP server checks, shut down the sending side
      and read the reply to the end: "ok REPLY".
"""
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time


def udp(dst, dport, sport, count, flows=1):
    socks = []
    for i in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", sport + i))
        socks.append(s)
    pad = bytes(56)
    for n in range(count):
        socks[n % flows].sendto(struct.pack(">Q", n) + pad, (dst, dport))
        if n == 0:
            time.sleep(0.2)     # the neighbour entry, if it had gone
        elif n % 8 == 7:
            time.sleep(0.004)
    for s in socks:
        s.close()
    return "ok %d" % count


def ping(dst, count, flush=False):
    if flush:
        subprocess.run(["ip", "neigh", "flush", "all"], check=False)
    r = subprocess.run(["ping", "-n", "-q", "-c", str(count), "-i", "0.2",
                        "-W", "2", dst], capture_output=True, text=True,
                       check=False)
    for line in r.stdout.splitlines():
        if "received" in line:
            return "ok %s" % line.split(",")[1].split()[0]
    return "err ping: %s" % (r.stdout + r.stderr).strip().replace("\n", " ")


def tcp(dst, port, nbytes, sport):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.settimeout(20)
    try:
        s.bind(("0.0.0.0", sport))
        s.connect((dst, port))
        s.sendall(bytes(((i * 7 + 3) & 0xff) for i in range(nbytes)))
        s.shutdown(socket.SHUT_WR)
        reply = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            reply += b
        return "ok %s" % reply.decode(errors="replace").strip()
    except OSError as e:
        return "err tcp: %s" % e
    finally:
        s.close()


def tcpflood(dst, port, secs, sport):
    chunk = bytes(((i * 7 + 3) & 0xff) for i in range(65536))
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.settimeout(3)
    n = 0
    end = time.time() + secs
    try:
        s.bind(("0.0.0.0", sport))
        s.connect((dst, port))
        while time.time() < end:
            s.sendall(chunk)
            n += len(chunk)
        return "ok sent %d" % n
    except socket.timeout:
        return "ok stalled %d" % n
    except OSError as e:
        return "err tcpflood: %s" % e
    finally:
        s.close()


def iperf(dst, port, secs, reverse=False, streams=1):
    cmd = ["iperf3", "-c", dst, "-p", str(port), "-t", str(secs), "-J",
           "-P", str(streams)]
    if reverse:
        cmd.append("-R")
    r = subprocess.run(cmd, capture_output=True, text=True, check=False,
                       timeout=secs + 60)
    try:
        res = json.loads(r.stdout)
        bps = res["end"]["sum_received"]["bits_per_second"]
    except (ValueError, KeyError) as e:
        return "err iperf3: %s %s" % (e, r.stderr.strip()[:200])
    return "ok %.1f" % (bps / 1e6)


def tcpsink(port, secs):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    srv.settimeout(secs)

    def run():
        try:
            c, _ = srv.accept()
            c.settimeout(secs)
            n = bad = 0
            while True:
                b = c.recv(65536)
                if not b:
                    break
                for x in b:
                    if x != (n * 7 + 3) & 0xff:
                        bad += 1
                    n += 1
            c.sendall(("%d %d\n" % (n, bad)).encode())
            c.close()
        except OSError:
            pass
        finally:
            srv.close()

    threading.Thread(target=run, daemon=True).start()
    return "ok listening"


def serve(line):
    w = line.split()
    try:
        if w[0] == "udp":
            return udp(w[1], int(w[2]), int(w[3]), int(w[4]),
                       int(w[5]) if len(w) > 5 else 1)
        if w[0] == "ping":
            return ping(w[1], int(w[2]), len(w) > 3 and w[3] == "flush")
        if w[0] == "iperf":
            return iperf(w[1], int(w[2]), int(w[3]),
                         len(w) > 4 and w[4] == "reverse",
                         int(w[5]) if len(w) > 5 else 1)
        if w[0] == "tcpsink":
            return tcpsink(int(w[1]), int(w[2]))
        if w[0] == "tcpflood":
            return tcpflood(w[1], int(w[2]), int(w[3]), int(w[4]))
        if w[0] == "tcp":
            return tcp(w[1], int(w[2]), int(w[3]), int(w[4]))
    except (IndexError, ValueError, OSError,
            subprocess.TimeoutExpired) as e:
        return "err %s: %s" % (line, e)
    return "err unknown request: %s" % line


def main():
    d = sys.argv[1]
    limit = time.time() + float(sys.argv[2]) if len(sys.argv) > 2 else 1e18
    k = 1
    while time.time() < limit and not os.path.exists(os.path.join(d, "quit")):
        req = os.path.join(d, "req-%d" % k)
        if not os.path.exists(req):
            time.sleep(0.05)
            continue
        with open(req) as f:
            line = f.read().strip()
        res = serve(line)
        tmp = os.path.join(d, ".done-%d" % k)
        with open(tmp, "w") as f:
            f.write(res + "\n")
        os.rename(tmp, os.path.join(d, "done-%d" % k))
        k += 1


if __name__ == "__main__":
    main()
