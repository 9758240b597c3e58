# SPDX-License-Identifier: GPL-2.0
#
#   make          build the module, libvjchan, the tools and the tests
#   make demo     one guest: a flow into a channel beside ordinary traffic, the
#                 counters, and the receive paths side by side (about a minute)
#   make check    run the whole test suite in a QEMU guest
#   make servers  fetch the real servers the guest runs under vjchan-run
#                 (NSD, Knot DNS, Unbound, rsyslog) into out/servers
#   make check-parse   the kernel's frame parser in user space under
#                 AddressSanitizer, against crafted frames (part of check)
#   make check-debug   the same on a KASAN/lockdep/kmemleak kernel
#   make bench    vjchan against recvmmsg, PACKET_MMAP and AF_XDP; sendmmsg and
#                 iperf3 -u through vjchan-run (docs/BENCHMARKS.md)
#   make vm-run CMD='...'   run any command in the guest with vjchan loaded
#   make install [PREFIX=/usr/local] [DESTDIR=]   libvjchan, headers,
#                 pkg-config file, tools, manual pages; make uninstall
#   make deb      out/deb/vjchan-dkms_VERSION_all.deb: the module for DKMS
#   make check-dkms   build that package's module with DKMS into a staging
#                 root and boot it in a guest (part of make check)
#
# Kernel trees live in a cache outside the repository (VJ_CACHE, default
# ~/.cache/vjchan); scripts/fetch-kernel.sh downloads and extracts Debian's
# packaged 6.12 kernel there.  Nothing is installed into, or loaded by, the
# host kernel.

SHELL := /bin/bash

all: deps kernel userspace

deps:
	@scripts/install-deps.sh

kernel: deps
	@eval "$$(scripts/fetch-kernel.sh)" && \
		$(MAKE) -C kernel KDIR=$$VJ_KDIR

# The real servers the guest runs under vjchan-run (tests/servers.sh,
# bench/dns.sh): downloaded from Debian and extracted into out/servers,
# never installed on the host.
servers: deps
	@scripts/fetch-servers.sh

userspace:
	$(MAKE) -C lib
	$(MAKE) -C xdp
	$(MAKE) -C tools
	$(MAKE) -C tests

# Host tests first (make install into a staging root; the DKMS package
# built, installed into another and booted), then the guest suite, then
# multi-queue vjnet in a guest of its own (tests/mq.sh: a multi-queue tap
# in a network namespace made and deleted there; skipped without
# /dev/net/tun).
check: all servers lint check-parse bench-smoke check-install check-dkms
	scripts/vm.sh --timeout 1500 -- bash tests/run-guest.sh
	tests/mq.sh

# The kernel's frame parser in user space, under AddressSanitizer: named
# cases, then 300000 crafted frames (a few seconds; the seed is printed:
# tests/parse_fuzz -s SEED replays it).
check-parse: userspace
	tests/parse_fuzz -n 300000 -s $$(date +%s)

check-install: userspace
	tests/install.sh

check-dkms: deps userspace
	tests/dkms.sh

# Installs user space only: the module goes through DKMS (make deb).
install: userspace
	$(MAKE) -C lib install
	$(MAKE) -C tools install
	$(MAKE) -C man install

uninstall:
	$(MAKE) -C lib uninstall
	$(MAKE) -C tools uninstall
	$(MAKE) -C man uninstall

deb:
	scripts/mkdeb.sh

# The whole suite on a debug kernel (KASAN, lockdep, kmemleak, UBSAN, ...)
# built from linux-source-6.12 into the cache; the module is built against
# it in out/debug, apart from kernel/*.ko.
check-debug: deps userspace servers
	@eval "$$(scripts/build-debug-kernel.sh)" && \
		rm -rf out/debug && mkdir -p out/debug/kernel && \
		cp -r include out/debug/ && \
		(cd kernel && cp --parents $$(find . \( -name '*.[ch]' \
			! -name '*.mod.c' \) -o -name Kbuild -o -name Makefile) \
			../out/debug/kernel/) && \
		$(MAKE) -C out/debug/kernel KDIR=$$VJ_KDIR && \
		scripts/vm.sh --kernel $$VJ_VMLINUZ --moddir $$VJ_MODDIR \
			--timeout 3000 -- \
			'VJ_KO=out/debug/kernel bash tests/run-guest.sh' && \
		VJ_KO=out/debug/kernel tests/mq.sh --kernel $$VJ_VMLINUZ \
			--moddir $$VJ_MODDIR

# The benchmark (not part of check: it takes 15-25 minutes), and the short
# smoke run of every receiver that check does include.
bench: all
	bench/run.sh

bench-smoke: all
	bench/smoke.sh

demo: all
	scripts/demo.sh

vm-run: all
	scripts/vm.sh -- bash scripts/guest-run.sh '$(CMD)'

# Static checks: W=1 and sparse on the module, checkpatch on its sources.
lint: deps
	@eval "$$(scripts/fetch-kernel.sh)" && \
		$(MAKE) -C kernel KDIR=$$VJ_KDIR clean >/dev/null && \
		$(MAKE) -C kernel KDIR=$$VJ_KDIR W=1 C=1 2>&1 | \
			tee /dev/stderr | (! grep -E 'warning|error')
	scripts/checkpatch.sh

clean:
	-@eval "$$(scripts/fetch-kernel.sh 2>/dev/null)" && \
		$(MAKE) -C kernel KDIR=$$VJ_KDIR clean
	$(MAKE) -C lib clean
	$(MAKE) -C xdp clean
	$(MAKE) -C tools clean
	$(MAKE) -C tests clean

.PHONY: all deps kernel servers userspace check check-debug bench bench-smoke demo vm-run \
	lint clean check-parse check-install check-dkms install uninstall deb
