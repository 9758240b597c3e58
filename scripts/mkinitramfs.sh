#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the tiny initramfs that boots vjchan test guests:
#   scripts/mkinitramfs.sh [--moddir DIR] OUT.cpio.gz
#
# It holds busybox-static, tests/vm/initramfs-init.sh as /init and the
# guest kernel's 9p, overlay and virtio_net modules (with dependencies), decompressed so
# that busybox insmod does not depend on its own decompressors.  The guest
# kernel's modules come from --moddir, else $VJ_MODDIR, else
# scripts/fetch-kernel.sh.  OUT is left alone when none of its inputs
# changed (a hash of them is kept in OUT.stamp).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
init_src=$top/tests/vm/initramfs-init.sh
busybox=${VJ_BUSYBOX:-/bin/busybox}
# The 9p stack and overlay to mount the host root; virtio_net because
# loading it from busybox in RAM is much faster than kmod over 9p.
wanted="9pnet_virtio 9p overlay virtio_net"

usage() {
	echo "usage: $0 [--moddir DIR] OUT.cpio.gz" >&2
	exit 2
}

moddir=${VJ_MODDIR:-}
while [ $# -gt 0 ]; do
	case $1 in
	--moddir)	[ $# -ge 2 ] || usage; moddir=$2; shift 2 ;;
	-h|--help)	usage ;;
	-*)		usage ;;
	*)		break ;;
	esac
done
[ $# -eq 1 ] || usage
out=$1

if [ -z "$moddir" ]; then
	eval "$("$top/scripts/fetch-kernel.sh")"
	moddir=$VJ_MODDIR
fi
moddir=$(cd "$moddir" && pwd)
kver=$(basename "$moddir")
# modprobe wants the tree that contains lib/modules/<kver>.
modroot=$(cd "$moddir/../../.." && pwd)
[ "$modroot/lib/modules/$kver" -ef "$moddir" ] ||
	{ echo "mkinitramfs: $moddir is not a .../lib/modules/<kver> dir" >&2; exit 1; }
if command -v file >/dev/null && ! file -L "$busybox" | grep -q 'statically linked'; then
	echo "mkinitramfs: $busybox is not a static busybox" >&2
	exit 1
fi

# Module files in load order, deduplicated; "builtin" ones need nothing.
mods=()
for m in $wanted; do
	while read -r verb path _; do
		[ "$verb" = insmod ] || continue
		case " ${mods[*]-} " in *" $path "*) continue ;; esac
		mods+=("$path")
	done < <(modprobe --show-depends -d "$modroot" -S "$kver" "$m")
done

# Contents only: the same files reached by another path are the same input.
stamp=$( {
	for f in "${BASH_SOURCE[0]}" "$init_src" "$busybox" "${mods[@]}"; do
		sha256sum <"$f"
	done
	echo "$kver"
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

stage=$(mktemp -d)
tmp=
trap 'rm -rf "$stage" ${tmp:+"$tmp"}' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,lib/modules}
cp "$busybox" "$stage/bin/busybox"
for a in sh mount insmod mkdir ln cat echo sleep poweroff switch_root uname ip; do
	ln -s busybox "$stage/bin/$a"
done
install -m 755 "$init_src" "$stage/init"
# The kernel opens /dev/console before /init runs; only root can mknod.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true

for path in "${mods[@]}"; do
	base=$(basename "$path")
	case $base in
	*.ko.xz)	xz -dc "$path" >"$stage/lib/modules/${base%.xz}" ;;
	*.ko.zst)	zstd -qdc "$path" >"$stage/lib/modules/${base%.zst}" ;;
	*.ko.gz)	gzip -dc "$path" >"$stage/lib/modules/${base%.gz}" ;;
	*.ko)		cp "$path" "$stage/lib/modules/$base" ;;
	*)		echo "mkinitramfs: odd module $path" >&2; exit 1 ;;
	esac
	echo "${base%.ko*}.ko" >>"$stage/lib/modules/load.order"
done
touch "$stage/lib/modules/load.order"

mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet | gzip -9n) >"$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$out"
echo "$stamp" >"$out.stamp"
echo "mkinitramfs: built $out ($kver: ${#mods[@]} modules)" >&2
