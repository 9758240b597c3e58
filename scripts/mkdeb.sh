#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build vjchan-dkms_VERSION_all.deb, the module's source for DKMS, from
# this tree (`make deb`):
#
#   scripts/mkdeb.sh [OUTDIR]        (default out/deb; prints the .deb's path)
#
# The package puts dkms.conf, kernel/ and include/uapi/ under
# /usr/src/vjchan-VERSION (VERSION: PACKAGE_VERSION of dkms.conf); its
# postinst hands them to DKMS with Debian's /usr/lib/dkms/common.postinst,
# which builds and installs vjchan.ko for the running and the newest
# kernel whose headers are installed; its prerm removes them from DKMS.
# Only dpkg-deb is needed: no debhelper, no build of the module here.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
out=${1:-$top/out/deb}
pkg=$top/packaging/deb

version=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
[[ $version =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] ||
	{ echo "mkdeb: no usable PACKAGE_VERSION in dkms.conf" >&2; exit 1; }

stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT
src=$stage/usr/src/vjchan-$version
doc=$stage/usr/share/doc/vjchan-dkms
install -d "$src/kernel" "$src/include/uapi/linux" "$doc" "$stage/DEBIAN"

install -m 644 "$top/dkms.conf" "$src/dkms.conf"
# Sources only (kernel/ and its subdirectories, such as vjnet/): kbuild
# leaves *.mod.c and objects next to them.
(cd "$top/kernel" && find . \( -name '*.[ch]' ! -name '*.mod.c' \) \
	-o -name Kbuild -o -name Makefile) | while read -r f; do
	install -D -m 644 "$top/kernel/$f" "$src/kernel/$f"
done
install -m 644 "$top/include/uapi/linux/vjchan.h" "$src/include/uapi/linux/"
install -m 644 "$pkg/copyright" "$doc/copyright"

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" "$pkg/control" \
	>"$stage/DEBIAN/control"
for s in postinst prerm; do
	sed "s/@VERSION@/$version/" "$pkg/$s" >"$stage/DEBIAN/$s"
	chmod 755 "$stage/DEBIAN/$s"
done
(cd "$stage" && find usr -type f | LC_ALL=C sort | xargs md5sum) \
	>"$stage/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/vjchan-dkms_${version}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
