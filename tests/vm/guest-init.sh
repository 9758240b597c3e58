#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a vjchan test guest, exec'd by the initramfs on the host's root
# (see scripts/vm.sh).  Makes sure the usual pseudo filesystems, lo and the
# test NICs are there, runs the command that vm.sh left in the output
# share, stores its exit status, output and dmesg there, and powers off.
#
# Output share (/mnt/vjout) protocol:
#   in:  .vm/cmd   bash script text to run
#        .vm/cwd   directory to run it in
#   out: uname     guest `uname -r`
#        output    everything the command printed (stdout + stderr)
#        rc        its exit status
#        dmesg     the guest kernel log after the command
#
# Each process start costs 0.1 s or more under TCG, so this sticks to
# builtins where it can; the initramfs normally did the set-up already.
# No `set -e`: if PID 1 exits the kernel panics, so failures are reported
# and the run carries on to the power-off.
set -uo pipefail

out=/mnt/vjout
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 SHELL=/bin/bash

say() {
	echo "vj-guest: $*"
}

power_off() {
	sync
	echo 1 >/proc/sys/kernel/sysrq
	echo o >/proc/sysrq-trigger
	# sysrq-o works from a workqueue; give it a moment, then insist.  The
	# wait runs nothing from disk: the power-off takes the 9p root away
	# while it proceeds (an exec then fails with EIO, and PID 1 exiting
	# panics).  read's timeout on a pipe we also hold open for writing
	# is a sleep in bash itself.
	read -rt 60 <> <(:)
	/bin/busybox poweroff -f
	# Last resort: PID 1 exiting panics; panic=-1 and -no-reboot end QEMU.
	exit 1
}

exec </dev/null >/dev/console 2>&1

declare -A mounted=()
scan_mounts() {
	local -a lines
	local l f
	mapfile -t lines </proc/self/mounts 2>/dev/null || return 0
	for l in "${lines[@]}"; do
		f=${l#* }
		mounted[${f%% *}]=1
	done
}

mnt() {	# mnt TYPE DIR [OPTS]: mount unless DIR already is a mount point
	[ -n "${mounted[$2]-}" ] && return 0
	mkdir -p "$2" 2>/dev/null
	mount -t "$1" ${3:+-o "$3"} "$1" "$2" || say "warning: cannot mount $1 on $2"
}

[ -e /proc/self ] || mount -t proc proc /proc
scan_mounts
mnt sysfs /sys
mnt devtmpfs /dev
mnt devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs /dev/shm mode=1777
mnt tmpfs /run mode=755
mnt tmpfs /tmp mode=1777
mnt debugfs /sys/kernel/debug
mnt tracefs /sys/kernel/tracing
mnt cgroup2 /sys/fs/cgroup
mnt bpf /sys/fs/bpf mode=700
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
echo 1 >/proc/sys/kernel/sysrq

read -r kver </proc/sys/kernel/osrelease
say "kernel $kver"
echo "$kver" >"$out/uname"

echo vjguest >/proc/sys/kernel/hostname
read -r lo_flags </sys/class/net/lo/flags
(( lo_flags & 1 )) || ip link set lo up
[ -d /run/vj/bin ] && PATH=$PATH:/run/vj/bin

# vm.sh gives the NICs fixed MACs; PCI probe order makes them eth0, eth1.
if [ ! -e /sys/class/net/eth0 ] && grep -qsx 0x1af4 /sys/bus/pci/devices/*/vendor; then
	modprobe virtio_net || say "warning: modprobe virtio_net failed"
fi
for i in /sys/class/net/eth*; do
	[ -e "$i/address" ] || continue
	read -r mac <"$i/address"
	case $mac in
	52:54:00:12:34:01) [ "${i##*/}" = eth0 ] || say "warning: ${i##*/} is not eth0" ;;
	52:54:00:12:34:02) [ "${i##*/}" = eth1 ] || say "warning: ${i##*/} is not eth1" ;;
	esac
done

IFS= read -r -d '' cmd <"$out/.vm/cmd"
[ -n "${cmd-}" ] || { say "no command in $out/.vm/cmd"; power_off; }
cwd=/
[ -r "$out/.vm/cwd" ] && IFS= read -r cwd <"$out/.vm/cwd"
cd "$cwd" || say "warning: cannot cd to $cwd"
export VJ_IN_VM=1 VJ_OUT=$out VJ_KVER=$kver

say "start"
# Output goes through a process substitution rather than a pipe so that
# daemons the command leaves behind cannot keep us waiting for EOF.
exec 3> >(exec tee "$out/output")
teepid=$!
bash -c "$cmd" vm-cmd >&3 2>&3 3>&-
rc=$?
exec 3>&-
for ((i = 0; i < 50; i++)); do
	kill -0 "$teepid" 2>/dev/null || break
	sleep 0.1
done
echo "$rc" >"$out/rc"
say "exit $rc"
cd /
dmesg >"$out/dmesg"
power_off
