// SPDX-License-Identifier: GPL-2.0
/*
 * vjgen: host-side traffic generator, and sink, of the vjchan benchmark.
 *
 * Sends Ethernet/IPv4/UDP frames, one per UDP datagram, to the local end of
 * a QEMU "-netdev dgram" backend, which hands each datagram to the guest NIC
 * as one received frame.  Headers and checksums are valid; the payload is
 * the benchmark pattern (see common.h).  Host drops are read from
 * /proc/net/snmp with the shared test library.  Runs flat out (-r 0) or at a fixed
 * rate, and always stops after -t seconds, -c frames or SIGINT/SIGTERM,
 * whichever comes first; then prints one line of key=value results.
 *
 * With -R it is the sink of transmit cells (bench/vjtx) instead: it reads
 * the frames the guest's benchmark NIC sends (QEMU sends each to our bound
 * port), checks each as a receiver would (IPv4 and UDP headers, checksums,
 * the pattern) and counts the cell's frames, those of the sender's window
 * (BENCH_WIN_BIT) apart, until -t seconds or SIGINT/SIGTERM.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "csum.h"
#include "pattern.h"
#include "proc.h"

#define BATCH		64
#define FRAME_MAX	(BENCH_HDR_LEN + BENCH_MAX_PAYLOAD)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: vjgen [options] -p PORT\n"
"Send benchmark frames to a QEMU dgram netdev on 127.0.0.1:PORT.\n"
"\n"
"  -p, --port PORT      QEMU's local.port (destination), required\n"
"  -b, --bind PORT      our source port, QEMU's remote.port (default 0: any)\n"
"  -s, --size N         UDP payload bytes, %d..%d (default 64)\n"
"  -r, --rate PPS       frames per second, 0 = flat out (default 0)\n"
"  -t, --seconds S      stop after S seconds (default 10)\n"
"  -c, --count N        stop after N frames (default and maximum %u)\n"
"  -g, --tag N          cell tag in the sequence numbers, 0..%u (default 0)\n"
"  -f, --flows N        frame k comes from source port %u + k %% N: N flows,\n"
"                       1..%u (default 1)\n"
"  -R, --receive        be the sink of a transmit cell: count the guest's\n"
"                       frames of tag N and payload size N arriving on -b\n"
"      --ready FILE     with -R: create FILE once the port is bound\n"
"  -h, --help           this text\n",
		BENCH_MIN_PAYLOAD, BENCH_MAX_PAYLOAD, BENCH_CTR_MASK,
		(1U << BENCH_TAG_BITS) - 1, BENCH_SPORT, BENCH_MAX_FLOWS);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long parse_num(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "vjgen: bad %s '%s' (%ld..%ld)\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

struct frame {
	uint8_t		b[FRAME_MAX];
};

/*
 * Build frame @f for sequence number @seq, from source port @sport; the
 * other headers come from @tmpl.
 */
static void build(struct frame *f, const struct frame *tmpl, uint32_t size,
		  uint32_t seq, uint16_t sport, uint64_t pseudo_sum)
{
	uint8_t *ip = f->b + 14, *udp = ip + 20, *pl = udp + 8;
	uint16_t csum, id = htons((uint16_t)seq), sp = htons(sport);

	memcpy(f->b, tmpl->b, BENCH_HDR_LEN);
	payload_fill(pl, size, seq);
	memcpy(udp, &sp, 2);

	memcpy(ip + 4, &id, 2);
	csum = csum_fold(csum_partial(0, ip, 20));
	memcpy(ip + 10, &csum, 2);

	/* Pseudo header (precomputed), UDP header with zero checksum, data. */
	csum = csum_fold(csum_partial(pseudo_sum, udp, 8 + size));
	if (!csum)
		csum = 0xffff;
	memcpy(udp + 6, &csum, 2);
}

