#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make check-dkms` (and of `make check`): the module as an
# administrator gets it.  Builds the vjchan-dkms package (make deb),
# unpacks it into a staging root that holds a copy of the guest kernel's
# /lib/modules, lets Debian's dkms build and install the module there
# against the fetched 6.12 headers (--kernelsourcedir, never the host's
# kernel), installs user space into the same root, and boots a guest whose
# /lib/modules is that root's: tests/dkms-guest.sh checks there that the
# module the guest loads is the one DKMS built.  Finally removes the
# module with dkms.  Nothing is installed into or loaded by the host
# kernel, and the host's /var/lib/dkms and /lib/modules are left as they
# were (checked).
#
# One line per case, "ok NAME" or "FAIL NAME: why"; exits 1 on failure.
#   DKMS_DEB             the package's fields, files and maintainer scripts
#   DKMS_ADD             dkms add from the unpacked /usr/src/vjchan-VERSION
#   DKMS_AUTOINSTALL     dkms autoinstall (what the kernel's postinst hook
#                        runs on a kernel update) builds, signs, installs
#   DKMS_DEPMOD          depmod of the staging root finds it in updates/dkms
#   DKMS_GUEST           the guest ran tests/dkms-guest.sh (its cases follow)
#   DKMS_REMOVE          dkms remove takes the module out again
#   DKMS_HOST_UNTOUCHED  the host's DKMS tree and module dirs unchanged
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

failed=0
ok() {
	echo "ok $1"
}
fail() {
	echo "FAIL $1: $2"
	failed=1
}

eval "$(scripts/fetch-kernel.sh)" || { fail DKMS_DEB "no kernel"; exit 1; }
kver=$VJ_KVER
# Under the repository: the guest hides /tmp and /root, not the repository.
stage=$top/out/dkms
root=$stage/root
rm -rf "$stage"
mkdir -p "$stage"

host_state() {
	ls -la --time-style=+%s /var/lib/dkms 2>&1
	ls -la --time-style=+%s /lib/modules 2>&1
	ls /lib/modules/*/updates 2>&1
}
before=$(host_state)

version=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' dkms.conf)
src=usr/src/vjchan-$version
why=
if ! deb=$(scripts/mkdeb.sh "$stage/deb" 2>&1); then
	why="make deb: $deb"
else
	[ "$(dpkg-deb -f "$deb" Package)" = vjchan-dkms ] || why+="Package; "
	[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || why+="Version; "
	[ "$(dpkg-deb -f "$deb" Architecture)" = all ] || why+="Architecture; "
	[[ $(dpkg-deb -f "$deb" Depends) == *dkms* ]] || why+="Depends; "
	files=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
	for f in dkms.conf kernel/Kbuild kernel/Makefile kernel/main.c \
		 include/uapi/linux/vjchan.h; do
		grep -qx "\./$src/$f" <<<"$files" || why+="no $f; "
	done
	grep -q '\.mod\.c$\|\.o$\|\.ko$' <<<"$files" && why+="build products packed; "
	mkdir -p "$stage/control"
	dpkg-deb -e "$deb" "$stage/control"
	for s in postinst prerm; do
		[ -x "$stage/control/$s" ] && sh -n "$stage/control/$s" ||
			why+="$s missing or broken; "
	done
	grep -q "common.postinst vjchan $version\|common.postinst \"\$NAME\" \"\$VERSION\"" \
		"$stage/control/postinst" || why+="postinst does not hand over to DKMS; "
	grep -q "^VERSION=$version$" "$stage/control/postinst" || why+="postinst version; "
fi
if [ -n "$why" ]; then
	fail DKMS_DEB "$why"
	exit 1
fi
ok DKMS_DEB

# The staging root: the package's files and the guest kernel's modules
# (hard links; the files depmod rewrites are copies).
dpkg-deb -x "$deb" "$root"
mkdir -p "$root/lib/modules" "$root/var/lib/dkms"
cp -al "$VJ_MODDIR" "$root/lib/modules/$kver" 2>/dev/null ||
	cp -a "$VJ_MODDIR" "$root/lib/modules/$kver"
for f in "$root/lib/modules/$kver"/modules.*; do
	cp --remove-destination "$VJ_MODDIR/${f##*/}" "$f"
done

