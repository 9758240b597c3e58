#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side: vjchan-stat on live channels and on made-up /proc files
# (columns a newer kernel may add).  Needs vjchan loaded.
#
#   STAT_TABLE     live channels in the table, a header naming the columns
#   STAT_FILTER    kind, ports, prefixes, wildcards, dev, path, any column
#   STAT_FILTER_ERRORS  unknown column or path: 1; bad values: 2
#   STAT_JSON      -j parses; numbers as numbers, "*" as a string, filtered
#   STAT_WATCH     -w -j: per report, rates = deltas / interval; the
#                  deltas add up to exactly what was sent and dropped
#   STAT_WATCH_TEXT  -w table with pkts/s, drops/s and NAME/s columns
#   STAT_TOLERANT  extra named and unnamed columns, short rows, no pool
#                  file; a file without a header is refused
#   STAT_USAGE     conflicting options: 2
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

if [ "${VJ_IN_VM:-}" != 1 ]; then
	echo "stat.sh: refusing to run outside the test guest" >&2
	exit 2
fi
export PATH="$top/tools:$top/tests:$PATH"

# shellcheck source=tests/netlib.sh
. "$top/tests/netlib.sh"	# $tmp, bgpids, ok/fail, wait_file
cleanup() {
	kill_bg
	rm -rf "$tmp"
}
trap cleanup EXIT

# start NAME CMD...: a background channel holder with --ready-file.
start() {
	local name=$1
	shift
	"$@" "$tmp/$name.ready" >"$tmp/$name.out" 2>&1 &
	bgpids+=($!)
	wait_file "$tmp/$name.ready" 10 ||
		{ echo "$name did not start: $(cat "$tmp/$name.out")"; return 1; }
}

recv_ready() {	# recv_ready ARGS... READY: vjchan-recv with the ready file last
	local ready=${!#}
	# exec: the background job's pid is vjchan-recv's, so cleanup's kill
	# ends the channel, not only the subshell around it.
	exec vjchan-recv --ready-file "$ready" "${@:1:$#-1}"
}

inodes() {	# inodes ARGS...: inodes of the rows vjchan-stat -c ARGS shows
	vjchan-stat -c "$@" | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' '
}

ip link set lo up
# Bound for the whole script (cleanup ends them): on the debug kernel the
# filter cases alone take over a minute.
if ! start v4 recv_ready -q -t 600 udp4 dport 9300 dev lo ||
   ! start v6 recv_ready -q -t 600 udp6 dport 9301 saddr 2001:db8::5 ||
   ! start ip recv_ready -q -t 600 ip4 proto 1 daddr 192.0.2.77; then
	fail STAT_TABLE "channels not bound"
	exit 1
fi

out=$(vjchan-stat -c)
header=$(head -n 1 <<<"$out")
row() {	# row DPORT: the inode of the channel with that dport
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["dport"] == p { print $c["inode"] }' <<<"$out"
}
i4=$(row 9300) i6=$(row 9301)
iip=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["proto"] == 1 { print $c["inode"] }' <<<"$out")
if [ "$(echo $header)" != "$(head -n 1 /proc/net/vjchan)" ]; then
	fail STAT_TABLE "header '$header' is not /proc/net/vjchan's"
elif [ -z "$i4" ] || [ -z "$i6" ] || [ -z "$iip" ]; then
	fail STAT_TABLE "channels missing: $(tr '\n' '|' <<<"$out")"
elif ! vjchan-stat | grep -q '^pool_buffers'; then
	fail STAT_TABLE "no pool counters"
else
	ok STAT_TABLE
fi

why=
expect() {	# expect "WANT INODES" FILTER...
	local want=$1 got
	shift
	want=$(tr ' ' '\n' <<<"$want" | grep . | sort | tr '\n' ' ')
	got=$(inodes "$@")
	[ "$got" = "$want" ] || why+="'$*' gave '$got', expected '$want'; "
}
expect "$i4" udp4
expect "$i6" udp6 dport 9301
expect "$i4 $iip" ip4
expect "$i4 $iip" family ipv4
expect "$i6" family 6
expect "$i4" dport 9300
expect "$i4" dev lo
expect "$i4" ifindex 1
expect "$i6" saddr 2001:db8::/32
expect "$i6" saddr 2001:db8::5
expect "" saddr 2001:db8::6
expect "$i4 $iip" saddr '*'
expect "$iip" proto 1
expect "$iip" proto icmp
expect "$iip" daddr 192.0.2.0/24
expect "" daddr 192.0.2.0/31
expect "$i4" sport '*' dport 9300 dev lo
expect "" sport '*' dport 9300 dev lo family ipv6
expect "$i6" inode "$i6"
expect "$i4 $i6 $iip" entries 256
expect "" path driver
expect "$i4 $i6 $iip" rx_packets 0
if [ -n "$why" ]; then
	fail STAT_FILTER "$why"
else
	ok STAT_FILTER
fi

why=
for f in "nosuchcolumn 1" "path nosuchpath"; do
	vjchan-stat -c $f >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = 1 ] || why+="'$f' exit $rc; "
