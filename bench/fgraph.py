#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sum an ftrace function_graph trace per function (bench/profile-guest.sh).

fgraph.py TRACE PACKETS LABEL SET: read TRACE (the guest's tracing/trace,
function_graph with funcgraph-tail on, so that a closing brace names its
function) and print, per traced function, one CSV row (fgraph.py --header
prints the header):

    label,set,function,calls,us_per_call,calls_per_pkt,us_per_pkt,self_per_pkt,below_per_pkt

PACKETS is the number of frames the benchmark NIC took during the trace
window (its rx_packets), the one denominator for every function, so that
the softirq side and the consumer side are per the same packet.  Calls
are matched per task.  A function's time (us_per_pkt) is inclusive: it
contains its traced children, and the tracer's own cost at each traced
call below it; but not the softirq passes (INTERRUPTS) that ran inside it
when an interrupt hit its CPU, nor, with the tracer's sleep-time option
off, the time its task slept.  self_per_pkt is that time less its traced
calls' time, so the self times of the functions inside a softirq pass add
up to the pass.  below_per_pkt counts the traced calls inside a
function's calls, per packet: each adds the tracer's cost to the
function's inclusive time, and about one such cost is in every self time
(bench/profile.sh estimates it).
"""
import re
import sys

# " 1)  vjrx-321  | + 12.345 us   |      } /* name [module] */",
# " 1)  vjrx-321  |   1.234 us    |  name();" and
# " 1)  <idle>-0   |               |  name() {" (funcgraph-proc on)
LINE = re.compile(r'^\s*(\d+)\)\s+(\S+)-(\d+)\s+\|\s*(?:[-+!#*@$]\s+)?'
                  r'(?:([0-9]+\.[0-9]+) us)?\s*\|\s*(.*?)\s*$')
NAME = r'([\w.]+)(?: \[\w+\])?'
OPEN = re.compile(NAME + r'\(\) \{$')
LEAF = re.compile(NAME + r'\(\);$')
CLOSE = re.compile(r'\} /\* ' + NAME + r' \*/$')

# Work that interrupts whatever ran on its CPU: softirq passes run on the
# way out of an interrupt, inside the call the interrupt hit.
INTERRUPTS = {'net_rx_action', 'vj_wake_flush'}


HEADER = 'label,set,function,calls,us_per_call,calls_per_pkt,us_per_pkt,self_per_pkt,below_per_pkt'


def main():
    if sys.argv[1:] == ['--header']:
        print(HEADER)
        return
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, packets, label, fset = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    calls, total, own, below = {}, {}, {}, {}
    stacks = {}

    # A stack frame: [function, interrupt time inside, traced calls inside,
    # time of the traced calls directly inside].
    def done(cpu, fn, dur, irq, n, kids):
        calls[fn] = calls.get(fn, 0) + 1
        total[fn] = total.get(fn, 0.0) + dur - irq
        own[fn] = own.get(fn, 0.0) + dur - irq - kids
        below[fn] = below.get(fn, 0) + n
        st = stacks.get(cpu)
        if st:
            if fn in INTERRUPTS:
                st[-1][1] += dur
            else:
                st[-1][1] += irq
                st[-1][2] += n + 1
                st[-1][3] += dur - irq

    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            # One stack per task: a task that sleeps inside a call does not
            # own what its CPU runs meanwhile; idle tasks are one per CPU.
            pid, dur, text = int(m.group(3)), m.group(4), m.group(5)
            cpu = pid if pid else -1 - int(m.group(1))
            st = stacks.setdefault(cpu, [])
            o = OPEN.match(text)
            if o:
                st.append([o.group(1), 0.0, 0, 0.0])
                continue
            if dur is None:
                continue
            c = CLOSE.match(text)
            if c:
                fn, irq, n, kids = c.group(1), 0.0, 0, 0.0
                if st and st[-1][0] == fn:
                    _, irq, n, kids = st.pop()
                elif st:
                    # Entered before the window or lost: forget the stack.
                    st.clear()
                done(cpu, fn, float(dur), irq, n, kids)
                continue
            lf = LEAF.match(text)
            if lf:
                done(cpu, lf.group(1), float(dur), 0.0, 0, 0.0)
    for fn in sorted(total, key=lambda k: -total[k]):
        n = calls[fn]
        per_pkt = total[fn] / packets if packets > 0 else 0.0
        cpp = n / packets if packets > 0 else 0.0
        bpp = below[fn] / packets if packets > 0 else 0.0
        spp = own[fn] / packets if packets > 0 else 0.0
        print(f'{label},{fset},{fn},{n},{total[fn] / n:.3f},{cpp:.4f},'
              f'{per_pkt:.3f},{spp:.3f},{bpp:.4f}')


if __name__ == '__main__':
    main()
