// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: generators of traffic.  UDP datagrams to the fuzzed ports over lo
 * (IPv4 and IPv6, small to near 64 KiB), raw IPv4 and IPv6 packets that
 * the receive hook must parse with care, and frames through the driver
 * API (vjtest's inject file), good and malformed.  With -j N, a sender
 * and an injector thread add more of the same in the background.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/craft.h"
#include "lib/pattern.h"
#include "lib/vjtest.h"

static uint32_t tx_seq;

static void send_udp(struct rng *r, int fd4, int fd6, uint32_t seq)
{
	static __thread uint8_t buf[65536];
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	uint16_t port = PBASE + below(r, NPORTS);
	uint32_t len = below(r, 100) < 90 ? below(r, 1500) :
		       below(r, 100) < 80 ? 2000 + below(r, 7000) :
		       60000 + below(r, 5000);
	bool v6 = fd6 >= 0 && chance(r, 30);

	payload_fill(buf, len, seq);
	if (v6) {
		a6.sin6_port = htons(port);
		a6.sin6_addr = in6addr_loopback;
		sendto(fd6, buf, len, MSG_DONTWAIT, (struct sockaddr *)&a6,
		       sizeof(a6));
	} else {
		a4.sin_port = htons(port);
		a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sendto(fd4, buf, len, MSG_DONTWAIT, (struct sockaddr *)&a4,
		       sizeof(a4));
	}
}

void op_send(void)
{
	op_begin(O_SEND, "sendto(udp, lo)");
	send_udp(&R, udp4, udp6, tx_seq++);
	op_note("sent");
	op_ok();
}

/*
 * Raw IPv4 and IPv6 packets over lo that the receive hook must parse with
 * care: the shapes of craft_ip() (tests/lib/craft.h), IPv6 extension
 * headers up to 1400 bytes long among them.  Their results are the IP
 * stack's business.
 */
void op_raw(void)
{
	static uint8_t pkt[CRAFT_MAX];
	struct craft_addr a = {
		.sport = htons(1024 + below(&R, 60000)),
		.dport = htons(PBASE + below(&R, NPORTS)),
	};
	struct sockaddr_in sa4 = { .sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6,
				    .sin6_addr = in6addr_loopback };
	int v6 = raw6 >= 0 && !chance(&R, 60);
	char desc[128];
	uint32_t len;
	ssize_t r;

	if (v6) {
		memcpy(a.saddr, &sa6.sin6_addr, 16);
		memcpy(a.daddr, &sa6.sin6_addr, 16);
	} else {
		memcpy(a.saddr, &sa4.sin_addr, 4);
		memcpy(a.daddr, &sa4.sin_addr, 4);
	}
	len = craft_ip(&R, pkt, v6, &a, desc, sizeof(desc));
	op_begin(O_RAW, "%s", desc);
	if (v6)
		r = sendto(raw6, pkt, len, MSG_DONTWAIT,
			   (struct sockaddr *)&sa6, sizeof(sa6));
	else
		r = sendto(raw4, pkt, len, MSG_DONTWAIT,
			   (struct sockaddr *)&sa4, sizeof(sa4));
	op_note(r < 0 ? errname(errno) : "sent");
	op_ok();
}

/* A line for vjtest's inject file; *bogus: one it must refuse. */
static int inject_line(struct rng *r, char *line, size_t n, uint32_t seq,
		       bool *bogus)
{
	bool v6 = chance(r, 30);
	struct vjt_req q = { .seq = seq };

	*bogus = chance(r, 8);
	if (*bogus) {
		static const char *const bad[] = { "count=1 len=4000",
			"count=1 batch=0", "count=1 batch=65", "frobnicate=1",
			"count=1 dport=70000", "count", "saddr=1.2.3" };

		return snprintf(line, n, "%s\n", PICK(r, bad));
	}
	q.count = 1 + below(r, 12);
	q.batch = 1 + below(r, 8);
	q.len = below(r, 1400);
	q.sport = 1000 + below(r, 100);
	q.dport = PBASE + below(r, NPORTS);
	q.saddr = v6 ? VJT_PEER6 : VJT_PEER4;
	q.daddr = v6 ? VJT_LOCAL6 : VJT_LOCAL4;
	/*
	 * Checksum offload as a device would report it, now and then with a
	 * crafted start or offset outside the frame (at most 1462 bytes),
	 * which the kernel must drop.  Not inside it: the kernel would write
	 * the checksum where the device said, into the payload, which the
	 * consumer's pattern check counts as damage.
	 */
	q.offload = below(r, 3);
	if (q.offload == 2 && chance(r, 30)) {
		switch (below(r, 3)) {
		case 0:		/* past the end */
			q.cstart1 = 1 + 2048 + below(r, 65536 - 2048);
			break;
		case 1:		/* in the Ethernet header */
			q.cstart1 = 1 + below(r, 14);
			break;
		default:	/* the field past the end */
			q.coff1 = 1 + 2048 + below(r, 65536 - 2048);
			break;
		}
	}
	return vjt_format(&q, line, n);
}

void op_inject(void)
{
	char line[256];
	struct expect x;
	bool bogus;
	int n = inject_line(&R, line, sizeof(line), tx_seq, &bogus);
	long r;

	tx_seq += 16;
	line[n - 1] = 0;
	op_begin(O_INJECT, "inject \"%s\"", line);
	line[n - 1] = '\n';
	expect_simple(&x, bogus ? X_INJECT_BOGUS : X_INJECT);
	r = vjt_write(injfd, line, n);
	check(r < 0 ? -1 : r, -r, &x);
}

void *sender(void *arg)
{
	struct rng r = { seed ^ 0x5e4d5e4dull };
	uint32_t seq = 1u << 31;

	(void)arg;
	while (!atomic_load(&stop_threads)) {
		send_udp(&r, thr_udp4, thr_udp6, seq++);
		usleep(100 + below(&r, 400));
	}
	return NULL;
}

void *injector(void *arg)
{
	struct rng r = { seed ^ 0x1213c7ull };
	uint32_t seq = 3u << 30;
	char line[256];
	bool bogus;

	(void)arg;
	while (!atomic_load(&stop_threads)) {
		int n = inject_line(&r, line, sizeof(line), seq, &bogus);
		long w = vjt_write(thr_injfd, line, n);

		seq += 16;
		if (w < 0 && !bogus && w != -ENOBUFS) {
			fprintf(stderr, "fuzz: injector: \"%.*s\": %s\n", n - 1,
				line, errname(-w));
			break;
		}
		usleep(1000 + below(&r, 3000));
	}
	return NULL;
}