done
grep -q 'rx_packets' "$tmp/err" || why+="no list of counters for an unknown path; "
for f in "dport" "dport 70000" "saddr 192.0.2.1/33" "proto xyz" "dev nosuchdev" \
	 "family ipv5" "udp5"; do
	vjchan-stat -c $f >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || why+="'$f' exit $rc; "
done
if [ -n "$why" ]; then
	fail STAT_FILTER_ERRORS "$why"
else
	ok STAT_FILTER_ERRORS
fi

if ! vjchan-stat -j >"$tmp/all.json" || ! vjchan-stat -j udp6 >"$tmp/v6.json"; then
	fail STAT_JSON "vjchan-stat -j failed"
elif ! res=$(python3 - "$tmp/all.json" "$tmp/v6.json" "$i6" <<'EOF' 2>&1
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
hdr = open("/proc/net/vjchan").readline().split()
for c in a["channels"]:
    assert list(c) == hdr, "members %s, header %s" % (list(c), hdr)
    assert isinstance(c["inode"], int) and isinstance(c["rx_packets"], int)
v6 = [c for c in a["channels"] if c["dport"] == 9301][0]
assert v6["family"] == "ipv6" and v6["sport"] == "*", v6
assert v6["saddr"] == "2001:db8::5" and v6["proto"] == 17, v6
assert [c["inode"] for c in b["channels"]] == [int(sys.argv[3])], b
assert "pool" not in b or isinstance(b["pool"]["pool_buffers"], int)
assert isinstance(a["pool"]["pool_buffers"], int), a.get("pool")
EOF
); then
	fail STAT_JSON "$res"
else
	ok STAT_JSON
fi

# Watch two new channels: one consumed (9302), one never read (9303, a
# ring of 256: 44 of 300 datagrams dropped).
if ! start w1 recv_ready -q -t 60 udp4 dport 9302 dev lo ||
   ! start w2 vj_hold -p 9303; then
	fail STAT_WATCH "channels not bound"
else
	vjchan-stat -w -j -i 1 --count 4 dport 9302 >"$tmp/w1.json" 2>&1 &
	wpid1=$!
	vjchan-stat -w -j -i 1 --count 4 dport 9303 >"$tmp/w2.json" 2>&1 &
	wpid2=$!
	sleep 0.3
	vjchan-send -c 300 -r 400 127.0.0.1 9302 >/dev/null 2>&1
	vjchan-send -c 300 127.0.0.1 9303 >/dev/null 2>&1
	wait "$wpid1" "$wpid2"
	if ! res=$(python3 - "$tmp/w1.json" "$tmp/w2.json" <<'EOF' 2>&1
import json, sys

def reports(path):
    rs = [json.loads(l) for l in open(path)]
    assert len(rs) == 4, "%s: %d reports" % (path, len(rs))
    for r in rs:
        assert len(r["channels"]) == 1, r
        c, t = r["channels"][0], r["interval"]
        assert 0.5 < t < 3, "interval %s" % t
        for k, v in c["delta"].items():
            assert abs(c["per_s"][k] - v / t) <= 1e-3 * max(1, v / t), (k, c)
        assert abs(c["packets_per_s"] - c["per_s"]["rx_packets"]) < 1e-3, c
        assert abs(c["bytes_per_s"] - c["per_s"]["rx_bytes"]) < 1e-3, c
        drops = sum(v for k, v in c["delta"].items()
                    if k == "rx_ring_full" or "drop" in k)
        assert abs(c["drops_per_s"] - drops / t) <= 1e-3 * max(1, drops / t), c
    return [r["channels"][0] for r in rs]

def total(cs, k):
    return sum(c["delta"][k] for c in cs)

w1, w2 = reports(sys.argv[1]), reports(sys.argv[2])
assert w1[0]["flow"] == "udp4 dport 9302 dev lo", w1[0]["flow"]
assert total(w1, "rx_packets") == 300, "consumed: %d" % total(w1, "rx_packets")
assert total(w1, "rx_ring_full") == 0
assert total(w2, "rx_packets") == 256, "held: %d" % total(w2, "rx_packets")
assert total(w2, "rx_ring_full") == 44, "dropped: %d" % total(w2, "rx_ring_full")
assert max(c["drops_per_s"] for c in w2) > 0
EOF
	); then
		fail STAT_WATCH "$res"
	else
		ok STAT_WATCH
	fi
