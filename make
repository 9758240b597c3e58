#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ./make TARGET...: make, on a machine that may not have make yet.
#
# A bare Debian 12 has git but no make.  This installs what the project
# needs (scripts/install-deps.sh, starting with make and bash), then runs
# the real make with the same arguments: `./make check` is `make check`.
set -eu
cd "$(dirname "$0")"

if ! command -v make >/dev/null 2>&1 || ! command -v bash >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "./make: make is not installed, and installing it needs root" >&2
		exit 1
	fi
	echo "./make: installing make" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends make bash >/dev/null
fi
bash scripts/install-deps.sh
exec make "$@"
