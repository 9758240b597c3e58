#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make check`: load vjchan and vjtest, run the C suite
# (tests/vjchan_test), the network tests (tests/net.sh), the fuzzer
# (tests/fuzz) and the stress test (tests/stress), audit the kernel log,
# unload the modules and print the closing line
#   N passed, N failed[, N skipped]
# Every case prints one line: "ok NAME", "FAIL NAME: reason" or
# "skip NAME: reason".  Exits 1 if any case failed.
#
# Runs only inside the QEMU guest (scripts/vm.sh): it loads modules.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

if [ "${VJ_IN_VM:-}" != 1 ] && [ "${1:-}" != --i-am-a-guest ]; then
	echo "run-guest.sh: refusing to run outside the test guest" >&2
	exit 2
fi

log=$(mktemp /tmp/vj-results.XXXXXX)
export PATH="$top/tools:$top/tests:$PATH"
# Where the modules under test are (make check-debug builds its own).
export VJ_KO=${VJ_KO:-kernel}

emit() {
	echo "$*" | tee -a "$log"
}

summary() {
	local p f s
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	s=$(grep -c '^skip ' "$log")
	if [ "$s" -gt 0 ]; then
		echo "$p passed, $f failed, $s skipped"
	else
		echo "$p passed, $f failed"
	fi
	[ "$f" -eq 0 ]
}

# Splat patterns; "BUG" and "WARNING" only as in real reports (not DEBUG).
splat_re='(^|[^A-Z_])(WARNING|BUG)(:| at )|Oops|KASAN|UBSAN|lockdep|circular locking|Call Trace|kmemleak: [0-9]+ new suspected'

# Prints the kernel log written after our start marker.
log_since_start() {
	dmesg | sed -n '/vjchan-tests: start/,$p'
}

# Splats, plus errors the modules themselves log (e.g. unreturned buffers).
# A test that provokes an error on purpose brackets it with
# "vjchan-tests: expect errors: NAME" and "vjchan-tests: expect end"
# (expect_errors/expect_end in netlib.sh); error lines inside that window
# are the test's to check, not a splat.  WARN/BUG/KASAN count everywhere.
splats() {
	log_since_start | grep -E "$splat_re"
	dmesg -x 2>/dev/null | sed -n '/vjchan-tests: start/,$p' |
		awk '/vjchan-tests: expect errors:/ { quiet = 1; next }
		     /vjchan-tests: expect end/ { quiet = 0; next }
		     !quiet' |
		grep -E '^kern *:(emerg|alert|crit|err) *: .*vj' | sed 's/^kern *: *//'
}

vjtest_setup() {
	ip link set vjtest0 up &&
	ip addr replace 198.51.100.1/24 dev vjtest0 &&
	ip -6 addr replace 2001:db8:100::1/64 dev vjtest0 nodad
}

echo "kernel: $(uname -r)"
echo "<6>vjchan-tests: start" >/dev/kmsg
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
kml=/sys/kernel/debug/kmemleak
[ -w "$kml" ] && echo clear >"$kml"

# MODULE_LOAD: both modules load; nothing else can run otherwise.
if [ ! -f "$VJ_KO/vjchan.ko" ] || [ ! -f "$VJ_KO/vjtest.ko" ]; then
	emit "FAIL MODULE_LOAD: $VJ_KO/vjchan.ko or $VJ_KO/vjtest.ko not built"
	summary
	exit 1
fi
if ! out=$(insmod "$VJ_KO/vjchan.ko" 2>&1 && insmod "$VJ_KO/vjtest.ko" 2>&1); then
	emit "FAIL MODULE_LOAD: insmod: $out"
	summary
	exit 1
fi
if ! vjtest_setup; then
	emit "FAIL MODULE_LOAD: cannot configure vjtest0"
	summary
	exit 1
fi
emit "ok MODULE_LOAD"

# The C suite: one line per case; check that every case reported.
if [ ! -x tests/vjchan_test ]; then
	emit "FAIL SUITE_COMPLETE: tests/vjchan_test not built"
else
	ncases=$(tests/vjchan_test -l | wc -l)
	tests/vjchan_test 2>&1 | tee -a "$log"
	nlines=$(grep -cE '^(ok|FAIL|skip) ' "$log")
	if [ "$nlines" -ge $((ncases + 1)) ]; then
		emit "ok SUITE_COMPLETE"
	else
		emit "FAIL SUITE_COMPLETE: $((nlines - 1)) of $ncases cases reported"
	fi
fi

# libvjchan ordering and memory cgroup charging.
bash tests/trust.sh 2>&1 | tee -a "$log"

