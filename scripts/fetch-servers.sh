#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the real UDP servers that tests/servers.sh and bench/dns.sh run
# under vjchan-run (NSD, Knot DNS, Unbound, rsyslog) from Debian's archive,
# with whatever libraries of theirs this machine lacks, and extract them
# into out/servers/ (the guest sees the repository, not the cache).  They
# are never installed on the host: their packages would start the daemons
# on the host's port 53 and 514.  The guest copies out/servers/ over its
# own (throw-away) root before it starts one (tests/srvlib.sh).
#
# The .debs are kept in ${VJ_CACHE:-~/.cache/vjchan}/servers/; a re-run
# with out/servers/.complete present does nothing.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cache=${VJ_CACHE:-$HOME/.cache/vjchan}/servers
out=$top/out/servers
pkgs=(nsd knot unbound rsyslog)

[ -f "$out/.complete" ] && exit 0
mkdir -p "$cache/partial"
log=$cache/fetch.log

# apt-get resolves what is missing on this machine, as for an install,
# but only downloads it.  rsyslog alone: it replaces the system logger in
# apt's eyes, which must not change what the others resolve to.
fetch() {
	apt-get install -y -q --download-only --no-install-recommends \
		-o Dir::Cache::archives="$cache" "$@" >>"$log" 2>&1
}
if ! fetch "${pkgs[@]:0:3}" || ! fetch rsyslog; then
	apt-get update -q >>"$log" 2>&1 || true
	fetch "${pkgs[@]:0:3}" && fetch rsyslog || {
		echo "fetch-servers: apt-get download failed, see $log" >&2
		exit 1
	}
fi

rm -rf "$out"
mkdir -p "$out"
n=0
for deb in "$cache"/*.deb; do
	[ -e "$deb" ] || continue
	dpkg-deb -x "$deb" "$out"
	n=$((n + 1))
done
# Packages already installed here were not downloaded: their files are the
# host's, which the guest sees anyway.
echo "fetch-servers: $n packages extracted into out/servers" >&2
touch "$out/.complete"
