#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages that the build, the tests and the benchmark
# need, if missing: the one list of them (the debug kernel's build
# dependencies are installed by scripts/build-debug-kernel.sh).  The guest
# shares the host's root read-only, so the guest's tools come from here too.
# Kernel packages are never installed: scripts/fetch-kernel.sh extracts them
# into a cache instead (dkms only builds against that cache, see
# scripts/dkms-build.sh; --no-install-recommends keeps it from pulling in
# linux-headers).  The guests see the host's root, so tcpdump and tshark
# (for the pcapng tests) serve them too.  python3-matplotlib is optional:
# make demo and make bench draw plots when it is there.
set -euo pipefail

pkgs=(
	# building the module (pahole encodes its BTF), libvjchan, the tools
	gcc make libc6-dev dwarves pkg-config
	# the QEMU guest and its initramfs
	qemu-system-x86 busybox-static kmod xz-utils cpio
	# what the tests run in the guest
	iproute2 nftables iptables ethtool python3 iputils-ping procps
	# programs of others that tests/run.sh runs under vjchan-run: dnsmasq-base
	# is the daemon without the dnsmasq package's service, iperf3's service
	# stays off (its debconf question defaults to no), dig is in
	# bind9-dnsutils
	socat iperf3 dnsmasq-base bind9-dnsutils
	# the DNS load generator of bench/dns.sh, run on the host side (the
	# servers themselves are only downloaded: scripts/fetch-servers.sh)
	dnsperf
	# static checks (checkpatch.pl itself comes from linux-source-6.12)
	sparse
	# XDP programs and the benchmark's receivers and chart
	clang llvm libbpf-dev libxdp-dev xdp-tools python3-matplotlib
	# the benchmark's TCP through vjnet and virtio_net (bench/nic.sh)
	iperf3
	# manual pages, make install/deb and DKMS, reading pcapng back
	groff-base man-db dpkg-dev dkms tcpdump tshark
)

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