# dkms with every tree in the staging root; it signs like on a Debian
# system with the kernel's kbuild installed, with a key of its own there.
dkms_() {
	sign_file=$VJ_KDIR/scripts/sign-file \
	mok_signing_key=$root/var/lib/dkms/mok.key \
	mok_certificate=$root/var/lib/dkms/mok.pub \
		dkms "$@" --dkmstree "$root/var/lib/dkms" \
			--sourcetree "$root/usr/src" --installtree "$root/lib/modules"
}
log=$stage/dkms.log

if ! dkms_ add -m vjchan -v "$version" >>"$log" 2>&1; then
	fail DKMS_ADD "dkms add: $(tail -n 3 "$log" | tr '\n' '|')"
	exit 1
fi
st=$(dkms_ status -m vjchan -v "$version" 2>&1)
if [[ $st != "vjchan/$version: added" ]]; then
	fail DKMS_ADD "status: $st"
	exit 1
fi
ok DKMS_ADD

ko=$root/lib/modules/$kver/updates/dkms/vjchan.ko
dkms_ autoinstall -k "$kver" --kernelsourcedir "$VJ_KDIR" --no-depmod >>"$log" 2>&1
st=$(dkms_ status -m vjchan -v "$version" -k "$kver" 2>&1)
if [[ $st != "vjchan/$version, $kver, x86_64: installed"* ]]; then
	fail DKMS_AUTOINSTALL "status '$st'; $(grep -i -m 3 'error' "$log" "$root"/var/lib/dkms/vjchan/"$version"/build/make.log 2>/dev/null | tr '\n' '|')"
	exit 1
elif [ ! -f "$ko" ]; then
	fail DKMS_AUTOINSTALL "no $ko"
	exit 1
elif [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$kver" ]; then
	fail DKMS_AUTOINSTALL "vermagic $(modinfo -F vermagic "$ko")"
	exit 1
elif [ "$(modinfo -F signer "$ko")" != "DKMS module signing key" ]; then
	fail DKMS_AUTOINSTALL "not signed by DKMS's key: '$(modinfo -F signer "$ko")'"
else
	ok DKMS_AUTOINSTALL
fi

depmod -b "$root" "$kver" >>"$log" 2>&1
found=$(modinfo -b "$root" -k "$kver" -n vjchan 2>&1)
if [ "$found" != "$ko" ]; then
	fail DKMS_DEPMOD "modinfo finds '$found'"
	exit 1
fi
ok DKMS_DEPMOD

buildid=$(readelf -n "$ko" | sed -n 's/^ *Build ID: *//p')
tree_id=
[ -f kernel/vjchan.ko ] && tree_id=$(readelf -n kernel/vjchan.ko | sed -n 's/^ *Build ID: *//p')

# User space from make install, and a program built against it with
# pkg-config only, for the guest.
make -s install DESTDIR="$root" PREFIX=/usr >>"$log" 2>&1 ||
	{ fail DKMS_GUEST "make install: $(tail -n 3 "$log" | tr '\n' '|')"; exit 1; }
mkdir -p "$stage/app"
PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/pkgconfig \
	cc -Wall -Werror -o "$stage/app/app" tests/pkgconfig_app.c \
	$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/pkgconfig \
	  pkg-config --cflags --libs libvjchan) >>"$log" 2>&1 ||
	{ fail DKMS_GUEST "building the pkg-config program failed"; exit 1; }

st=0
scripts/vm.sh --kernel "$VJ_VMLINUZ" --moddir "$root/lib/modules/$kver" \
	--timeout 300 --quiet-boot --out "$stage/vm" -- \
	bash tests/dkms-guest.sh "$root" "$buildid" "$tree_id" \
	>"$stage/vm.log" 2>&1 || st=$?
grep -E '^(ok|FAIL|skip) ' "$stage/vm/output" 2>/dev/null
grep -q '^FAIL ' "$stage/vm/output" 2>/dev/null && failed=1
if [ "$st" != 0 ]; then
	fail DKMS_GUEST "vm.sh exit status $st (log: ${stage#"$top"/}/vm.log)"
else
	ok DKMS_GUEST
fi

dkms_ remove -m vjchan -v "$version" --all --no-depmod >>"$log" 2>&1
st=$(dkms_ status -m vjchan 2>&1)
if [ -e "$ko" ] || [ -n "$st" ]; then
	fail DKMS_REMOVE "module still there (status '$st')"
else
	ok DKMS_REMOVE
fi

after=$(host_state)
if [ "$before" != "$after" ]; then
	fail DKMS_HOST_UNTOUCHED "$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -n 4 | tr '\n' '|')"
else
	ok DKMS_HOST_UNTOUCHED
fi
exit "$failed"