static void make_template(struct frame *t, uint32_t size, uint64_t *pseudo)
{
	static const uint8_t dst[6] = BENCH_DST_MAC, src[6] = BENCH_SRC_MAC;
	uint8_t *ip = t->b + 14, *udp = ip + 20;
	uint16_t v;
	uint32_t a;
	uint64_t sum = 0;

	memset(t, 0, sizeof(*t));
	memcpy(t->b, dst, 6);
	memcpy(t->b + 6, src, 6);
	t->b[12] = 0x08;			/* ETH_P_IP */
	t->b[13] = 0x00;
	ip[0] = 0x45;
	v = htons(20 + 8 + size);
	memcpy(ip + 2, &v, 2);
	v = htons(0x4000);			/* DF */
	memcpy(ip + 6, &v, 2);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, BENCH_SRC_IP, &a);
	memcpy(ip + 12, &a, 4);
	inet_pton(AF_INET, BENCH_DST_IP, &a);
	memcpy(ip + 16, &a, 4);
	v = htons(BENCH_SPORT);
	memcpy(udp, &v, 2);
	v = htons(BENCH_DPORT);
	memcpy(udp + 2, &v, 2);
	v = htons(8 + size);
	memcpy(udp + 4, &v, 2);

	sum = csum_partial(sum, ip + 12, 8);	/* saddr, daddr */
	v = htons(IPPROTO_UDP);
	sum = csum_partial(sum, &v, 2);
	v = htons(8 + size);
	sum = csum_partial(sum, &v, 2);
	*pseudo = sum;
}

/* The sink's counts: the frames of the cell, of its window, the rest. */
struct sink {
	unsigned long	received, window, bad, stale, other;
	uint64_t	sum;
};

/*
 * A frame from the guest: one of the transmit cell's (to BENCH_SPORT, from
 * the sender on BENCH_DPORT, to the made-up MAC of BENCH_SRC_IP), checked
 * as the receivers check theirs.
 */
static void sink_frame(struct sink *k, const uint8_t *f, uint32_t len,
		       uint32_t size, uint32_t tag)
{
	static const uint8_t mac[6] = BENCH_SRC_MAC;
	const uint8_t *pl;
	uint32_t seq;

	if (len < 14 || memcmp(f, mac, 6) || f[12] != 0x08 || f[13] != 0x00 ||
	    len < 14 + 20 || f[14 + 9] != IPPROTO_UDP) {
		k->other++;
		return;
	}
	len -= 14;
	pl = bench_udp4(f + 14, &len, BENCH_SPORT, &k->sum);
	if (!pl || len != size || !payload_ok(pl, len, &seq)) {
		k->bad++;
		return;
	}
	if (seq >> BENCH_CTR_BITS != tag) {
		k->stale++;
		return;
	}
	k->received++;
	if (seq & BENCH_WIN_BIT)
		k->window++;
}

