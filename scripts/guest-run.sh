#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make vm-run CMD='...'`: load vjchan (and the vjtest driver),
# put the project's tools on PATH, run CMD, show the channel counters.
set -uo pipefail
cd "$(dirname "$0")/.."

insmod kernel/vjchan.ko || exit 1
insmod kernel/vjtest.ko || exit 1
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
export PATH="$PWD/tools:$PATH"
echo "vm-run: vjchan loaded; tools: vjchan-recv vjchan-send vjchan-stat"
bash -c "$1"
rc=$?
echo "vm-run: command exited $rc"
exit $rc
