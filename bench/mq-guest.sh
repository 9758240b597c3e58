#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/mq.sh.  The NIC with MAC 52:54:00:12:35:02 (two queue
# pairs, RSS, on a multi-queue tap) gets 203.0.113.2/24; the peer
# (203.0.113.1, tests/mq_peer.py on the host) runs iperf3's client when
# asked through $VJ_OUT.  For each run, driver (virtio_net, vjnet: the NIC
# moved with vjchan-ctl) and queue pairs in use (ethtool -L combined 1, 2):
#
#   dir=in    iperf3 TCP bulk from the peer into this guest
#   dir=out   the same from this guest to the peer (iperf3 -R)
#
# each with 1 and with 4 connections at once (streams; iperf3 -P 4: RSS
# spreads them over the pairs in use, so the pairs can share the work).
#
# mbps is what iperf3 says was received; guest_busy_pct the share of the
# guest's CPU time (all vCPUs) not idle during it, from /proc/stat.  No
# channel is bound: this is ordinary traffic through each driver.  Rows
# "run,driver,queues,dir,streams,mbps,guest_busy_pct" go to $VJ_OUT/mq.csv.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$top/tools:$PATH"
share=${VJ_OUT:?}
runs=${BENCH_MQ_RUNS:-3}
secs=${BENCH_MQ_SECONDS:-5}
here=203.0.113.2
kfile=$(mktemp /tmp/vj-mq.XXXXXX)
echo 0 >"$kfile"

# ask REQUEST: the peer's answer line.  The request number lives in a file:
# ask runs in command substitutions.
ask() {
	local k
	k=$(($(cat "$kfile") + 1))
	echo $k >"$kfile"
	echo "$*" >"$share/.req-$k"
	mv "$share/.req-$k" "$share/req-$k"
	for _ in $(seq $(((secs + 60) * 10))); do
		[ -e "$share/done-$k" ] && break
		sleep 0.1
	done
	head -n 1 "$share/done-$k" 2>/dev/null || echo "err no answer"
}

cpu() {		# busy and total jiffies of all CPUs
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i;
		print t - $5 - $6, t }' /proc/stat
}

nic() {
	ip -o link | awk -F': ' '/52:54:00:12:35:02/ { print $2 }'
}

# to_driver DRV: the NIC on DRV with its address, the peer answering.
to_driver() {
	local d drv
	d=$(nic)
	drv=$(basename "$(readlink -f "/sys/class/net/$d/device/driver")")
	if [ "$drv" != "$1" ]; then
		if [ "$1" = vjnet ]; then
			d=$(vjchan-ctl attach "$d")
		else
			d=$(vjchan-ctl detach "$d")
		fi
	fi
	ip addr replace $here/24 dev "$d"
	ip link set "$d" up
	for _ in $(seq 50); do
		ping -c 1 -W 1 203.0.113.1 >/dev/null 2>&1 && break
		sleep 0.2
	done
	echo "$d"
}

insmod kernel/vjchan.ko && insmod kernel/vjnet.ko || exit 1
: >"$share/mq.csv"
for run in $(seq "$runs"); do
	for drv in virtio_net vjnet; do
		dev=$(to_driver $drv)
		for q in 1 2; do
			ethtool -L "$dev" combined $q || { echo "FAIL ethtool -L $dev combined $q"; continue; }
			sleep 1
			for cell in "in 1" "out 1" "in 4" "out 4"; do
				read -r dir st <<<"$cell"
				iperf3 -s -1 -B $here -p 5299 >/dev/null 2>&1 &
				srv=$!
				sleep 0.5
				read -r b0 t0 <<<"$(cpu)"
				if [ $dir = in ]; then
					r=$(ask iperf $here 5299 "$secs" forward "$st")
				else
					r=$(ask iperf $here 5299 "$secs" reverse "$st")
				fi
				read -r b1 t1 <<<"$(cpu)"
				kill $srv 2>/dev/null
				wait $srv 2>/dev/null
				mbps=${r#ok }
				[ "${r%% *}" = ok ] || { echo "FAIL $drv q$q $dir x$st: $r"; mbps=0; }
				busy=$(awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) \
					'BEGIN { printf "%.1f", t ? 100 * b / t : 0 }')
				echo "$run,$drv,$q,$dir,$st,$mbps,$busy" >>"$share/mq.csv"
				echo "mq run=$run driver=$drv queues=$q dir=$dir streams=$st mbps=$mbps busy=$busy%"
			done
		done
	done
done
