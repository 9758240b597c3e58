#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command in a throw-away QEMU guest running the Debian 6.12 kernel
# from scripts/fetch-kernel.sh, on a read-only view of this machine's own
# root filesystem (virtio-9p), so the guest has the host's bash, ip, nft,
# python3 and the repository's build products.  Nothing is ever loaded into
# the host kernel.
#
#   scripts/vm.sh [options] -- CMD...
#
# One CMD argument is bash script text ('uname -r; ip link'); several are
# run as one command with exactly those arguments.  It runs in the
# repository root (see --cwd) as root, with stdin from /dev/null.
#
# Options:
#   --smp N            vCPUs (default 2)
#   --tcg-threads single|multi
#                      how QEMU runs the vCPUs (default: $VJ_TCG_THREADS,
#                      else single): multi gives each vCPU a host thread
#                      of its own (the benchmarks need that), single runs
#                      them in turn on one thread.  Under multi (QEMU 7.2)
#                      a guest dies now and then of "Oops: int3" at kernel
#                      text another vCPU has just patched (static keys:
#                      netfilter hooks, XDP and cgroup-BPF programs,
#                      tracepoints, the first memory cgroup), as if it ran
#                      the text as it was while being patched, which x86's
#                      text_poke protocol rules out on hardware;
#                      scripts/text-patch-stress.sh shows it with no
#                      vjchan code loaded.  Under single it did not occur.
#   --mem MB           guest RAM (default 1024)
#   --timeout SECS     hard limit for the whole VM (default 900)
#   --out DIR          keep the output share in DIR (rc, output, dmesg,
#                      uname, console.log), and a copy of it in
#                      ~/.cache/vjchan/failed/ if the run fails; default:
#                      a temp dir, removed if the exit status is 0, else
#                      moved to ~/.cache/vjchan/failed/ ($VJ_CACHE/failed/)
#   --cwd DIR          directory to run CMD in (default: repository root)
#   --kernel PATH      bzImage to boot instead of the fetched one
#   --moddir PATH      its /lib/modules/<kver> (give both for another kernel)
#   --append ARGS      extra kernel command line
#   --netdev-extra ARGS  extra QEMU arguments (split on whitespace)
#   --quiet-boot       show only what CMD prints, not the boot log
#   --no-lock          do not wait for other vm.sh runs to finish
#
# Exit status: that of CMD, except 3 if the guest kernel logged a splat
# (WARNING, BUG, Oops, lockdep, KASAN, UBSAN, kmemleak, RCU stall, Call
# Trace, panic ...), 124 if the VM hit --timeout, 125 if the guest never
# reported a status (boot failure or crash), 2 for usage errors.
#
# A run whose exit status is not 0 (also 130 or 143 when vm.sh is
# interrupted or terminated) keeps its output share in
# ${VJ_CACHE:-~/.cache/vjchan}/failed/<UTC time>-<pid>/, with .vm/cmd
# holding the command, and vm.sh prints its path on stderr: the temp dir
# is moved there; with --out, DIR stays where it is (make demo, make bench
# and the DKMS check put it in the repository's out/) and a copy goes
# there.  Only the 20 newest of these directories are kept.
#
# Guest: eth0 (52:54:00:12:34:01), eth1 (52:54:00:12:34:02) and eth2
# (52:54:00:12:34:03, for vjnet) are virtio-net NICs on one QEMU-internal
# hub, with virtio_net already loaded and no addresses; there is no other
# network.  The root is the host's, made writable by a tmpfs overlay whose
# changes are discarded; /tmp, /var/tmp,
# /run, /root and /mnt are empty tmpfs; only /mnt/vjout ($VJ_OUT) reaches
# the host.  CMD sees VJ_IN_VM=1, VJ_OUT and VJ_KVER.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cache=${VJ_CACHE:-$HOME/.cache/vjchan}
qemu_bin=${VJ_QEMU:-qemu-system-x86_64}

