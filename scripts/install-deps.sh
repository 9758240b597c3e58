#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages the build and the QEMU tests need, if missing.
# Kernel packages are never installed: scripts/fetch-kernel.sh extracts them
# into a cache instead.
set -euo pipefail

pkgs=(gcc make libc6-dev qemu-system-x86 busybox-static kmod xz-utils
      cpio iproute2 nftables python3 sparse iputils-ping procps dwarves
      clang libbpf-dev libxdp-dev xdp-tools pkg-config)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