fi

out=$(vjchan-stat -w -i 0.3 --count 1 dport 9303 2>&1)
hdr=$(sed -n 2p <<<"$out")
if ! grep -q 'interval 0\.[0-9][0-9] s  1 channel$' <<<"$(head -n 1 <<<"$out")" ||
   ! [[ $hdr =~ inode\ +flow\ +pkts/s\ +bytes/s\ +drops/s ]] ||
   ! [[ $hdr =~ driver/s ]] ||
   ! grep -q 'udp4 dport 9303 *0\.0 ' <<<"$out"; then
	fail STAT_WATCH_TEXT "$(tr '\n' '|' <<<"$out")"
else
	ok STAT_WATCH_TEXT
fi

# A table from a newer kernel: more named columns, a line longer than
# the header, a short line; no pool file (as in a network namespace).
d=$tmp/newer
mkdir -p "$d"
cat >"$d/vjchan" <<'EOF'
inode family proto saddr sport daddr dport ifindex entries buf_size rx_packets rx_bytes rx_ring_full rx_invalid_cons rx_truncated rx_driver fw rx_hook rx_xdp rx_fw_drops
11 ipv4 17 * * 192.0.2.1 9000 2 256 2048 10 1000 1 0 0 2 bypass 8 0 3
12 ipv6 6 2001:db8::2 * * 80 * 256 2048 0 0 0 0 0 0 filtered 0 0 0 surprise
13 ipv4 * * * * * * 256 2048 5 500
EOF
why=
[ "$(vjchan-stat -d "$d" -c fw bypass | awk 'NR > 1 { print $1 }')" = 11 ] || why+="fw filter; "
[ "$(vjchan-stat -d "$d" -c path hook | awk 'NR > 1 { print $1 }')" = 11 ] || why+="path hook; "
[ "$(vjchan-stat -d "$d" -c path xdp | wc -l)" = 1 ] || why+="path xdp; "
[ "$(vjchan-stat -d "$d" | head -n 1 | awk '{ print $NF }')" = col21 ] || why+="no col21; "
vjchan-stat -d "$d" -j >"$tmp/newer.json" 2>"$tmp/newer.err" || why+="-j without a pool file: $(cat "$tmp/newer.err"); "
python3 - "$tmp/newer.json" <<'EOF' 2>/dev/null || why+="JSON: $(head -c 300 "$tmp/newer.json"); "
import json, sys
c = json.load(open(sys.argv[1]))["channels"]
assert c[0]["fw"] == "bypass" and c[0]["rx_fw_drops"] == 3 and c[0]["col21"] is None
assert c[1]["col21"] == "surprise" and c[2]["fw"] is None and c[2]["rx_bytes"] == 500
EOF
w=$(vjchan-stat -d "$d" -w -j -i 0.1 --count 1 2>&1)
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert [c["inode"] for c in r["channels"]] == [11, 12, 13]
assert "rx_hook" in r["channels"][0]["per_s"] and "rx_fw_drops" in r["channels"][0]["per_s"]
' "$w" 2>/dev/null || why+="-w -j on the newer table: $w; "
t=$(vjchan-stat -d "$d" -w -i 0.1 --count 1 2>&1)
[[ $(sed -n 2p <<<"$t") =~ hook/s.*xdp/s ]] || why+="-w table: $(sed -n 2p <<<"$t"); "
[[ $(sed -n 2p <<<"$t") == *fw_drops/s* ]] && why+="a drop counter shown as a path; "
printf '11 ipv4 17 * * * 9000 * 256 2048 0 0 0 0 0 0\n' >"$d/vjchan"
vjchan-stat -d "$d" -c >/dev/null 2>"$tmp/nohdr"
rc=$?
[ "$rc" = 1 ] && grep -q 'no header line' "$tmp/nohdr" || why+="header-less file: exit $rc; "
if [ -n "$why" ]; then
	fail STAT_TOLERANT "$why"
else
	ok STAT_TOLERANT
fi

why=
for args in "-c -p" "-w -p" "-i 0 -w" "-i x -w" "--count 0 -w" "-p dport 1" "-x"; do
	vjchan-stat $args >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || why+="'$args' exit $rc; "
done
if [ -n "$why" ]; then
	fail STAT_USAGE "$why"
else
	ok STAT_USAGE
fi
exit 0
