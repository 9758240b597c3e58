#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Trust-boundary cases that are not C cases of vjchan_test: libvjchan's
# vj_wait() ordering and ring memory in a memory cgroup.  Run by
# run-guest.sh after the C suite, with vjchan loaded.  Prints one line per
# case: "ok NAME", "FAIL NAME: reason" or "skip NAME: reason".
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
export PATH="$top/tools:$top/tests:$PATH"

# LIB_WAIT_DEAD_ORDER: vj_wait() reports queued descriptors before ENODEV
# (the program prints its own line).
if [ -x tests/lib_wait ]; then
	timeout -k 5 30 tests/lib_wait || true
else
	echo "FAIL LIB_WAIT_DEAD_ORDER: tests/lib_wait not built"
fi
