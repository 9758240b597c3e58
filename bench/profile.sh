#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/profile.sh [OUT.csv]: where the guest kernel's time goes, per packet
# and per receive method, from ftrace's function_graph tracer in one guest
# (bench/profile-guest.sh).  Not part of make bench: the tracer slows every
# traced call, so its rates are not the benchmark's; the split within one
# method, and between methods of one boot, is what it shows.
#
#   PROFILE_MODES  vjrx modes (default: udp-recvmmsg vjchan-hook udp-vjchan
#                  udp-vjchan-xdp vjchan-xdp afxdp-copy)
#   PROFILE_SETS   function sets, outer and/or inner (default: both)
#   PROFILE_RATE   offered load, pps (default 0: flat out)
#   PROFILE_SIZE   UDP payload bytes (default 64)
#   PROFILE_SECS   trace window, seconds (default 0.3)
#   PROFILE_SMP    vCPUs (default 2)
#   PROFILE_KEEP   1: keep each cell's trace in bench/out/profile/
#
# Writes OUT.csv (default bench/out/profile/profile.csv) and prints, per
# set, a table of microseconds per packet: each function's summed durations
# over the frames the NIC took in the window; inclusive for the outer set,
# self for the inner one (less the traced calls inside).  Each self time
# holds up to one tracer cost per call, which it estimates: what tracing
# the inner set added to the softirq passes, over the calls it traced in
# them.
#
# The tracer patches kernel text when a set is armed; under scripts/vm.sh
# --tcg-threads multi a guest may die of it now and then (see vm.sh).  The
# vCPUs still get a host thread each, as in make bench: vCPUs run in turn
# would put the other vCPU's time into every duration.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_top"

bench_build >&2
out=$bench_dir/out/profile
mkdir -p "$bench_dir/out"
csv=${1:-$out/profile.csv}
env=
for v in PROFILE_MODES PROFILE_SETS PROFILE_RATE PROFILE_SIZE PROFILE_SECS PROFILE_KEEP; do
	[ -z "${!v:-}" ] || env+="$v=$(printf '%q' "${!v}") "
done
st=0
bench_boot "${PROFILE_SMP:-2}" "$out" 900 "$env bash bench/profile-guest.sh" \
	>"$out.log" 2>&1 || st=$?
grep '^profile:' "$out.log" >&2 || true
if [ "$st" != 0 ] || [ ! -e "$out/finished" ]; then
	echo "profile.sh: the guest failed (status $st; log: $out.log)" >&2
	exit 1
fi
[ "$csv" = "$out/profile.csv" ] || cp "$out/profile.csv" "$csv"
python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cell = {(r['set'], r['label'], r['function']): r for r in rows}
labels = list(dict.fromkeys(r['label'] for r in rows))
# The tracer's cost per traced call, per method: what tracing the inner
# set's calls added to the softirq passes, over how many calls it traced
# inside them.
cost = {}
for lab in labels:
    o = cell.get(('outer', lab, 'net_rx_action'))
    i = cell.get(('inner', lab, 'net_rx_action'))
    if o and i and float(i['below_per_pkt']) > 0:
        cost[lab] = (float(i['us_per_pkt']) - float(o['us_per_pkt'])) / float(i['below_per_pkt'])
for s in dict.fromkeys(r['set'] for r in rows):
    labs = [l for l in labels if any(k[0] == s and k[1] == l for k in cell)]
    fns = list(dict.fromkeys(r['function'] for r in rows if r['set'] == s))
    if s == 'outer':
        print(f'\n{s}: us per packet, inclusive (calls per packet)')
    else:
        print(f'\n{s}: us per packet, self: less the traced calls inside'
              ' (calls per packet); each self time holds up to one tracer cost per call')
        print('tracer cost per traced call, us: ' +
              ', '.join(f'{l} {cost[l]:.2f}' for l in labs if l in cost))
    print('| function | ' + ' | '.join(labs) + ' |')
    print('| --- |' + ' ---: |' * len(labs))
    for f in fns:
        vals = []
        for lab in labs:
            r = cell.get((s, lab, f))
            if not r:
                vals.append('')
                continue
            cpp = float(r['calls_per_pkt'])
            if s == 'outer':
                us = float(r['us_per_pkt'])
            else:
                us = float(r['self_per_pkt'])
            vals.append(f"{us:.2f} ({cpp:.2f})")
        print(f'| `{f}` | ' + ' | '.join(vals) + ' |')
EOF
