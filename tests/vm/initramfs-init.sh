#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the vjchan test initramfs (busybox sh, built by
# scripts/mkinitramfs.sh).  Loads the 9p stack, mounts the host's root
# (virtio-9p tag "hostroot") under a throw-away tmpfs overlay, adds scratch
# mounts, the guest kernel's modules and the writable output share (tag
# "vjout"), then switches into the host root and execs vj.init=.
#
# Process start-up is costly under TCG, and far more so for dynamically
# linked binaries read over 9p, so everything cheap to do with the static
# busybox in RAM is done here; tests/vm/guest-init.sh only fills gaps.
#
# Kernel command line: vj.init=PATH (required), vj.moddir=PATH (host path of
# /lib/modules/<guest kver>), vj.cache=none|loose (9p cache mode of the
# host root), vj.overlay=0 (plain read-only root, needs /lib/modules),
# vj.repo=PATH (host path of the repository, kept visible even where it lies
# below one of the scratch mounts, e.g. a checkout under /tmp).
PATH=/bin
export PATH

die() {
	echo "vj-initramfs: $*"
	# No usable root: stop the VM now instead of letting the host time out.
	echo 1 >/proc/sys/kernel/sysrq
	echo o >/proc/sysrq-trigger
	sleep 5
	poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The cpio may lack /dev/console; make sure stdio is the console.
exec </dev/console >/dev/console 2>&1

# cache=none measured faster than loose here: loose reads ahead a lot.
vjinit= moddir= repo= cache=none overlay=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	vj.init=*)	vjinit=${arg#vj.init=} ;;
	vj.moddir=*)	moddir=${arg#vj.moddir=} ;;
	vj.repo=*)	repo=${arg#vj.repo=} ;;
	vj.cache=*)	cache=${arg#vj.cache=} ;;
	vj.overlay=*)	overlay=${arg#vj.overlay=} ;;
	esac
done
[ -n "$vjinit" ] || die "no vj.init= on the kernel command line"

# Dependency order was fixed at build time; built-in ones are absent.
while read -r m; do
	insmod "/lib/modules/$m" || echo "vj-initramfs: warning: insmod $m failed"
done </lib/modules/load.order

p9="trans=virtio,version=9p2000.L,msize=512000"
mkdir -p /lower /upper /newroot
mount -t 9p -o "ro,$p9,cache=$cache" hostroot /lower ||
	die "cannot mount the host root (9p tag hostroot)"

# A tmpfs overlay makes the root writable (writes are discarded) so that
# e.g. /lib/modules/<kver> can be created even if the host lacks the dir.
mount -t tmpfs -o mode=755 vjupper /upper
mkdir -p /upper/data /upper/work
if [ "$overlay" = 0 ] || ! mount -t overlay \
		-o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work \
		vjroot /newroot; then
	[ "$overlay" = 0 ] || echo "vj-initramfs: overlay failed, using the read-only host root"
	mount --bind /lower /newroot
fi
r=/newroot

# The guest kernel's modules live in the host's cache, typically under
# /root, which gets a tmpfs below: bind them first.
kver=$(uname -r)
if [ -n "$moddir" ]; then
	[ -d "$r$moddir" ] || die "module dir $moddir not visible in the host root"
	if ! mkdir -p "$r/lib/modules/$kver" 2>/dev/null; then
		{ mount -t tmpfs -o mode=755 vjmods "$r/lib/modules" &&
			mkdir -p "$r/lib/modules/$kver"; } ||
			die "cannot create /lib/modules/$kver"
	fi
	mount --bind "$r$moddir" "$r/lib/modules/$kver"
	mount -o remount,bind,ro "$r/lib/modules/$kver" 2>/dev/null
fi

# The repository may lie below a scratch dir (a checkout in /tmp): hold it
# aside and put it back on top afterwards.
if [ -n "$repo" ]; then
	[ -d "$r$repo" ] || die "repository $repo not visible in the host root"
	mkdir -p /repohold
	mount --bind "$r$repo" /repohold
fi

# Private scratch space, hiding whatever the host keeps there.
for d in tmp var/tmp run root mnt; do
	[ -d "$r/$d" ] || continue
	case $d in
	tmp|var/tmp)	mode=1777 ;;
	*)		mode=755 ;;
	esac
	mount -t tmpfs -o "mode=$mode" "vj${d#var/}" "$r/$d"
done

if [ -n "$repo" ]; then
	mkdir -p "$r$repo" && mount --move /repohold "$r$repo" ||
		die "cannot mount the repository at $repo"
fi

mkdir -p "$r/mnt/vjout"
mount -t 9p -o "$p9,cache=none" vjout "$r/mnt/vjout" ||
	die "cannot mount the output share (9p tag vjout)"

for d in dev proc sys; do
	mount --move "/$d" "$r/$d"
done
mkdir -p "$r/dev/pts" "$r/dev/shm"
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts "$r/dev/pts"
mount -t tmpfs -o mode=1777 shm "$r/dev/shm"
ln -s /proc/self/fd "$r/dev/fd"
mount -t debugfs debugfs "$r/sys/kernel/debug"
mount -t tracefs tracefs "$r/sys/kernel/tracing"
mount -t cgroup2 cgroup2 "$r/sys/fs/cgroup"
mount -t bpf -o mode=700 bpf "$r/sys/fs/bpf"

# Networking tools the host may lack (a minimal host has no ping) fall
# back to busybox applets; guest-init appends this dir to PATH.
mkdir -p "$r/run/vj/bin"
for a in ping ping6 arping traceroute traceroute6 nc netstat ifconfig route brctl; do
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		[ -e "$r$d/$a" ] && continue 2
	done
	ln -s /bin/busybox "$r/run/vj/bin/$a"
done
ip link set lo up
echo vjguest >"$r/proc/sys/kernel/hostname"

[ -x "$r$vjinit" ] || echo "vj-initramfs: warning: $vjinit is not executable"
exec switch_root "$r" "$vjinit"
