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

/* The transport header's ports and, for 8 bytes or more, length and data. */
static void raw_l4(uint8_t *l4, uint16_t sport, uint16_t dport,
		   uint32_t l4len)
{
	memcpy(l4, &sport, 2);
	memcpy(l4 + 2, &dport, 2);
	if (l4len >= 8) {
		l4[4] = l4len >> 8;
		l4[5] = l4len & 0xff;
		payload_fill(l4 + 8, l4len - 8, tx_seq++);
	}
}

/*
 * Raw IPv4 and IPv6 packets over lo that the receive hook must parse with
 * care: IP options, fragments, truncated transport headers, extension
 * headers, odd protocols.  Their results are the IP stack's business.
 */
void op_raw(void)
{
	static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_UDP, IPPROTO_TCP,
		IPPROTO_UDPLITE, IPPROTO_SCTP, IPPROTO_DCCP, IPPROTO_ICMP, 0, 253 };
	uint8_t pkt[1600] = { 0 };
	uint32_t l4len, i;
	uint8_t proto = chance(&R, 90) ? PICK(&R, protos) : (uint8_t)rnd64(&R);
	uint16_t dport = htons(PBASE + below(&R, NPORTS));
	uint16_t sport = htons(1024 + below(&R, 60000));
	ssize_t r;

	l4len = below(&R, 100) < 70 ? 8 + below(&R, 200) : below(&R, 8);
	if (raw6 < 0 || chance(&R, 60)) {
		struct sockaddr_in a = { .sin_family = AF_INET,
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		uint32_t ihl = chance(&R, 75) ? 5 : 6 + below(&R, 10);
		uint8_t *ip = pkt, *l4 = pkt + ihl * 4;
		uint16_t frag = 0;

		if (chance(&R, 10))
			frag = 0x2000;			/* MF */
		else if (chance(&R, 10))
			frag = 1 + below(&R, 0x1fff);	/* offset */
		else if (chance(&R, 20))
			frag = 0x4000;			/* DF */
		ip[0] = 0x40 | ihl;
		ip[6] = frag >> 8;
		ip[7] = frag & 0xff;
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, &a.sin_addr, 4);
		memcpy(ip + 16, &a.sin_addr, 4);
		for (i = 20; i < ihl * 4; i++)
			ip[i] = chance(&R, 80) ? 1 : (uint8_t)rnd64(&R); /* NOP */
		raw_l4(l4, sport, dport, l4len);
		op_begin(O_RAW, "raw4(ihl %u frag %#x proto %u l4 %u)", ihl,
			 frag, proto, l4len);
		r = sendto(raw4, pkt, ihl * 4 + l4len, MSG_DONTWAIT,
			   (struct sockaddr *)&a, sizeof(a));
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6,
					  .sin6_addr = in6addr_loopback };
		uint8_t *ip = pkt, *h = pkt + 40, *l4;
		uint32_t ext = below(&R, 4), plen;
		uint16_t fo = 0;

		ip[0] = 0x60;
		ip[7] = 64;
		memcpy(ip + 8, &a.sin6_addr, 16);
		memcpy(ip + 24, &a.sin6_addr, 16);
		if (ext == 1) {			/* destination options, PadN */
			ip[6] = 60;
			h[0] = proto;
			h[2] = 1;
			h[3] = 4;
			l4 = h + 8;
		} else if (ext == 2) {		/* fragment header */
			fo = PICK(&R, ((const uint16_t[]){ 0, 1, 8, 9, 0x100 }));
			ip[6] = 44;
			h[0] = proto;
			h[2] = fo >> 8;
			h[3] = fo & 0xff;
			h[7] = 1;
			l4 = h + 8;
		} else {
			ip[6] = proto;
			l4 = h;
		}
		raw_l4(l4, sport, dport, l4len);
		plen = (l4 - h) + l4len;
		ip[4] = plen >> 8;
		ip[5] = plen & 0xff;
		op_begin(O_RAW, "raw6(ext %u frag %#x proto %u l4 %u)", ext, fo,
			 proto, l4len);
		r = sendto(raw6, pkt, 40 + plen, MSG_DONTWAIT,
			   (struct sockaddr *)&a, sizeof(a));
	}
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
