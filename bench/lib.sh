# SPDX-License-Identifier: GPL-2.0
#
# Shared by the vjchan benchmark's scripts.  On the host (bench/run.sh,
# bench/smoke.sh): boot a guest with the benchmark NIC and feed it traffic.
# In the guest (bench/guest.sh, bench/nic.sh, bench/iperf.sh): find NICs by
# their MAC and set up the peer namespace on the hub NICs.
#
# The guest gets a third virtio-net NIC (MAC 52:54:00:12:34:10) whose
# backend is a QEMU dgram netdev on 127.0.0.1:PORT_A, talking to
# 127.0.0.1:PORT_B: vjgen sends each frame as one UDP datagram from PORT_B
# to PORT_A.  While the guest runs bench/guest.sh, bench_coordinate answers
# its hand-shake files (see bench/rx.h) in the vm.sh output share.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
bench_top=$(cd "$bench_dir/.." && pwd -P)

bench_say() {
	echo "bench: $*" >&2
}

# bench_wait_file FILE SECS: true once FILE exists, false after SECS
# (looked for every 50 ms; for hand-shakes through the vm.sh output share).
bench_wait_file() {
	local _
	for _ in $(seq $(($2 * 20))); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# ---- guest side ----------------------------------------------------------

# The hub NICs of the peer set-up: the one under test stays in the root
# namespace (bench/nic.sh moves it between drivers), the peer's always is
# on virtio_net in the namespace "nicpeer".
bench_dut_mac=52:54:00:12:34:03 bench_peer_mac=52:54:00:12:34:02
bench_here=198.51.100.1 bench_peer=198.51.100.2

# bench_by_mac MAC: the name of the interface with that address (names
# change when a NIC moves to another driver).
bench_by_mac() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	echo "bench: no NIC with MAC $1" >&2
	return 1
}

# bench_nic_up: find the benchmark NIC by its MAC (its name changes when it
# moves to another driver) and set it up to receive only: no IPv6 chatter,
# no ARP for the sender.  Sets $bench_nic to its name.
bench_nic_up() {
	bench_nic=$(bench_by_mac 52:54:00:12:34:10) || exit 1
	echo 1 >"/proc/sys/net/ipv6/conf/$bench_nic/disable_ipv6"
	ip link set "$bench_nic" up
	ip addr add 203.0.113.1/24 dev "$bench_nic"
	ip neigh replace 203.0.113.2 lladdr 52:54:00:12:34:20 dev "$bench_nic" nud permanent
}

# bench_peer_up: the namespace "nicpeer" with the peer NIC at $bench_peer.
bench_peer_up() {
	local pdev
	ip netns add nicpeer
	ip link set "$(bench_by_mac "$bench_peer_mac")" netns nicpeer
	pdev=$(ip -n nicpeer -o link | awk -v m="$bench_peer_mac" '$0 ~ "ether " m " " { sub(":", "", $2); print $2 }')
	ip -n nicpeer link set lo up
	ip -n nicpeer addr add "$bench_peer/24" dev "$pdev"
	ip -n nicpeer link set "$pdev" up
	# Only the NIC under test answers ARP for its address on the shared hub.
	sysctl -qw net.ipv4.conf.all.arp_ignore=1
}

# bench_peer_down: the peer NIC back in the root namespace.
bench_peer_down() {
	ip netns del nicpeer
}

# bench_dut_up: $bench_here on the NIC under test, up; waits until the peer
# reaches it.
bench_dut_up() {
	local dev
	dev=$(bench_by_mac "$bench_dut_mac") || return 1
	ip addr replace "$bench_here/24" dev "$dev"
	ip link set "$dev" up
	for _ in $(seq 100); do
		ip netns exec nicpeer ping -c 1 -W 1 "$bench_here" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "bench: $bench_here on $dev does not answer the peer" >&2
	return 1
}

# ---- host side -----------------------------------------------------------

# The benchmark's Debian packages (libxdp/libbpf, clang, xdp-tools,
# matplotlib) are in the project's one list, scripts/install-deps.sh.
bench_deps() {
	"$bench_top/scripts/install-deps.sh"
}

