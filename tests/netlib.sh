# SPDX-License-Identifier: GPL-2.0
#
# Shell helpers shared by the guest's network test scripts (net.sh,
# firewall.sh): verdict lines, waiting, background receivers, counters.
# Sourced, not run.  The caller sets $tmp (a scratch directory) and keeps
# the PIDs of background jobs in the array bgpids.

ok() {
	echo "ok $1"
}

fail() {
	local name=$1
	shift
	echo "FAIL $name: $*"
}

# wait_file FILE SECS: true once FILE exists.
wait_file() {
	local i
	for i in $(seq $(($2 * 10))); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# recv_start NAME ARGS...: vjchan-recv in the background; sets $rpid.
# Output goes to $tmp/NAME.out; returns once the channel is bound.
recv_start() {
	local name=$1
	shift
	rm -f "$tmp/$name.ready"
	vjchan-recv --ready-file "$tmp/$name.ready" "$@" >"$tmp/$name.out" 2>&1 &
	rpid=$!
	bgpids+=("$rpid")
	wait_file "$tmp/$name.ready" 10
}

# recv_wait PID: exit status of that vjchan-recv.
recv_wait() {
	wait "$1"
}

field() {	# field FILE KEY: the value of "KEY N" in a vjchan-recv summary
	sed -n "s/^$2 \([0-9]*\)$/\1/p" "$1" | tail -n 1
}

pool() {	# pool KEY: a counter of /proc/net/vjchan_pool
	sed -n "s/^$1 \([0-9-]*\)$/\1/p" /proc/net/vjchan_pool
}