static int sink(int fd, uint32_t size, uint32_t tag, double secs,
		const char *ready)
{
	static struct frame bufs[BATCH];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct timeval tv = { 0, 100000 };
	int buf = 32 << 20, i, n;
	struct sink k = { 0 };
	long long drops0, drops1;
	double t0, elapsed;

	/* A queue deep enough for a burst from QEMU (best effort). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs[i].b;
		iov[i].iov_len = sizeof(bufs[i].b);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f || fclose(f)) {
			perror("vjgen: --ready");
			return 1;
		}
	}
	drops0 = udp_snmp("RcvbufErrors");
	t0 = now();
	while (!stop && now() - t0 < secs) {
		n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, NULL);
		if (n < 0)
			continue;	/* the time-out, EINTR, ECONNREFUSED */
		for (i = 0; i < n; i++)
			sink_frame(&k, bufs[i].b, msgs[i].msg_len, size, tag);
	}
	elapsed = now() - t0;
	drops1 = udp_snmp("RcvbufErrors");
	printf("received=%lu window=%lu bad=%lu stale=%lu other=%lu secs=%.3f "
	       "host_rcvbuf_drops=%lld\n", k.received, k.window, k.bad,
	       k.stale, k.other, elapsed,
	       drops0 >= 0 && drops1 >= 0 ? drops1 - drops0 : -1LL);
	fflush(stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "port",	required_argument, NULL, 'p' },
		{ "bind",	required_argument, NULL, 'b' },
		{ "size",	required_argument, NULL, 's' },
		{ "rate",	required_argument, NULL, 'r' },
		{ "seconds",	required_argument, NULL, 't' },
		{ "count",	required_argument, NULL, 'c' },
		{ "tag",	required_argument, NULL, 'g' },
		{ "flows",	required_argument, NULL, 'f' },
		{ "receive",	no_argument,	   NULL, 'R' },
		{ "ready",	required_argument, NULL, 1 },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct frame frames[BATCH];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct frame tmpl;
	struct sigaction sa;
	long port = 0, bport = 0, size = 64, rate = 0, tag = 0, flows = 1;
	unsigned long count = BENCH_CTR_MASK, sent = 0, errs = 0, loops = 0;
	double secs = 10, t0, t, elapsed, at;
	long long drops0, drops1;
	uint64_t pseudo;
	int fd, c, i, last_err = 0, receive = 0;
	const char *ready = NULL;
	char junk[2048];

	while ((c = getopt_long(argc, argv, "p:b:s:r:t:c:g:f:Rh", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = parse_num(optarg, "port", 1, 65535);
			break;
		case 'b':
			bport = parse_num(optarg, "port", 0, 65535);
			break;
		case 's':
			size = parse_num(optarg, "size", BENCH_MIN_PAYLOAD,
					 BENCH_MAX_PAYLOAD);
			break;
		case 'r':
			rate = parse_num(optarg, "rate", 0, 100000000);
			break;
		case 't':
			secs = parse_num(optarg, "seconds", 1, 3600);
			break;
		case 'c':
			count = parse_num(optarg, "count", 1, BENCH_CTR_MASK);
			break;
		case 'g':
			tag = parse_num(optarg, "tag", 0,
					(1L << BENCH_TAG_BITS) - 1);
			break;
		case 'f':
			flows = parse_num(optarg, "flows", 1, BENCH_MAX_FLOWS);
			break;
		case 'R':
			receive = 1;
			break;
		case 1:
			ready = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!port || optind != argc || (receive && !bport)) {
		usage(stderr);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("vjgen: socket");
		return 1;
	}
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	me.sin_port = htons(bport);
	if (bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		perror("vjgen: bind");
		return 1;
	}
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons(port);
	if (connect(fd, (struct sockaddr *)&to, sizeof(to))) {
		perror("vjgen: connect");
		return 1;
	}

	if (receive)
		return sink(fd, size, tag, secs, ready);

	make_template(&tmpl, size, &pseudo);
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = frames[i].b;
		iov[i].iov_len = BENCH_HDR_LEN + size;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	drops0 = udp_snmp("RcvbufErrors");
	t0 = now();
	elapsed = 0;
	while (!stop && sent < count) {
		unsigned long due = count - sent;
		int n, ok;

		t = now();
		elapsed = t - t0;
		if (elapsed >= secs)
			break;
		due = bench_due(t0, t, rate, sent, due, &at);
		if (!due) {
			/* Sleep until the next frame is due. */
			struct timespec ts;

			ts.tv_sec = (time_t)at;
			ts.tv_nsec = (long)((at - ts.tv_sec) * 1e9);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
			continue;
		}
		n = due < BATCH ? (int)due : BATCH;
		for (i = 0; i < n; i++)
			build(&frames[i], &tmpl, size, BENCH_SEQ(tag, sent + i),
			      BENCH_SPORT + (sent + i) % flows, pseudo);
		ok = sendmmsg(fd, msgs, n, 0);
		if (ok < 0) {
			/*
			 * ECONNREFUSED: QEMU not (yet) listening.  Frames of
			 * a failed send are not counted as sent.
			 */
			if (errno != EINTR) {
				errs++;
				last_err = errno;
			}
			ok = 0;
		}
		sent += ok;
		/* Drop whatever the guest sent back (nobody reads it). */
		if (!(++loops & 0x3ff))
			while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
				;
	}
	elapsed = now() - t0;
	drops1 = udp_snmp("RcvbufErrors");
	printf("sent=%lu secs=%.3f pps=%.0f send_errors=%lu last_errno=%d "
	       "host_rcvbuf_drops=%lld\n",
	       sent, elapsed, elapsed > 0 ? sent / elapsed : 0.0, errs, last_err,
	       drops0 >= 0 && drops1 >= 0 ? drops1 - drops0 : -1LL);
	fflush(stdout);
	close(fd);
	return 0;
}
