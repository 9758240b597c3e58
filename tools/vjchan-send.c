// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-send: send a bounded number of UDP datagrams carrying the vjchan
 * test payload pattern through an ordinary UDP socket.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "vjchan.h"
#include "common.h"

/* Largest UDP payload without fragmentation limits: 65535 - IP - UDP. */
#define MAX_PAYLOAD4	(65535 - 20 - 8)
#define MAX_PAYLOAD6	(65535 - 8)

struct send_opts {
	unsigned long	count;
	unsigned long	size;
	unsigned long	pps;		/* 0: as fast as possible */
	unsigned long	first_seq;
	const char	*bind_addr;
	unsigned long	sport;
	const char	*dest;
	const char	*port;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: vjchan-send [options] DEST_ADDR DEST_PORT\n"
"Send UDP datagrams whose payload is the vjchan test pattern.\n"
"\n"
"  -c, --count N     datagrams to send, 1..4294967295 (default 1000)\n"
"  -s, --size N      payload bytes, at least 4 (default 64)\n"
"  -r, --rate PPS    datagrams per second (default: as fast as possible)\n"
"  -S, --seq N       first sequence number (default 0)\n"
"  -B, --bind ADDR   source address\n"
"  -p, --sport N     source port\n"
"  -h, --help        this text\n"
"\n"
"Payload: bytes 0..3 hold the sequence number (big-endian), byte i >= 4\n"
"holds (seq + i) & 0xff.  Exit status: 0 if every datagram was sent,\n"
"1 on errors, 2 for bad usage.\n");
}

static int parse_args(int argc, char **argv, struct send_opts *o)
{
	const struct tool_opt opts[] = {
		TOOL_OPT_NUM("count", 'c', TOOL_ULONG, &o->count, 1, UINT32_MAX,
			     NULL),
		TOOL_OPT_NUM("size", 's', TOOL_ULONG, &o->size, 4, MAX_PAYLOAD6,
			     NULL),
		TOOL_OPT_NUM("rate", 'r', TOOL_ULONG, &o->pps, 0, 1000000000,
			     NULL),
		TOOL_OPT_NUM("seq", 'S', TOOL_ULONG, &o->first_seq, 0,
			     UINT32_MAX, NULL),
		TOOL_OPT_STRING("bind", 'B', &o->bind_addr),
		TOOL_OPT_NUM("sport", 'p', TOOL_ULONG, &o->sport, 1, 65535,
			     NULL),
		TOOL_OPT_END
	};
	int err;

	err = tool_options("vjchan-send", argc, argv, opts, usage);
	if (err)
		return err;
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	o->dest = argv[optind];
	o->port = argv[optind + 1];
	return 0;
}

/* Resolve @host (may be NULL: any) and @port numerically-or-by-name. */
static int resolve(const char *host, const char *port, int family,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints, *res;
	int err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICSERV | (host ? 0 : AI_PASSIVE);
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		fprintf(stderr, "vjchan-send: %s: %s\n", host ? host : port,
			gai_strerror(err));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* Format an address as ADDR:PORT or [ADDR]:PORT. */
static void format_addr(const struct sockaddr_storage *ss, char *buf,
			size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		port = ntohs(sin->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		port = ntohs(sin6->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
	}
}

/* Sleep until @start + @i / @pps seconds on CLOCK_MONOTONIC. */
static void pace(const struct timespec *start, unsigned long i,
		 unsigned long pps)
{
	unsigned long long ns = (unsigned long long)i * 1000000000ULL / pps;
	struct timespec t = {
		.tv_sec = start->tv_sec + ns / 1000000000ULL,
		.tv_nsec = start->tv_nsec + ns % 1000000000ULL,
	};

	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) ==
	       EINTR)
		;
}

int main(int argc, char **argv)
{
	struct send_opts o = {
		.count = 1000,
		.size = 64,
	};
	struct sockaddr_storage dst, src;
	char dstbuf[64], srcbuf[64], port[8];
	unsigned long i, sent = 0, errors = 0;
	socklen_t dstlen, srclen;
	struct timespec start;
	unsigned char *buf;
	int fd, err;

	err = parse_args(argc, argv, &o);
	if (err)
		return err;
	if (resolve(o.dest, o.port, AF_UNSPEC, &dst, &dstlen))
		return 2;
	if (dst.ss_family == AF_INET && o.size > MAX_PAYLOAD4) {
		fprintf(stderr, "vjchan-send: payload over %d bytes for IPv4\n",
			MAX_PAYLOAD4);
		return 2;
	}

	fd = socket(dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("vjchan-send: socket");
		return 1;
	}
	if (o.bind_addr || o.sport) {
		snprintf(port, sizeof(port), "%lu", o.sport);
		if (resolve(o.bind_addr, port, dst.ss_family, &src, &srclen))
			return 2;
		if (bind(fd, (struct sockaddr *)&src, srclen) < 0) {
			perror("vjchan-send: bind");
			return 1;
		}
	}

	buf = malloc(o.size);
	if (!buf) {
		perror("vjchan-send");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < o.count; i++) {
		if (o.pps)
			pace(&start, i, o.pps);
		vj_pattern_fill(buf, o.size, o.first_seq + i);
		if (sendto(fd, buf, o.size, 0, (struct sockaddr *)&dst,
			   dstlen) == (ssize_t)o.size) {
			sent++;
			continue;
		}
		if (!errors++)
			fprintf(stderr, "vjchan-send: sendto seq %lu: %s\n",
				(unsigned long)(uint32_t)(o.first_seq + i),
				strerror(errno));
	}

	/* After the first sendto() the socket has its source address. */
	srclen = sizeof(src);
	if (getsockname(fd, (struct sockaddr *)&src, &srclen) < 0)
		memset(&src, 0, sizeof(src));
	src.ss_family = dst.ss_family;
	format_addr(&src, srcbuf, sizeof(srcbuf));
	format_addr(&dst, dstbuf, sizeof(dstbuf));
	printf("sent %lu payload %lu seq %lu-%lu src %s dst %s errors %lu\n",
	       sent, o.size, o.first_seq,
	       (unsigned long)(uint32_t)(o.first_seq + o.count - 1),
	       srcbuf, dstbuf, errors);
	free(buf);
	close(fd);
	return errors ? 1 : 0;
}
