# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the guest-side network test scripts (tests/net.sh,
# tests/xdp.sh); sourced, not run.  The caller sets $tmp (a scratch
# directory) and $VJ_KO, keeps background pids in the array bgpids, and
# has tools/ and tests/ in PATH.

vjtest_setup() {
	ip link set vjtest0 up &&
	ip addr replace 198.51.100.1/24 dev vjtest0 &&
	ip -6 addr replace 2001:db8:100::1/64 dev vjtest0 nodad
}

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

setup_peer() {
	local e
	for e in eth0 eth1; do
		[ -e /sys/class/net/$e ] || { echo "no $e in the guest"; return 1; }
	done
	ip netns del peer 2>/dev/null
	ip netns add peer || return 1
	ip link set eth1 netns peer || return 1
	ip addr add 192.0.2.1/24 dev eth0 &&
	ip -6 addr add 2001:db8::1/64 dev eth0 nodad &&
	ip link set eth0 up &&
	ip -n peer link set lo up &&
	ip -n peer addr add 192.0.2.2/24 dev eth1 &&
	ip -n peer -6 addr add 2001:db8::2/64 dev eth1 nodad &&
	ip -n peer link set eth1 up || return 1
	# Carrier and the hub take a moment under TCG.
	local i
	for i in $(seq 50); do
		ping -c 1 -W 1 192.0.2.2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "192.0.2.2 does not answer ping"
	return 1
}

refcnt() {
	cat /sys/module/vjchan/refcnt 2>/dev/null
}

# rmmod_retry MOD: a released socket may drop its module reference only
# after an RCU grace period.
rmmod_retry() {
	local i
	for i in $(seq 30); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