usage() {
	sed -n '/^#   scripts\/vm.sh/,/^# Exit status/p' "${BASH_SOURCE[0]}" |
		sed 's/^# \{0,1\}//; /^Exit status/d' >&2
	exit "${1:-2}"
}

say() {
	echo "vm.sh: $*" >&2
}

die() {
	say "$*"
	exit 2
}

need_int() {
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer, not '$2'"
}

smp=2 tcg=${VJ_TCG_THREADS:-single} mem=1024 tmo=900 out='' cwd=$top kernel='' moddir='' append='' quiet=0 lock=1
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--smp|--tcg-threads|--mem|--timeout|--out|--cwd|--kernel|--moddir|--append|--netdev-extra)
		[ $# -ge 2 ] || die "$1 needs an argument"
		case $1 in
		--smp)		need_int "$1" "$2"; smp=$2 ;;
		--tcg-threads)	tcg=$2 ;;
		--mem)		need_int "$1" "$2"; mem=$2 ;;
		--timeout)	need_int "$1" "$2"; tmo=$2 ;;
		--out)		out=$2 ;;
		--cwd)		cwd=$2 ;;
		--kernel)	kernel=$2 ;;
		--moddir)	moddir=$2 ;;
		--append)	append+=" $2" ;;
		--netdev-extra)	read -ra words <<<"$2"; extra+=("${words[@]}") ;;
		esac
		shift 2 ;;
	--quiet-boot)	quiet=1; shift ;;
	--no-lock)	lock=0; shift ;;
	-h|--help)	usage 0 ;;
	--)		shift; break ;;
	*)		die "unknown option '$1' (commands go after --)" ;;
	esac
