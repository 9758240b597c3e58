#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the vjchan debug kernel (KASAN, UBSAN, lockdep, kmemleak, debug
# objects, net refcount trackers) from Debian's linux-source-6.12 into a
# cache outside the repository:
#
#   ${VJ_CACHE:-~/.cache/vjchan}/debug-kernel/<key>/
#
# where <key> hashes the linux-source package version, the compiler, this
# recipe's version and scripts/debug-kernel.config.  Nothing is installed
# into, or loaded by, the host kernel.  Prints shell assignments, e.g.
#   eval "$(scripts/build-debug-kernel.sh)"
# sets VJ_KVER, VJ_KDIR (built tree for `make -C $VJ_KDIR M=...`),
# VJ_VMLINUZ (bzImage) and VJ_MODDIR (the guest's /lib/modules/$VJ_KVER,
# holding modules.builtin and depmod output: everything is built in).
# A second run with the same inputs only prints the assignments.
#
# usage: scripts/build-debug-kernel.sh [--force] [--prune]
#   --force   redo the config and (incremental) build even if complete
#   --prune   delete cached debug kernels with other keys afterwards
# VJ_JOBS (default 2) sets make -j; the build runs under nice -n 10.
# Progress goes to stderr, the full log to <key>/build.log.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
frag=$top/scripts/debug-kernel.config
tarball=/usr/src/linux-source-6.12.tar.xz
srcpkg=linux-source-6.12
# Bump when the steps below change in a way that alters the result.
recipe=2
jobs=${VJ_JOBS:-2}

force='' prune=''
for a in "$@"; do
	case $a in
	--force)	force=1 ;;
	--prune)	prune=1 ;;
	-h|--help)	sed -n '3,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 0 ;;
	*)		echo "usage: $0 [--force] [--prune]" >&2; exit 2 ;;
	esac
done

say() { echo "build-debug-kernel: $*" >&2; }
die() { say "error: $*"; exit 1; }

cache=${VJ_CACHE:-$HOME/.cache/vjchan}
base=$cache/debug-kernel
mkdir -p "$base"

apt_install() {	# apt_install PKG...: install what is missing
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y "${missing[@]}" >>"$base/apt.log" 2>&1 || {
		apt-get update >>"$base/apt.log" 2>&1
		apt-get install -y "${missing[@]}" >>"$base/apt.log" 2>&1
	} || die "apt-get install ${missing[*]} failed (see $base/apt.log)"
}

if [ ! -f "$base/.deps-ok" ] || [ ! -f "$tarball" ]; then
	apt_install "$srcpkg" build-essential bc bison flex libelf-dev \
		libssl-dev dwarves cpio kmod xz-utils
	if [ ! -f "$tarball" ]; then	# package installed, file deleted
		say "reinstalling $srcpkg"
		apt-get install -y --reinstall "$srcpkg" >>"$base/apt.log" 2>&1 ||
			die "apt-get install --reinstall $srcpkg failed (see $base/apt.log)"
	fi
	[ -f "$tarball" ] || die "$tarball missing after installing $srcpkg"
	touch "$base/.deps-ok"
fi

srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) ||
	srcver=$(stat -c '%s-%Y' "$tarball")
key=$( {
	echo "recipe $recipe"
	echo "$srcpkg $srcver"
	gcc --version | head -n 1
	cat "$frag"
} | sha256sum | cut -c1-16)
dir=$base/$key
src=$dir/linux
stamp=$dir/.complete