bench_build() {
	"$bench_top/scripts/install-deps.sh"
	eval "$("$bench_top/scripts/fetch-kernel.sh")"
	make -s -C "$bench_top/kernel" KDIR="$VJ_KDIR" >/dev/null
	make -s -C "$bench_top/lib" libvjchan.a
	make -s -C "$bench_top/tools"	# vjchan-run, for bench/iperf.sh
	make -s -C "$bench_dir"
}

# A UDP port on 127.0.0.1 that nobody uses now.
bench_free_port() {
	local p

	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 30000))
		if ! ss -Hluna "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# bench_coordinate OUTDIR PORT_A PORT_B VMPID: answer the guest's cells until
# the VM is gone.  For each ready-K, run vjgen with the cell's parameters
# (flows=N: vjgen -f N) until the guest writes win-K (or vjgen's own time
# limit), then write vjgen's result line to done-K.  A transmit cell
# (sink=1 in ready-K) gets vjgen -R, the sink of the guest's frames, which
# creates go-K once it listens.
bench_coordinate() {
	local out=$1 pa=$2 pb=$3 vmpid=$4 k=1 line size rate maxsec tag sink flows
	local gpid

	while kill -0 "$vmpid" 2>/dev/null; do
		if [ -e "$out/skip-$k" ]; then
			k=$((k + 1))
			continue
		fi
		if [ ! -e "$out/ready-$k" ]; then
			sleep 0.05
			continue
		fi
		read -r line <"$out/ready-$k"
		size= rate= maxsec= tag= sink= flows=
		eval "$(tr ' ' '\n' <<<"$line" | grep -E '^(size|rate|maxsec|tag|sink|flows)=[0-9]+$')"
		if [ "${sink:-0}" = 1 ]; then
			"$bench_dir/vjgen" -R -p "$pa" -b "$pb" -s "$size" \
				-t "$maxsec" -g "$tag" --ready "$out/go-$k" \
				>"$out/.gen-$k" 2>&1 &
		else
			"$bench_dir/vjgen" -p "$pa" -b "$pb" -s "$size" -r "$rate" \
				-t "$maxsec" -g "$tag" -f "${flows:-1}" \
				>"$out/.gen-$k" 2>&1 &
		fi
		gpid=$!
		while kill -0 "$gpid" 2>/dev/null && [ ! -e "$out/win-$k" ] &&
			kill -0 "$vmpid" 2>/dev/null; do
			sleep 0.05
		done
		kill -INT "$gpid" 2>/dev/null || true
		wait "$gpid" || true
		cp "$out/.gen-$k" "$out/.done-$k.tmp"
		mv "$out/.done-$k.tmp" "$out/done-$k"
		k=$((k + 1))
	done
}

# bench_boot SMP OUTDIR TIMEOUT GUEST-COMMAND: boot a guest with the
# benchmark NIC, run GUEST-COMMAND (bash text, in the repository root) and
# coordinate; returns vm.sh's status.  OUTDIR is emptied first.  The vCPUs
# run on a host thread each (vm.sh --tcg-threads multi, BENCH_TCG_THREADS):
# two vCPUs in turn on one thread would measure nothing about SMP.
bench_boot() {
	local smp=$1 out=$2 tmo=$3 cmd=$4 pa pb vmpid st=0

	rm -rf "$out"
	mkdir -p "$out"
	pa=$(bench_free_port)
	pb=$(bench_free_port)
	while [ "$pb" = "$pa" ]; do
		pb=$(bench_free_port)
	done
	"$bench_top/scripts/vm.sh" --smp "$smp" --timeout "$tmo" --out "$out" \
		--tcg-threads "${BENCH_TCG_THREADS:-multi}" --quiet-boot --netdev-extra "-netdev dgram,id=bn,local.type=inet,local.host=127.0.0.1,local.port=$pa,remote.type=inet,remote.host=127.0.0.1,remote.port=$pb -device virtio-net-pci,netdev=bn,mac=52:54:00:12:34:10,romfile=" \
		-- "$cmd" &
	vmpid=$!
	bench_coordinate "$out" "$pa" "$pb" "$vmpid"
	wait "$vmpid" || st=$?
	return "$st"
}