done
[ $# -gt 0 ] || usage
case $tcg in single|multi) ;; *) die "--tcg-threads takes single or multi, not '$tcg'" ;; esac
if [ $# -eq 1 ]; then
	cmd=$1
else
	cmd=$(printf '%q ' "$@")
fi

# $VJ_VMLINUZ/$VJ_MODDIR from an earlier `eval "$(scripts/fetch-kernel.sh)"`
# save its apt look-up.
kernel=${kernel:-${VJ_VMLINUZ:-}}
moddir=${moddir:-${VJ_MODDIR:-}}
if [ -z "$kernel" ] || [ -z "$moddir" ]; then
	eval "$("$top/scripts/fetch-kernel.sh")"
	kernel=${kernel:-$VJ_VMLINUZ}
	moddir=${moddir:-$VJ_MODDIR}
fi
[ -f "$kernel" ] || die "no kernel image $kernel"
[ -d "$moddir" ] || die "no module dir $moddir"
kernel=$(cd "$(dirname "$kernel")" && pwd -P)/$(basename "$kernel")
moddir=$(cd "$moddir" && pwd -P)
cwd=$(cd "$cwd" && pwd -P) || die "no directory $cwd"
guest_init=$top/tests/vm/guest-init.sh

# The guest hides these host dirs behind fresh tmpfs mounts; the repository
# is put back on top of them (vj.repo), other directories are not.
case $cwd/ in
$top/*) ;;
/tmp/*|/var/tmp/*|/run/*|/root/*|/mnt/*)
	die "$cwd is hidden in the guest (tmpfs over /tmp /var/tmp /run /root /mnt)" ;;
esac
# They travel on the kernel command line.
for p in "$guest_init" "$moddir" "$top"; do
	[[ $p =~ ^[[:graph:]]+$ ]] || die "path '$p' must not contain spaces"
done

mkdir -p "$cache"
initrd=$cache/initramfs-$(basename "$moddir")-$(printf '%s' "$moddir" |
	sha256sum | cut -c1-8).cpio.gz
"$top/scripts/mkinitramfs.sh" --moddir "$moddir" "$initrd"

# Two cores cannot host two TCG guests without stalls and bogus timeouts.
if [ "$lock" = 1 ]; then
	exec 9>"$cache/vm.lock"
	if ! flock -n 9; then
		say "waiting for another vm.sh run to finish"
		flock 9
	fi
fi

keep=0
if [ -n "$out" ]; then
	mkdir -p "$out"
	out=$(cd "$out" && pwd -P)
	keep=1
	rm -rf "$out/.vm" "$out"/{rc,output,dmesg,uname,console.log}
else
	out=$(mktemp -d "${TMPDIR:-/tmp}/vjvm.XXXXXX")
fi
state=$out/.vm
mkdir -p "$state"
printf '%s\n' "$cmd" >"$state/cmd"
printf '%s\n' "$cwd" >"$state/cwd"
console=$out/console.log

# keep_failed mv|cp: move (or copy) the output share to
# $cache/failed/<UTC time>-<pid>, say where, and delete all but the 20
# newest directories there.
# shellcheck disable=SC2317  # called from cleanup, the EXIT trap
keep_failed() {
	local how=$1 failed=$cache/failed dst d ok=
	local -a old
	dst=$failed/$(date -u +%Y%m%dT%H%M%SZ)-$$
	if mkdir -p "$failed"; then
		if [ "$how" = cp ]; then
			cp -a "$out" "$dst" && ok=1
		else
			mv "$out" "$dst" && ok=1
		fi
	fi
	if [ -z "$ok" ]; then
		say "cannot $how $out to $dst; it is left where it is"
		return 0
	fi
	say "console and dmesg of this failed run kept in $dst"
	mapfile -t old < <(find "$failed" -mindepth 1 -maxdepth 1 -type d \
		-printf '%f\n' | LC_ALL=C sort -r | tail -n +21)
	for d in "${old[@]}"; do
		[ "$failed/$d" = "$dst" ] || rm -rf "${failed:?}/$d"
	done
}

# shellcheck disable=SC2317  # the EXIT trap
cleanup() {
	local st=$? pid
	pid=$(cat "$state/qemu.pid" 2>/dev/null) || pid=
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	if [ "$st" != 0 ]; then
		if [ "$keep" = 1 ]; then keep_failed cp; else keep_failed mv; fi
	elif [ "$keep" = 1 ]; then
		return
	else
		rm -rf "$out"
	fi
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM HUP

# Loglevel 5 keeps the boot short but shows WARN splats (KERN_WARNING) as
# they happen.  Generous stall/lockup thresholds: TCG on a busy host is slow.
cmdline="console=ttyS0 loglevel=5 panic=-1 net.ifnames=0 mitigations=off edd=off"
cmdline+=" rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
cmdline+=" vj.init=$guest_init vj.moddir=$moddir vj.repo=$top$append"

# shellcheck disable=SC2054  # the commas are QEMU's option syntax
qemu=("$qemu_bin" -accel "tcg,thread=$tcg" -smp "$smp" -m "$mem"
	-nographic -no-reboot -nic none
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=vjout,path=${out//,/,,},security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=vjout,mount_tag=vjout
	# Three NICs on one internal hub; no option ROMs, the guest boots -kernel.
	-netdev hubport,id=n0,hubid=0
	-device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:01,romfile=
	-netdev hubport,id=n1,hubid=0
	-device virtio-net-pci,netdev=n1,mac=52:54:00:12:34:02,romfile=
	-netdev hubport,id=n2,hubid=0
	-device virtio-net-pci,netdev=n2,mac=52:54:00:12:34:03,romfile=
	-pidfile "$state/qemu.pid")
# qboot gets to the kernel quicker than SeaBIOS.
[ -f /usr/share/qemu/qboot.rom ] && qemu+=(-bios /usr/share/qemu/qboot.rom)
qemu+=("${extra[@]}")

# Console to the terminal: no CRs or escapes, markers turned into vm.sh
# lines, and with --quiet-boot nothing outside the command's run.
filter() {
	awk -v quiet="$quiet" '
	{ sub(/\r+$/, ""); gsub(/\033(\[[0-9;?]*[A-Za-z]|c)/, "") }
	/^qemu-system-x86_64: warning: hub 0 is not connected to host network$/ { next }
	/^vj-guest: kernel / {
		print "vm.sh: guest kernel " substr($0, 18) > "/dev/stderr"
		fflush("/dev/stderr"); next
	}
	/^vj-guest: start$/ { running = 1; next }
	/^vj-guest: exit [0-9]+$/ { running = 0; next }
	quiet && !running { next }
	{ print; fflush() }'
}

t0=$(date +%s%N)
{
	st=0
	timeout -k 10 "$tmo" "${qemu[@]}" </dev/null 2>&1 || st=$?
	echo "$st" >"$state/qemu.rc"
} | tee "$console" | filter &
# All of the pipeline: qemu.rc is written after the console has drained.
wait
t1=$(date +%s%N)
secs=$(( (t1 - t0) / 1000000000 )).$(( (t1 - t0) / 100000000 % 10 ))

qrc=$(cat "$state/qemu.rc" 2>/dev/null) || qrc=
hang=0
if [ "$qrc" = 124 ] || { [ "$qrc" = 137 ] && [ $(( (t1 - t0) / 1000000000 )) -ge "$tmo" ]; }; then
	hang=1
fi

# Splats: the dmesg copy is complete but only exists if the guest got that
# far; the console adds what a crashed or hung guest printed.  Only console
# lines with a printk timestamp count, so CMD's own output cannot trigger.
splat_re='^WARNING:|WARNING: CPU: [0-9]+ PID: [0-9]+|cut here|BUG:|^BUG |kernel BUG at'
splat_re+='|Oops|general protection fault|KASAN|UBSAN|possible circular locking'
splat_re+='|lockdep|DEBUG_LOCKS_WARN_ON|non-static key|locking correctness validator'
splat_re+='|kmemleak|RCU stall|rcu_[a-z]+ (self-)?detected stall|detected stalls on CPU'
splat_re+='|Call Trace:|Kernel panic|soft lockup|hard LOCKUP|blocked for more than [0-9]+ seconds'
benign_re='[Cc]ommand line|RCU lockdep checking is enabled|kmemleak: Kernel memory leak detector (initialized|disabled)'
benign_re+='|kmemleak: Automatic memory scanning thread (started|ended)'
splats=$( {
	[ -f "$out/dmesg" ] && cat "$out/dmesg"
	tr -d '\r' <"$console" | grep -a -E '^\[ *[0-9]+\.[0-9]+\]'
} | sed -E 's/^\[ *[0-9]+\.[0-9]+\]( ?\[ *[CT][0-9]+\])? ?//' |
	grep -a -E -e "$splat_re" | grep -a -v -E -e "$benign_re" |
	awk '!seen[$0]++' || true)
if [ -n "$splats" ]; then
	n=$(printf '%s\n' "$splats" | wc -l)
	printf '%s\n' "$splats" | head -n 40 | sed 's/^/vm.sh: kernel splat: /' >&2
	[ "$n" -le 40 ] || say "kernel splat: ... and $((n - 40)) more lines"
fi

rc=
if [ -f "$out/rc" ]; then
	rc=$(cat "$out/rc")
	[[ $rc =~ ^[0-9]+$ ]] || rc=
fi

if [ "$hang" = 1 ]; then
	say "timeout: guest killed after ${tmo}s"
	status=124
elif [ -n "$splats" ]; then
	status=3
elif [ -z "$rc" ]; then
	say "the guest reported no exit status (qemu status ${qrc:-?})"
	status=125
else
	status=$rc
fi
# --quiet-boot hid the boot log; show its end if the command never ran.
if [ -z "$rc" ] && [ "$quiet" = 1 ] && ! grep -q '^vj-guest: start' "$console"; then
	say "last console lines:"
	tail -n 30 "$console" | tr -d '\r' >&2
fi
say "guest status ${rc:-none}, exit $status, ${secs}s"
exit "$status"