# Network-level tests (two NICs, veth, module unload while busy).
bash tests/net.sh 2>&1 | tee -a "$log"
# vjchan-run: socat, iperf3, dnsmasq and tests/vjrun_check on UDP channels.
bash tests/vjrun.sh 2>&1 | tee -a "$log"
# Real servers under vjchan-run: NSD, Knot, Unbound, rsyslog (peer of vjrun.sh).
bash tests/servers.sh 2>&1 | tee -a "$log"
# The XDP path (veth, virtio_net, a second program, jumbo frames, unload).
# Before vjnet.sh, which loads vjnet (holding vjchan) and may rename NICs.
bash tests/xdp.sh 2>&1 | tee -a "$log"
# Firewall modes on real nftables/iptables rulesets.
bash tests/firewall.sh 2>&1 | tee -a "$log"

# vjnet: the virtio-net driver on the driver API (third NIC, eth2).
bash tests/vjnet.sh 2>&1 | tee -a "$log"

# vjchan-recv -w read back with tcpdump and tshark; vjchan-stat.
bash tests/pcap.sh 2>&1 | tee -a "$log"
bash tests/stat.sh 2>&1 | tee -a "$log"

# self_verdict NAME SECS CMD...: a program that prints its own verdict line
# ("ok NAME" or "FAIL NAME: ..."); everything else it prints is context,
# shown as it comes (a guest that dies mid-run still shows the fuzzer's
# seed).  It bounds itself with an alarm; timeout is the backstop for a
# process stuck in the kernel.  No verdict, or ok with a bad exit status,
# is a failure.
self_verdict() {
	local name=$1 secs=$2 out st verdict
	shift 2
	if [ ! -x "$1" ]; then
		emit "FAIL $name: $1 not built"
		return
	fi
	vjtest_setup
	out=$(mktemp /tmp/vj-self.XXXXXX)
	timeout -k 10 "$secs" "$@" 2>&1 | tee "$out" |
		grep --line-buffered -v -E "^(ok|FAIL|skip) $name([: ]|\$)"
	st=${PIPESTATUS[0]}
	verdict=$(grep -E "^(ok|FAIL) $name([: ]|\$)" "$out" | tail -n 1)
	rm -f "$out"
	if [[ $verdict == "FAIL $name"* ]] || { [ -n "$verdict" ] && [ "$st" -eq 0 ]; }; then
		emit "$verdict"
	elif [ "$st" -eq 124 ] || [ "$st" -eq 137 ]; then
		emit "FAIL $name: killed after ${secs}s"
	else
		emit "FAIL $name: exit status $st${verdict:+ after \"$verdict\"}"
	fi
}

# FUZZ: random and boundary syscall sequences, every result checked; the
# seed is printed first (replay with tests/fuzz -s SEED).  STRESS: 64
# channels under load from both CPUs and the driver API, consumers coming
# and going, exact accounting.
self_verdict FUZZ 90 tests/fuzz -t 20
self_verdict STRESS 180 tests/stress -t 30

# KERNEL_LOG_CLEAN: no splat since we started.
if s=$(splats); [ -n "$s" ]; then
	emit "FAIL KERNEL_LOG_CLEAN: $(echo "$s" | head -n 3 | tr '\n' '|')"
	log_since_start | grep -E -B 5 -A 30 "$splat_re" | head -n 200 >&2
else
	emit "ok KERNEL_LOG_CLEAN"
fi

# MODULE_UNLOAD_CLEAN: the modules unload (vjnet first: it uses vjchan) (a freed socket may take an
# RCU grace period to drop its module reference) and unloading adds
# nothing to the log that KERNEL_LOG_CLEAN would flag.
unload() {
	local m i
	for m in vjnet vjtest vjchan; do
		[ -d /sys/module/$m ] || continue
		for i in $(seq 30); do
			rmmod $m 2>/dev/null && break
			sleep 0.2
		done
		[ -d /sys/module/$m ] && { echo "rmmod $m: $(rmmod $m 2>&1)"; return 1; }
	done
	return 0
}
nsplat=$(splats | wc -l)
if ! why=$(unload); then
	emit "FAIL MODULE_UNLOAD_CLEAN: $why"
elif s=$(splats | tail -n +$((nsplat + 1))); [ -n "$s" ]; then
	emit "FAIL MODULE_UNLOAD_CLEAN: new in the log after unload: $(echo "$s" | head -n 3 | tr '\n' '|')"
	log_since_start | tail -n 100 >&2
else
	emit "ok MODULE_UNLOAD_CLEAN"
fi

# KMEMLEAK_CLEAN: only on kernels with kmemleak (the debug flavour).
if [ -w "$kml" ]; then
	echo scan >"$kml"; sleep 6; echo scan >"$kml"
	if leaks=$(cat "$kml") && [ -n "$leaks" ]; then
		emit "FAIL KMEMLEAK_CLEAN: $(grep -c '^unreferenced object' <<<"$leaks") unreferenced objects"
		head -n 100 <<<"$leaks" >&2
	else
		emit "ok KMEMLEAK_CLEAN"
	fi
fi

summary
