#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make check`, before the guest: `make install` into a
# staging root, as a distribution package would, then use only what was
# installed.  Loads nothing into any kernel.  One line per case:
# "ok NAME" or "FAIL NAME: why"; exits 1 if any case failed.
#
#   INSTALL_FILES        every file in place, nothing else
#   INSTALL_SONAME       libvjchan.so.0, the dev symlink chain
#   INSTALL_SYMBOLS      only vj_* exported, each with a VJCHAN_* version
#   INSTALL_PKGCONFIG    pkg-config gives the staged paths and the version
#   INSTALL_APP_SHARED   tests/pkgconfig_app, built outside the tree with
#                        pkg-config only, runs against the installed .so
#   INSTALL_APP_STATIC   the same, linked with pkg-config --static
#   INSTALL_VERSION_NODE the loader refuses that program with an older
#                        library whose symbols lack the VJCHAN_0.1 node
#   INSTALL_TOOLS        the installed tools run
#   INSTALL_MANPAGES     a page per tool, each option of --help in it,
#                        no formatter warnings
#   INSTALL_PREFIX       the default PREFIX is /usr/local
#   INSTALL_UNINSTALL    make uninstall leaves nothing behind
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

work=$(mktemp -d /tmp/vj-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
dest=$work/root
failed=0

ok() {
	echo "ok $1"
}

fail() {
	echo "FAIL $1: $2"
	failed=1
}

# The files make install must create under PREFIX=/usr.
version=$(sed -n 's/^VERSION[[:space:]]*:= *//p' lib/Makefile)
expected="usr/bin/vjchan-ctl
usr/bin/vjchan-recv
usr/bin/vjchan-send
usr/bin/vjchan-stat
usr/bin/vjchan-xdp
usr/include/linux/vjchan.h
usr/include/vjchan.h
usr/lib/libvjchan.a
usr/lib/libvjchan.so
usr/lib/libvjchan.so.0
usr/lib/libvjchan.so.$version
usr/lib/pkgconfig/libvjchan.pc
usr/share/man/man1/vjchan-recv.1
usr/share/man/man1/vjchan-send.1
usr/share/man/man3/libvjchan.3
usr/share/man/man7/vjchan.7
usr/share/man/man8/vjchan-ctl.8
usr/share/man/man8/vjchan-stat.8
usr/share/man/man8/vjchan-xdp.8"

if ! out=$(make -s install DESTDIR="$dest" PREFIX=/usr 2>&1); then
	fail INSTALL_FILES "make install: $(tail -n 3 <<<"$out" | tr '\n' '|')"
	exit 1
fi
got=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
if [ "$got" = "$(LC_ALL=C sort <<<"$expected")" ]; then
	ok INSTALL_FILES
else
	fail INSTALL_FILES "$(diff <(LC_ALL=C sort <<<"$expected") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
fi

lib=$dest/usr/lib
soname=$(readelf -d "$lib/libvjchan.so.$version" 2>/dev/null |
	 sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != libvjchan.so.0 ]; then
	fail INSTALL_SONAME "SONAME is '$soname'"
elif [ "$(readlink "$lib/libvjchan.so.0")" != "libvjchan.so.$version" ] ||
     [ "$(readlink "$lib/libvjchan.so")" != libvjchan.so.0 ]; then
	fail INSTALL_SONAME "links: libvjchan.so -> $(readlink "$lib/libvjchan.so"), libvjchan.so.0 -> $(readlink "$lib/libvjchan.so.0")"
else
	ok INSTALL_SONAME
fi

# Defined dynamic symbols: NAME@@VERSION (or NAME@VERSION).
syms=$(readelf -W --dyn-syms "$lib/libvjchan.so.$version" |
       awk '$7 != "UND" && $5 == "GLOBAL" { print $8 }')
bad=$(grep -v -E '^vj_[a-z0-9_]+@@?VJCHAN_[0-9.]+$|^VJCHAN_[0-9.]+(@@VJCHAN_[0-9.]+)?$' <<<"$syms" || true)
nvj=$(grep -c -E '^vj_[a-z0-9_]+@@VJCHAN_' <<<"$syms")
if [ -n "$bad" ]; then
	fail INSTALL_SYMBOLS "unexpected exports: $(echo $bad)"
elif [ "$nvj" -lt 10 ]; then
	fail INSTALL_SYMBOLS "only $nvj versioned vj_* symbols"
else
	ok INSTALL_SYMBOLS
fi

export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$lib/pkgconfig
flags=$(echo $(pkg-config --cflags --libs libvjchan 2>&1))
pcver=$(pkg-config --modversion libvjchan 2>&1)
if [ "$flags" != "-I$dest/usr/include -L$lib -lvjchan" ]; then
	fail INSTALL_PKGCONFIG "flags: $flags"
elif [ "$pcver" != "$version" ]; then
	fail INSTALL_PKGCONFIG "version $pcver, library $version"
else
	ok INSTALL_PKGCONFIG
fi

# Outside the tree: only the program's source and pkg-config.
mkdir -p "$work/app"
cp tests/pkgconfig_app.c "$work/app/app.c"
cd "$work/app"
if ! out=$(cc -Wall -Werror -o app app.c $(pkg-config --cflags --libs libvjchan) 2>&1); then
	fail INSTALL_APP_SHARED "build: $out"
elif ! run=$(LD_LIBRARY_PATH=$lib ./app 2>&1); then
	fail INSTALL_APP_SHARED "run: $run"
elif deps=$(LD_LIBRARY_PATH=$lib ldd ./app) &&
     ! grep -q "libvjchan.so.0 => $lib/libvjchan.so.0" <<<"$deps"; then
	fail INSTALL_APP_SHARED "not linked to the installed library: $(grep vjchan <<<"$deps")"
elif ! grep -q 'Name: VJCHAN_0.1' <<<"$(readelf -V app)"; then
	fail INSTALL_APP_SHARED "no VJCHAN_0.1 version needed by the program"
else
	ok INSTALL_APP_SHARED
fi

if ! out=$(cc -Wall -Werror -o app-static app.c $(pkg-config --static --cflags libvjchan) \
		-Wl,-Bstatic $(pkg-config --static --libs libvjchan) -Wl,-Bdynamic 2>&1); then
	fail INSTALL_APP_STATIC "build: $out"
elif grep -q vjchan <<<"$(ldd ./app-static)"; then
	fail INSTALL_APP_STATIC "still needs libvjchan.so"
elif ! run=$(./app-static 2>&1); then
	fail INSTALL_APP_STATIC "run: $run"
else
	ok INSTALL_APP_STATIC
fi

# The same library as an older release would have it: same soname, its
# symbols under a version node before VJCHAN_0.1.
mkdir -p "$work/older"
printf 'VJCHAN_0.0 {\n\tglobal: vj_*;\n\tlocal: *;\n};\n' >"$work/older/map"
if ! out=$(cc -shared -fPIC -I"$top/include/uapi" -I"$top/lib" \
		-Wl,-soname,libvjchan.so.0 -Wl,--version-script="$work/older/map" \
		-o "$work/older/libvjchan.so.0" "$top"/lib/*.c 2>&1); then
	fail INSTALL_VERSION_NODE "build: $out"
elif run=$(LD_LIBRARY_PATH=$work/older ./app 2>&1); then
	fail INSTALL_VERSION_NODE "ran against a library without VJCHAN_0.1: $run"
elif ! grep -q "version \`VJCHAN_0.1' not found" <<<"$run"; then
	fail INSTALL_VERSION_NODE "unexpected failure: $run"
else
	ok INSTALL_VERSION_NODE
fi
cd "$top"

why=
for t in vjchan-recv vjchan-send vjchan-stat; do
	"$dest/usr/bin/$t" --help >/dev/null 2>&1 || why+="$t --help failed; "
done
mkdir -p "$work/proc"
printf 'inode family proto saddr sport daddr dport ifindex rx_packets\n7 ipv4 17 * * * 9000 * 3\n' \
	>"$work/proc/vjchan"
out=$("$dest/usr/bin/vjchan-stat" -c -j -d "$work/proc" 2>&1)
python3 -c 'import json, sys; c = json.loads(sys.argv[1])["channels"]; assert c[0]["dport"] == 9000 and c[0]["sport"] == "*"' "$out" 2>/dev/null ||
	why+="vjchan-stat -j: $out; "
"$dest/usr/bin/vjchan-recv" udp4 dport 1 foo 2>/dev/null
[ $? -eq 2 ] || why+="vjchan-recv with a bad flow spec did not exit 2; "
if [ -n "$why" ]; then
	fail INSTALL_TOOLS "$why"
else
	ok INSTALL_TOOLS
fi

# Each tool's page names every long option of its --help, and formats
# without warnings (man --warnings: groff's -ww).
why=
declare -A page=([vjchan-recv]=man1/vjchan-recv.1 [vjchan-send]=man1/vjchan-send.1
		 [vjchan-stat]=man8/vjchan-stat.8 [vjchan-xdp]=man8/vjchan-xdp.8)
for t in "${!page[@]}"; do
	p=$dest/usr/share/man/${page[$t]}
	for o in $("$dest/usr/bin/$t" --help | grep -o -E -- '--[a-z][a-z-]+' | sort -u); do
		grep -q -F -- "${o//-/\\-}" "$p" || why+="$t: $o not in ${page[$t]}; "
	done
done
for p in "$dest"/usr/share/man/man*/*; do
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
	[ -z "$w" ] || why+="${p##*/}: $(head -n 2 <<<"$w" | tr '\n' ' '); "
	grep -q '^NAME' <<<"$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$p" 2>/dev/null)" ||
		why+="${p##*/} does not format; "
done
if [ -n "$why" ]; then
	fail INSTALL_MANPAGES "$why"
else
	ok INSTALL_MANPAGES
fi

dest2=$work/root2
if ! out=$(make -s install DESTDIR="$dest2" 2>&1); then
	fail INSTALL_PREFIX "make install: $(tail -n 3 <<<"$out" | tr '\n' '|')"
elif [ ! -x "$dest2/usr/local/bin/vjchan-recv" ] ||
     ! grep -qx 'prefix=/usr/local' "$dest2/usr/local/lib/pkgconfig/libvjchan.pc"; then
	fail INSTALL_PREFIX "not under /usr/local: $(cd "$dest2" && find . -type f | head -n 3 | tr '\n' ' ')"
else
	ok INSTALL_PREFIX
fi

if ! out=$(make -s uninstall DESTDIR="$dest" PREFIX=/usr 2>&1); then
	fail INSTALL_UNINSTALL "make uninstall: $(tail -n 3 <<<"$out" | tr '\n' '|')"
elif left=$(cd "$dest" && find . \( -type f -o -type l \)) && [ -n "$left" ]; then
	fail INSTALL_UNINSTALL "left behind: $(echo $left)"
else
	ok INSTALL_UNINSTALL
fi

exit "$failed"
