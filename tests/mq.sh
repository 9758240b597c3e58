#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multi-queue vjnet: a guest whose fourth NIC is a two-queue virtio-net
# device with RSS (mq=on, rss=on) on a multi-queue tap, and a peer on the
# host side of that tap (tests/mq_peer.py); its fifth an 18-queue one on
# a second tap (MQ_MANY_PAIRS).  The taps live in a network namespace made
# here and deleted on exit ("vjmq-PID": the taps at 203.0.113.1/24 and
# 198.51.100.1/24, nothing else, no route or link out); QEMU and the peer
# run inside it, so the host's own networking never changes.  Needs
# /dev/net/tun and the right to make a namespace and multi-queue taps:
# without them every case is skipped, with the reason.
#
#   tests/mq.sh [vm.sh options]     e.g. --kernel K --moddir M (debug kernel)
#
# VJ_KO: where the guest loads the modules from (default kernel).
# Prints the guest's case lines and "N passed, N failed[, N skipped]";
# exits 1 if a case failed or the guest logged a splat.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
ko=${VJ_KO:-kernel}
cases="MQ_ATTACH MQ_RSS_SPREAD MQ_CHANNELS_TRAFFIC MQ_TCP_OUT MQ_RX_CSUM MQ_RX_GSO MQ_GSO_CHANNEL MQ_DIRECT_ONE_QUEUE MQ_DIRECT_STALLED MQ_DIRECT_REFUSED MQ_MANY_PAIRS MQ_KERNEL_LOG_CLEAN"

skip_all() {	# skip_all REASON: every case skipped, with REASON
	local c
	for c in $cases; do
		echo "skip $c: $1"
	done
	echo "0 passed, 0 failed, $(wc -w <<<"$cases") skipped"
	exit 0
}

[ -c /dev/net/tun ] || skip_all "no /dev/net/tun (the multi-queue tap needs it)"

ns=vjmq-$$
tap=vjmq0
out=$top/out/mq
mkdir -p "$out"
# shellcheck source=scripts/tapns.sh
. "$top/scripts/tapns.sh"
# A machine that cannot make a namespace or a multi-queue tap (a container
# without the capability, no tun driver) cannot run these cases.
tapns_up "$ns" $tap 203.0.113.1/24 multi_queue 2>"$out/tapns.err" ||
	skip_all "no network namespace with a multi-queue tap here: $(head -n 1 "$out/tapns.err")"
# The fifth NIC's (MQ_MANY_PAIRS): 18 queues, more than vjnet drives.
{ ip -n "$ns" tuntap add dev vjmq1 mode tap multi_queue &&
	ip -n "$ns" addr add 198.51.100.1/24 dev vjmq1 &&
	ip -n "$ns" link set vjmq1 up; } 2>>"$out/tapns.err" ||
	skip_all "no second multi-queue tap here: $(head -n 1 "$out/tapns.err")"

rm -rf "$out/vm"
mkdir -p "$out/vm"
ip netns exec "$ns" python3 "$top/tests/mq_peer.py" "$out/vm" 900 &
ip netns exec "$ns" "$top/scripts/vm.sh" "$@" --timeout 900 --out "$out/vm" \
	--netdev-extra "-netdev tap,id=mq,ifname=$tap,script=no,downscript=no,queues=2 -device virtio-net-pci,netdev=mq,mq=on,rss=on,vectors=6,mac=52:54:00:12:35:02,romfile= -netdev tap,id=mq18,ifname=vjmq1,script=no,downscript=no,queues=18 -device virtio-net-pci,netdev=mq18,mq=on,rss=on,vectors=38,mac=52:54:00:12:35:03,romfile=" \
	-- "VJ_KO=$ko bash tests/mq-guest.sh" >"$out/vm.log" 2>&1
rc=$?
touch "$out/vm/quit"
grep -E '^(ok|FAIL|skip) ' "$out/vm.log"
p=$(grep -c '^ok ' "$out/vm.log")
f=$(grep -c '^FAIL ' "$out/vm.log")
s=$(grep -c '^skip ' "$out/vm.log")
# vm.sh exits 3 if the guest's kernel logged a splat (WARN, BUG, KASAN,
# lockdep ...), 124 on its timeout, 125 if the guest died.
if [ "$rc" = 3 ]; then
	echo "FAIL MQ_KERNEL_LOG_CLEAN: the guest's kernel logged a splat (see $out/vm.log)"
	f=$((f + 1))
elif [ "$rc" != 0 ]; then
	echo "FAIL MQ_GUEST: vm.sh exit $rc (see $out/vm.log)"
	f=$((f + 1))
else
	echo "ok MQ_KERNEL_LOG_CLEAN"
	p=$((p + 1))
fi
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
