#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest only: why scripts/vm.sh runs the vCPUs in turn (--tcg-threads).
# Both vCPUs run ping floods over lo while this flips two static keys N
# times (default 400): the kmem_cache_free tracepoint's (hot in every
# free) and the IPv4 input hook's (an nftables base chain added and
# deleted).  Each flip patches kernel text with int3 (text_poke_bp).
#
#   scripts/vm.sh --tcg-threads multi -- 'bash scripts/text-patch-stress.sh'
#   scripts/vm.sh --tcg-threads single -- 'N=100 bash scripts/text-patch-stress.sh'
#
# No vjchan code is involved.  On QEMU 7.2 (Debian 12) the multi guest
# died of "Oops: int3" within seconds; the single one finished.
set -euo pipefail
[ "${VJ_IN_VM:-}" = 1 ] || { echo "text-patch-stress.sh: guest only" >&2; exit 2; }

ev=/sys/kernel/tracing/events/kmem/kmem_cache_free/enable
[ -e $ev ] || mount -t tracefs nodev /sys/kernel/tracing
ip link set lo up
pids=()
for cpu in 0 1; do
	taskset -c $cpu bash -c \
		'while :; do ping -f -q -c 2000 127.0.0.1 >/dev/null 2>&1; done' &
	pids+=($!)
done
start=$SECONDS
for ((i = 1; i <= ${N:-400}; i++)); do
	echo 1 >$ev
	echo 0 >$ev
	nft add table ip vjstress
	nft add chain ip vjstress in '{ type filter hook input priority 0; }'
	nft delete table ip vjstress
done
kill "${pids[@]}"
echo "text-patch-stress: ${N:-400} rounds in $((SECONDS - start)) s, no crash"
