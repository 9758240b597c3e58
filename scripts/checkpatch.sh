#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict over the module's sources.  The
# script comes from Debian's linux-source-6.12, extracted into the cache.
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${VJ_CACHE:-$HOME/.cache/vjchan}
cp_dir="$cache/checkpatch"
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-6.12*.tar.* 2>/dev/null | head -n 1 || true)
	if [ -z "$tarball" ]; then
		[ "$(id -u)" -eq 0 ] || { echo "checkpatch: need linux-source-6.12" >&2; exit 1; }
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends linux-source-6.12 >/dev/null
		tarball=$(ls /usr/src/linux-source-6.12*.tar.* | head -n 1)
	fi
	mkdir -p "$cp_dir"
	tar -xf "$tarball" -C "$cp_dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
"$cp_dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
	-f $(find kernel -name "*.[ch]" ! -name "*.mod.c" | sort) include/uapi/linux/vjchan.h