prune_others() {	# with --prune: drop other keys' trees (unless being built)
	local d
	[ -n "$prune" ] || return 0
	for d in "$base"/*/; do
		d=${d%/}
		[ "$d" = "$dir" ] && continue
		[ -d "$d/linux" ] || [ -f "$d/.complete" ] || continue
		if (exec 8>"$d/.lock" && flock -n 8); then
			say "pruning $d"
			rm -rf "$d"
		fi
	done
}

print_vars() {
	local kver
	kver=$(cat "$dir/kver")
	echo "VJ_KVER=$kver"
	echo "VJ_KDIR=$src"
	echo "VJ_VMLINUZ=$dir/bzImage"
	echo "VJ_MODDIR=$dir/root/lib/modules/$kver"
}

if [ -z "$force" ] && [ -f "$stamp" ]; then
	prune_others
	print_vars
	exit 0
fi

mkdir -p "$dir"
# One builder per key; a second caller waits and then finds the stamp.
exec 9>"$dir/.lock"
if ! flock -n 9; then
	say "another build of $key is running, waiting for it"
	flock 9
fi
if [ -z "$force" ] && [ -f "$stamp" ]; then
	prune_others
	print_vars
	exit 0
fi
rm -f "$stamp"

log=$dir/build.log
: >"$log"
t0=$(date +%s)
step() { say "[$(( $(date +%s) - t0 ))s] $*"; }
run() {	# run CMD...: append output to the log, show its tail on failure
	echo "+ $*" >>"$log"
	if ! "$@" >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "'$*' failed (full log: $log)"
	fi
}

step "building debug kernel $key ($srcpkg $srcver) in $dir"
if [ ! -f "$src/.extracted" ]; then
	step "extracting $tarball"
	rm -rf "$src" "$dir/extract.tmp"
	mkdir -p "$dir/extract.tmp"
	tar -xJf "$tarball" -C "$dir/extract.tmp"
	mv "$dir/extract.tmp/linux-source-6.12" "$src"
	rmdir "$dir/extract.tmp"
	touch "$src/.extracted"
fi
cp "$frag" "$dir/debug-kernel.config"

cd "$src"
mk() { run nice -n 10 make -j"$jobs" "$@"; }

step "configuring: allnoconfig + kvm_guest.config + debug-kernel.config"
# Seed 64BIT so that allnoconfig picks x86_64 defaults (FRAME_WARN, unwinder)
# rather than i386 ones that the later merge would not revisit.
echo CONFIG_64BIT=y >"$dir/allno.config"
mk KCONFIG_ALLCONFIG="$dir/allno.config" allnoconfig
run scripts/kconfig/merge_config.sh -m .config \
	kernel/configs/kvm_guest.config "$dir/debug-kernel.config"
mk olddefconfig

# merge_config.sh only warns about options that did not survive; insist.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" .config || {
			say "config: wanted '$line', got '$(grep -E "^(# )?${line%%=*}[= ]" .config || echo unset)'"
			bad=1
		} ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -qE "^$opt=" .config; then
			say "config: wanted $opt off, got '$(grep -E "^$opt=" .config)'"
			bad=1
		fi ;;
	esac
done <"$dir/debug-kernel.config"
[ "$bad" -eq 0 ] || die "the final .config lacks options of $frag (see above)"
if grep -q '=m$' .config; then
	say "note: modular options: $(grep '=m$' .config | tr '\n' ' ')"
fi

step "compiling (make -j$jobs bzImage modules; log: $log)"
mk bzImage modules
# Only valid once the build has synced auto.conf (CONFIG_LOCALVERSION).
kver=$(make -s kernelrelease)
case $kver in
*-vjdebug)	;;
*)		die "kernel release '$kver' lacks -vjdebug" ;;
esac

step "installing modules metadata"
rm -rf "$dir/root"
mk modules_install INSTALL_MOD_PATH="$dir/root" INSTALL_MOD_STRIP=1
moddir=$dir/root/lib/modules/$kver
[ -f "$moddir/modules.builtin" ] || die "modules_install left no $moddir/modules.builtin"
run depmod -b "$dir/root" "$kver"
cp arch/x86/boot/bzImage "$dir/bzImage"
echo "$kver" >"$dir/kver"
echo "$(( $(date +%s) - t0 ))" >"$dir/build-seconds"
touch "$stamp"
step "done: $kver, bzImage $(stat -c %s "$dir/bzImage") bytes"

prune_others
print_vars
