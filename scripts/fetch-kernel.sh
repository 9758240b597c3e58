#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's packaged 6.12 kernel (image, headers, kbuild) into a cache
# outside the repository, by download and extraction only: nothing is
# installed on the host and nothing is loaded into the host kernel.
#
# Prints shell assignments for the resolved paths, e.g.
#   eval "$(scripts/fetch-kernel.sh)"
# sets VJ_KVER, VJ_KDIR (headers tree for out-of-tree builds), VJ_VMLINUZ
# and VJ_MODDIR (the guest's /lib/modules/$VJ_KVER).
#
# VJ_CACHE (default ~/.cache/vjchan) picks the cache; VJ_KVER pins a version
# such as 6.12.118+deb12; otherwise the newest 6.12 that the archive offers
# with both an unsigned image and headers is used.
set -euo pipefail

cache=${VJ_CACHE:-$HOME/.cache/vjchan}
mkdir -p "$cache"
log="$cache/fetch.log"

need_apt_lists() {
	apt-cache show linux-source-6.12 >/dev/null 2>&1 || apt-cache policy 2>/dev/null | grep -q bookworm
}

resolve_version() {
	local v
	for v in $(apt-cache search --names-only \
			'^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		   sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned .*/\1/p' |
		   sort -V -r); do
		if apt-cache show "linux-headers-$v-amd64" >/dev/null 2>&1; then
			echo "$v"
			return 0
		fi
	done
	return 1
}

if [ -z "${VJ_KVER:-}" ]; then
	# Offline re-runs: reuse the newest complete extraction if apt knows nothing.
	if ! kver=$(resolve_version 2>/dev/null); then
		apt-get update >>"$log" 2>&1 || true
		kver=$(resolve_version) || {
			kver=$(ls -1 "$cache" 2>/dev/null | sed -n 's/^root-\(.*\)$/\1/p' |
			       sort -V | tail -n 1)
		}
	fi
else
	kver=$VJ_KVER
fi
[ -n "${kver:-}" ] || { echo "fetch-kernel: no linux 6.12 found in apt" >&2; exit 1; }

root="$cache/root-$kver"
if [ ! -f "$root/.complete" ]; then
	dl="$cache/deb-$kver"
	mkdir -p "$dl"
	pkgs="linux-image-$kver-amd64-unsigned linux-headers-$kver-amd64
	      linux-headers-$kver-common linux-kbuild-$kver"
	echo "fetch-kernel: downloading $kver into $dl" >&2
	(cd "$dl" && apt-get download $pkgs) >>"$log" 2>&1 || {
		apt-get update >>"$log" 2>&1
		(cd "$dl" && apt-get download $pkgs) >>"$log" 2>&1
	}
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp"
	for deb in "$dl"/*.deb; do
		dpkg -x "$deb" "$root.tmp"
	done
	# The headers Makefile includes the common tree by absolute path.
	hdr="$root.tmp/usr/src/linux-headers-$kver-amd64"
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$hdr/Makefile"
	depmod -b "$root.tmp" "$kver-amd64" >>"$log" 2>&1
	rm -rf "$root"
	mv "$root.tmp" "$root"
	sed -i "s|$root.tmp|$root|g" "$root/usr/src/linux-headers-$kver-amd64/Makefile"
	touch "$root/.complete"
fi

echo "VJ_KVER=$kver-amd64"
echo "VJ_KDIR=$root/usr/src/linux-headers-$kver-amd64"
echo "VJ_VMLINUZ=$root/boot/vmlinuz-$kver-amd64"
echo "VJ_MODDIR=$root/lib/modules/$kver-amd64"
