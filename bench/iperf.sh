#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An unmodified program's UDP through vjchan-run against the same program
# run plainly, in one guest boot (run by bench/guest.sh; guest only):
# iperf3's UDP test.  The server runs in the root namespace on the hub NIC
# ...:03 (virtio_net, 198.51.100.1), the client in the namespace "nicpeer"
# on ...:02 (bench/lib.sh).  Each run, for each rate of BENCH_IPERF_RATES,
# runs the server both ways, in an order that alternates from run to run:
#
#   plain       iperf3 -s -1 -J
#   vjchan-run  tools/vjchan-run --ports 5301 --entries 4096 iperf3 -s -1 -J:
#               the server's UDP socket is a UDP channel (default firewall
#               mode, ring of 4096 entries as the receive cells' queues)
#
# The plain server's socket gets an 8 MiB receive buffer (net.core.
# rmem_default, set for these runs only), as the receive cells' UDP socket.
# The client sends BENCH_IPERF_LEN [1400] byte datagrams at the rate for
# BENCH_IPERF_SECONDS [4] s: iperf3 -u -c -b RATE -l LEN -t SECS -J.  From
# the server's JSON (end.sum_received): received Mbit/s, lost %, jitter.
# When iperf3 fails (either side's JSON has "error", or no JSON) the row's
# status is "failed" and the reason is iperf3's error.  chan_rx_packets is
# the most rx_packets a channel on port 5301 showed in /proc/net/vjchan
# while the client ran: 0 means no datagram came through a channel, which
# fails a vjchan-run row that iperf3 itself reports as good.
#
# Appends "smp,run,server,rate,len,status,reason,rx_mbps,sent_mbps,
# lost_pct,jitter_ms,packets,lost_packets,chan_rx_packets" rows to OUT.CSV.
#
#   bench/iperf.sh OUT.CSV
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

out=${1:?usage: bench/iperf.sh OUT.CSV}
[ "${VJ_IN_VM:-}" = 1 ] || { echo "iperf.sh: guest only" >&2; exit 2; }
runs=${BENCH_IPERF_RUNS:-3}
read -ra rates <<<"${BENCH_IPERF_RATES:-20M 100M}"
secs=${BENCH_IPERF_SECONDS:-4}
len=${BENCH_IPERF_LEN:-1400}
port=5301
smp=$(nproc)
tmp=$(mktemp -d)
trap 'echo "iperf.sh: line $LINENO: exit status $?" >&2' ERR

command -v iperf3 >/dev/null || { echo "iperf.sh: no iperf3" >&2; exit 1; }
[ -x tools/vjchan-run ] || { echo "iperf.sh: tools/vjchan-run not built" >&2; exit 1; }

chan_rx() {	# rx_packets of the IPv4 channel on $port, empty if none
	awk -v port="$port" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["family"] == "ipv4" && $col["dport"] == port { print $col["rx_packets"]; exit }
	' /proc/net/vjchan 2>/dev/null || true
}

# one RUN SERVER RATE: one iperf3 test; appends its row.
one() {
	local run=$1 server=$2 rate=$3 srv cl r rx=0 row
	local -a pre=()
	[ "$server" = vjchan-run ] && pre=(tools/vjchan-run --ports "$port" --entries 4096)
	rm -f "$tmp"/*
	timeout $((secs + 40)) "${pre[@]}" iperf3 -s -1 -B "$bench_here" -p "$port" -J \
		>"$tmp/s.json" 2>"$tmp/s.err" &
	srv=$!
	for _ in $(seq 100); do
		ss -Hltn "sport = :$port" | grep -q . && break
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	ip netns exec nicpeer timeout $((secs + 30)) iperf3 -u -c "$bench_here" \
		-p "$port" -b "$rate" -l "$len" -t "$secs" -J >"$tmp/c.json" 2>"$tmp/c.err" &
	cl=$!
	# The channel goes when the server ends: read its counter meanwhile.
	while kill -0 "$cl" 2>/dev/null; do
		r=$(chan_rx)
		[ -n "$r" ] && [ "$r" -gt "$rx" ] && rx=$r
		sleep 0.2
	done
	wait "$cl" || true
	wait "$srv" || true
	row=$(python3 - "$tmp" "$server" "$rx" <<-'PY'
	import json, sys
	tmp, server, chan_rx = sys.argv[1], sys.argv[2], int(sys.argv[3])
	def load(name):
	    try:
	        t = open("%s/%s.json" % (tmp, name)).read()
	        return json.loads(t[t.index("{"):])
	    except (OSError, ValueError) as e:
	        err = open("%s/%s.err" % (tmp, name)).read().strip().splitlines()
	        return {"error": "no JSON from the %s (%s)" % (
	            "server" if name == "s" else "client",
	            err[-1] if err else e)}
	s, c = load("s"), load("c")
	why = s.get("error") or c.get("error")
	if why:
	    who = "server" if s.get("error") else "client"
	    print("failed,iperf3 %s: %s,,,,,,%d" % (who, why.replace(",", ";").replace("\n", " "), chan_rx))
	    sys.exit()
	r = s["end"]["sum_received"]
	sent = c["end"].get("sum_sent", {}).get("bits_per_second", 0)
	status, why = "ok", ""
	if server == "vjchan-run" and not chan_rx:
	    status, why = "failed", "no datagram came through a channel"
	print("%s,%s,%.1f,%.1f,%.2f,%.3f,%d,%d,%d" % (
	    status, why, r["bits_per_second"] / 1e6, sent / 1e6,
	    r["lost_percent"], r["jitter_ms"], r["packets"], r["lost_packets"],
	    chan_rx))
	PY
	) || row="failed,iperf.sh: no result (python: exit status $?),,,,,,,"
	echo "$smp,$run,$server,$rate,$len,$row" | tee -a "$out"
}

[ -s "$out" ] || echo "smp,run,server,rate,len,status,reason,rx_mbps,sent_mbps,lost_pct,jitter_ms,packets,lost_packets,chan_rx_packets" >"$out"
rmem=$(sysctl -n net.core.rmem_default)
bench_peer_up
if bench_dut_up; then
	sysctl -qw net.core.rmem_default=$((8 << 20))
	for ((run = 1; run <= runs; run++)); do
		order="plain vjchan-run"
		[ $((run % 2)) = 0 ] && order="vjchan-run plain"
		for rate in "${rates[@]}"; do
			for server in $order; do
				one "$run" "$server" "$rate"
			done
		done
	done
	sysctl -qw net.core.rmem_default="$rmem"
else
	for ((run = 1; run <= runs; run++)); do
		for rate in "${rates[@]}"; do
			for server in plain vjchan-run; do
				echo "$smp,$run,$server,$rate,$len,failed,the peer does not reach $bench_here,,,,,,," >>"$out"
			done
		done
	done
fi
bench_peer_down
rm -rf "$tmp"
