# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the network test scripts (net.sh, vjnet.sh, firewall.sh):
# verdict lines, background vjchan-recv, and the TCP and UDP endpoints.
# Sourced; sets $tmp (a scratch directory) and $bgpids.

tmp=$(mktemp -d /tmp/vj-net.XXXXXX)
bgpids=()

ok() {
	echo "ok $1"
}

skip() {
	echo "skip $1: $2"
}

fail() {
	local name=$1
	shift
	echo "FAIL $name: $*"
}

# verdict NAME WHY: ok NAME if WHY is empty, else FAIL NAME: WHY.
verdict() {
	if [ -n "$2" ]; then
		fail "$1" "$2"
	else
		ok "$1"
	fi
}

# expect_errors NAME / expect_end: the kernel errors logged between the two
# are provoked by test NAME on purpose; KERNEL_LOG_CLEAN (run-guest.sh)
# leaves them to that test.  Splats (WARN, BUG, KASAN...) still count.
expect_errors() {
	echo "<6>vjchan-tests: expect errors: $1" >/dev/kmsg
}

expect_end() {
	echo "<6>vjchan-tests: expect end" >/dev/kmsg
}

# kill_bg: stop the background jobs started here.
kill_bg() {
	local p
	for p in "${bgpids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}

# bg NAME CMD...: CMD in the background, its output in $tmp/NAME.out; sets $bpid.
bg() {
	local name=$1
	shift
	"$@" >"$tmp/$name.out" 2>&1 &
	bpid=$!
	bgpids+=("$bpid")
}

# stop PID: kill a background command and reap it.
stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
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

# A TCP server in this ns counting the bytes a client in the peer sends,
# checked against the pattern unless a fourth argument says "discard".
tcp_server_py='
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
s.settimeout(20)
open(sys.argv[3], "w").close()
c, _ = s.accept()
c.settimeout(20)
n = 0
h = 0
discard = sys.argv[4:] == ["discard"]
# Byte i of the stream is (7 i + 3) mod 256: a period of 256.
pat = bytes((i * 7 + 3) & 0xff for i in range(65536 + 256))
while True:
    b = c.recv(1 << 20 if discard else 65536)
    if not b:
        break
    if discard:
        n += len(b)
        continue
    o = n & 0xff
    if b != pat[o:o + len(b)]:
        h += sum(x != y for x, y in zip(b, pat[o:o + len(b)]))
    n += len(b)
c.sendall(("%d %d\n" % (n, h)).encode())
c.close()
'
tcp_client_py='
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
total = int(sys.argv[3])
p = bytes((i * 7 + 3) & 0xff for i in range(256))
data = (p * (total // 256 + 1))[:total]
c.sendall(data)
c.shutdown(socket.SHUT_WR)
r = b""
while True:
    b = c.recv(100)
    if not b:
        break
    r += b
print(r.decode().strip())
'

# tcp_in ADDR PORT TOTAL SECS: a client in the peer sends TOTAL patterned
# bytes to a server here on ADDR:PORT, each side given SECS.  Prints why
# it failed and returns 1, or prints nothing if the server got them intact.
tcp_in() {
	local addr=$1 port=$2 total=$3 secs=$4 sp got
	rm -f "$tmp/tcp.ready"
	timeout "$secs" python3 -c "$tcp_server_py" "$addr" "$port" \
		"$tmp/tcp.ready" >/dev/null 2>&1 &
	sp=$!
	if ! wait_file "$tmp/tcp.ready" 10; then
		kill "$sp" 2>/dev/null
		wait "$sp" 2>/dev/null
		echo "$addr: server did not start;"
		return 1
	fi
	got=$(timeout "$secs" ip netns exec peer python3 -c "$tcp_client_py" \
		"$addr" "$port" "$total" 2>&1)
	wait "$sp" 2>/dev/null
	[ "$got" = "$total 0" ] && return 0
	echo "$addr: server saw '$got', sent $total;"
	return 1
}

udp_sink_py='
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
# Room for what arrives while this (slow) reader is not scheduled.
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(10)
open(sys.argv[4], "w").close()
pat = bytes(i & 0xff for i in range(65536 + 256))
n = 0
try:
    while n < int(sys.argv[3]):
        b = s.recv(65536)
        seq = int.from_bytes(b[:4], "big")
        o = (seq + 4) & 0xff
        if b[4:] == pat[o:o + len(b) - 4]:
            n += 1
except socket.timeout:
    pass
print(n)
'

pool() {	# pool KEY: a counter of /proc/net/vjchan_pool
	sed -n "s/^$1 \([0-9-]*\)$/\1/p" /proc/net/vjchan_pool
}

vjtest_setup() {
	ip link set vjtest0 up &&
	ip addr replace 198.51.100.1/24 dev vjtest0 &&
	ip -6 addr replace 2001:db8:100::1/64 dev vjtest0 nodad
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
