#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/dkms.sh: the guest's /lib/modules/$(uname -r) is
# the staging root's, where DKMS installed vjchan.ko; the root also holds
# user space from `make install`.
#
#   tests/dkms-guest.sh ROOT BUILD_ID [TREE_BUILD_ID]
#
#   DKMS_MODPROBE        modprobe vjchan (by name, from modules.dep)
#   DKMS_MODULE_FILE     modinfo resolves it to updates/dkms/vjchan.ko
#   DKMS_BUILD_ID        the loaded module's GNU build id (sysfs notes) is
#                        that of DKMS's build, not of kernel/vjchan.ko
#   DKMS_TOOLS           the installed vjchan-recv/-send/-stat work on it
#   DKMS_PKGCONFIG_APP   the program built with pkg-config against the
#                        installed libvjchan receives a flow
#   DKMS_UNLOAD          modprobe -r vjchan
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${VJ_IN_VM:-}" != 1 ]; then
	echo "dkms-guest.sh: refusing to run outside the test guest" >&2
	exit 2
fi
root=$1 want_id=$2 tree_id=${3:-}
kver=$(uname -r)
bin=$root/usr/bin
tmp=$(mktemp -d)
failed=0

ok() {
	echo "ok $1"
}
fail() {
	echo "FAIL $1: $2"
	failed=1
}

wait_file() {
	local i
	for i in $(seq $(($2 * 10))); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

if ! out=$(modprobe vjchan 2>&1); then
	fail DKMS_MODPROBE "$out"
	exit 1
fi
ok DKMS_MODPROBE

file=$(modinfo -n vjchan 2>&1)
if [ "$file" = "/lib/modules/$kver/updates/dkms/vjchan.ko" ]; then
	ok DKMS_MODULE_FILE
else
	fail DKMS_MODULE_FILE "modinfo -n vjchan: $file"
fi

# ELF note: namesz, descsz, type (4 bytes each), name padded to 4, desc.
note=/sys/module/vjchan/notes/.note.gnu.build-id
if [ ! -r "$note" ]; then
	fail DKMS_BUILD_ID "no $note"
else
	read -ra b <<<"$(od -An -tx1 -v "$note" | tr '\n' ' ')"
	namesz=$((16#${b[0]})) descsz=$((16#${b[4]}))
	off=$((12 + (namesz + 3) / 4 * 4))
	id=$(IFS=; echo "${b[*]:off:descsz}")
	if [ -z "$want_id" ] || [ "$id" != "$want_id" ]; then
		fail DKMS_BUILD_ID "loaded $id, DKMS built ${want_id:-?}"
	elif [ -n "$tree_id" ] && [ "$tree_id" = "$want_id" ]; then
		fail DKMS_BUILD_ID "kernel/vjchan.ko has the same build id: cannot tell them apart"
	else
		ok DKMS_BUILD_ID
	fi
fi

ip link set lo up
why=
"$bin/vjchan-recv" --ready-file "$tmp/ready" -v -q -c 50 -t 20 \
	udp4 dport 9100 dev lo >"$tmp/recv.out" 2>&1 &
rpid=$!
if ! wait_file "$tmp/ready" 10; then
	why="vjchan-recv not ready: $(cat "$tmp/recv.out")"
	kill "$rpid" 2>/dev/null
else
	stat=$("$bin/vjchan-stat" -c dport 9100 2>&1)
	grep -q '^ *[0-9]\+ \+ipv4 \+17 .* 9100 ' <<<"$stat" ||
		why+="vjchan-stat does not show the channel: $stat; "
	"$bin/vjchan-send" -c 50 -s 100 127.0.0.1 9100 >"$tmp/send.out" 2>&1 ||
		why+="vjchan-send: $(cat "$tmp/send.out"); "
	wait "$rpid" || why+="vjchan-recv: $(tr '\n' ' ' <"$tmp/recv.out"); "
	grep -qx 'received 50' "$tmp/recv.out" || why+="not all 50 received; "
fi
if [ -n "$why" ]; then
	fail DKMS_TOOLS "$why"
else
	ok DKMS_TOOLS
fi

app=out/dkms/app/app
LD_LIBRARY_PATH=$root/usr/lib "$app" 9101 20 >"$tmp/app.out" 2>&1 &
apid=$!
for _ in $(seq 100); do
	grep -q '^app: bound' "$tmp/app.out" && break
	sleep 0.1
done
"$bin/vjchan-send" -c 20 127.0.0.1 9101 >/dev/null 2>&1
if wait "$apid" && grep -qx 'app ok received 20' "$tmp/app.out"; then
	ok DKMS_PKGCONFIG_APP
else
	fail DKMS_PKGCONFIG_APP "$(tr '\n' ' ' <"$tmp/app.out")"
fi

for _ in $(seq 30); do
	modprobe -r vjchan 2>/dev/null && break
	sleep 0.2
done
if [ -d /sys/module/vjchan ]; then
	fail DKMS_UNLOAD "$(modprobe -r vjchan 2>&1)"
else
	ok DKMS_UNLOAD
fi
rm -rf "$tmp"
exit "$failed"
