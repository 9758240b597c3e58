# SPDX-License-Identifier: GPL-2.0
#
# Host side of the vjchan benchmark, sourced by bench/run.sh and
# bench/smoke.sh: boot a guest with the benchmark NIC and feed it traffic.
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
# until the guest writes win-K (or vjgen's own time limit), then write
# vjgen's result line to done-K.
bench_coordinate() {
	local out=$1 pa=$2 pb=$3 vmpid=$4 k=1 line size rate maxsec tag gpid

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
		size= rate= maxsec= tag=
		eval "$(tr ' ' '\n' <<<"$line" | grep -E '^(size|rate|maxsec|tag)=[0-9]+$')"
		"$bench_dir/vjgen" -p "$pa" -b "$pb" -s "$size" -r "$rate" \
			-t "$maxsec" -g "$tag" >"$out/.gen-$k" 2>&1 &
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
# coordinate; returns vm.sh's status.  OUTDIR is emptied first.
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
		--quiet-boot --netdev-extra "-netdev dgram,id=bn,local.type=inet,local.host=127.0.0.1,local.port=$pa,remote.type=inet,remote.host=127.0.0.1,remote.port=$pb -device virtio-net-pci,netdev=bn,mac=52:54:00:12:34:10,romfile=" \
		-- "$cmd" &
	vmpid=$!
	bench_coordinate "$out" "$pa" "$pb" "$vmpid"
	wait "$vmpid" || st=$?
	return "$st"
}
