// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-recv: receive the packets of one flow through a vjchan channel.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "vjchan.h"
#include "common.h"

/* Longest wait in one vj_wait() call, so a signal is noticed quickly. */
#define SLICE_MS	200

/* Descriptors handled per vj_peek(). */
#define BATCH		64

static volatile sig_atomic_t stop;

/* -w: the pcapng file being written, and its first error. */
static struct capture *capture;
static int capture_err;

/* Long options without a short form. */

struct recv_opts {
	struct vj_chan_opts	ring;
	unsigned long		count;		/* 0: no limit */
	double			seconds;	/* 0: no limit */
	int			verify;
	int			quiet;
	const char		*ready_file;
	const char		*mode;		/* -m, as written */
	__u16			bind_flags;	/* svj_flags, parsed from it */
	const char		*write_file;	/* -w */
	unsigned long		snaplen;	/* 0: the buffer size */
	int			print;		/* lines per packet with -w */
	int			direct;		/* --direct: VJ_BIND_F_DIRECT */
};

struct recv_stats {
	unsigned long long	packets;
	unsigned long long	bytes;
	unsigned long long	bad_payload;	/* not UDP or not the pattern */
	unsigned long long	out_of_order;	/* seq below the next expected */
	unsigned long long	gaps;		/* jumps forward in seq */
	unsigned long long	lost;		/* seqs skipped by those jumps */
	int			have_seq;
	uint32_t		next_seq;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: vjchan-recv [options] FLOWSPEC...\n"
"Receive the packets of a flow through a vjchan channel.\n"
"\n"
"  -e, --entries N      ring descriptors (power of two, 8..32768)\n"
"  -b, --buf-size N     bytes per buffer (power of two, 2048..65536)\n"
"  -c, --count N        stop after N packets\n"
"  -t, --timeout SECS   stop after SECS seconds\n"
"  -v, --verify         check the payload pattern and the sequence\n"
"  -q, --quiet          no line per packet, only the summary\n"
"      --ready-file F   create F once the channel is bound and mapped\n"
"  -m, --mode MODE      firewall mode: filtered (default), sanctioned,\n"
"                       bypass, bypass,transit (see vjchan(7))\n"
"  -w, --write FILE     write the packets to FILE as pcapng (\"-\": stdout)\n"
"      --snaplen N      with -w, keep at most N bytes of each packet\n"
"      --print          with -w, still print a line per packet\n"
"      --direct         own the device's receive queue: the device writes\n"
"                       into the ring (bypass, with dev; see vjchan(7))\n"
"  -h, --help           this text\n"
"\n"
"FLOWSPEC: KIND [sport N] [dport N] [saddr A] [daddr A] [dev NAME|ifindex N]\n"
"          [proto P], KIND one of ip4 ip6 udp4 udp6 tcp4 tcp6 udplite4\n"
"          udplite6 sctp4 sctp6 dccp4 dccp6; e.g. \"udp4 dport 9000\".\n"
"\n"
"Exit status: 0 on success; 1 on error or, with --verify, if a payload\n"
"was bad, the sequence had gaps or went backwards, or fewer than -c\n"
"packets arrived; 2 for bad usage.\n");
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_args(int argc, char **argv, struct recv_opts *o,
		      struct vj_flow *flow)
{
	const struct tool_opt opts[] = {
		TOOL_OPT_NUM("entries", 'e', TOOL_U32, &o->ring.entries, 1,
			     UINT32_MAX, NULL),
		TOOL_OPT_NUM("buf-size", 'b', TOOL_U32, &o->ring.buf_size, 1,
			     UINT32_MAX, NULL),
		TOOL_OPT_NUM("count", 'c', TOOL_ULONG, &o->count, 0, ULONG_MAX,
			     "count"),
		TOOL_OPT_NUM("timeout", 't', TOOL_SECONDS, &o->seconds, 0, 0,
			     "timeout"),
		TOOL_OPT_FLAG("verify", 'v', &o->verify),
		TOOL_OPT_FLAG("quiet", 'q', &o->quiet),
		TOOL_OPT_STRING("ready-file", TOOL_LONG_ONLY, &o->ready_file),
		TOOL_OPT_STRING("mode", 'm', &o->mode),
		TOOL_OPT_STRING("write", 'w', &o->write_file),
		TOOL_OPT_NUM("snaplen", TOOL_LONG_ONLY + 1, TOOL_ULONG,
			     &o->snaplen, 1, UINT32_MAX, "snaplen"),
		TOOL_OPT_FLAG("print", TOOL_LONG_ONLY + 2, &o->print),
		TOOL_OPT_FLAG("direct", TOOL_LONG_ONLY + 3, &o->direct),
		TOOL_OPT_END
	};
	char spec[512] = "";
	size_t len = 0;
	int c, err;

	err = tool_options("vjchan-recv", argc, argv, opts, usage);
	if (err)
		return err;
	if (o->mode && vj_bind_flags_parse(o->mode, &o->bind_flags)) {
		fprintf(stderr, "vjchan-recv: bad mode: %s\n", o->mode);
		return 2;
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	for (; optind < argc; optind++) {
		c = snprintf(spec + len, sizeof(spec) - len, "%s%s",
			     len ? " " : "", argv[optind]);
		if (c < 0 || (size_t)c >= sizeof(spec) - len) {
			fprintf(stderr, "vjchan-recv: flow spec too long\n");
			return 2;
		}
		len += c;
	}
	err = vj_flow_parse(spec, flow);
	if (err) {
		fprintf(stderr, "vjchan-recv: bad flow spec \"%s\": %s\n",
			spec, strerror(-err));
		return 2;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Create the ready file, holding our pid. */
static int touch_ready(const char *path)
{
	char buf[32];
	int fd, n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (write(fd, buf, n) != n) {
		close(fd);
		return -EIO;
	}
	return close(fd) ? -errno : 0;
}

/* Update the sequence counters for a packet carrying @seq. */
static void track_seq(struct recv_stats *s, uint32_t seq)
{
	int32_t d = (int32_t)(seq - s->next_seq);

	if (s->have_seq && d < 0) {
		s->out_of_order++;
		return;
	}
	if (s->have_seq && d > 0) {
		s->gaps++;
		s->lost += (uint32_t)d;
	}
	s->have_seq = 1;
	s->next_seq = seq + 1;
}

/* Print descriptor flags as NAME,NAME or "-". */
static void print_flags(__u32 flags)
{
	static const struct {
		__u32		bit;
		const char	*name;
	} names[] = {
		{ VJ_DESC_F_L2,		"L2" },
		{ VJ_DESC_F_TRUNC,	"TRUNC" },
		{ VJ_DESC_F_DRIVER,	"DRIVER" },
		{ VJ_DESC_F_XDP,	"XDP" },
		{ VJ_DESC_F_FILTERED,	"FILTERED" },
		{ VJ_DESC_F_CSUM_OK,	"CSUM_OK" },
		{ VJ_DESC_F_DIRECT,	"DIRECT" },
		{ VJ_DESC_F_HELD,	"HELD" },
	};
	const char *sep = "";
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (flags & names[i].bit) {
			printf("%s%s", sep, names[i].name);
			sep = ",";
			flags &= ~names[i].bit;
		}
	}
	if (flags)
		printf("%s0x%x", sep, flags);
	else if (!*sep)
		printf("-");
}

/* Account for, check and print one received packet. */
static void handle(struct vj_chan *ch, const struct vj_desc *ring_desc,
		   const struct recv_opts *o, struct recv_stats *s)
{
	const void *pkt, *payload = NULL;
	struct vj_desc d;
	__u32 len, plen = 0;
	uint32_t seq = 0;
	int ok = 0;

	vj_desc_copy(ring_desc, &d);
	pkt = vj_pkt(ch, &d, &len);
	if (!pkt)
		return;
	s->packets++;
	s->bytes += len;
	payload = vj_udp_payload(&d, pkt, len, &plen);
	if (payload && plen >= 4)
		ok = !vj_pattern_check(payload, plen, &seq);

	if (o->verify) {
		if (ok)
			track_seq(s, seq);
		else
			s->bad_payload++;
	}
	if (capture && !capture_err) {
		capture_err = capture_packet(capture, &d, pkt, len);
		if (capture_err)
			stop = 1;
	}
	if (o->quiet || (o->write_file && !o->print))
		return;
	printf("ifindex=%u len=%u flags=", d.ifindex, len);
	print_flags(d.flags);
	if (payload && plen >= 4)
		printf(" seq=%u%s", seq, ok ? "" : " bad");
	else
		printf(" seq=-");
	printf(" tstamp=%llu\n", (unsigned long long)d.tstamp);
}

static void summary(struct vj_chan *ch, const struct recv_opts *o,
		    const struct recv_stats *s)
{
	struct vj_statistics st;
	int err;

	printf("received %llu\n", s->packets);
	printf("bytes %llu\n", s->bytes);
	if (o->verify) {
		printf("bad_payload %llu\n", s->bad_payload);
		printf("out_of_order %llu\n", s->out_of_order);
		printf("gaps %llu\n", s->gaps);
		printf("lost %llu\n", s->lost);
	}
	printf("bad_desc %llu\n", (unsigned long long)ch->bad_desc);
	err = vj_chan_stats(ch, &st);
	if (err) {
		fprintf(stderr, "vjchan-recv: VJ_STATISTICS: %s\n",
			strerror(-err));
		return;
	}
	printf("rx_packets %llu\n", (unsigned long long)st.rx_packets);
	printf("rx_bytes %llu\n", (unsigned long long)st.rx_bytes);
	printf("rx_ring_full %llu\n", (unsigned long long)st.rx_ring_full);
	printf("rx_invalid_cons %llu\n",
	       (unsigned long long)st.rx_invalid_cons);
	printf("rx_truncated %llu\n", (unsigned long long)st.rx_truncated);
	printf("rx_driver %llu\n", (unsigned long long)st.rx_driver);
	printf("rx_direct %llu\n", (unsigned long long)st.rx_direct);
	printf("rx_hook %llu\n", (unsigned long long)st.rx_hook);
	printf("rx_xdp %llu\n", (unsigned long long)st.rx_xdp);
	printf("rx_filtered %llu\n", (unsigned long long)st.rx_filtered);
}

/* Start the -w file; reports its own errors. */
static int open_capture(struct vj_chan *ch, const struct recv_opts *o,
			struct capture *cap)
{
	char text[VJ_FLOW_STRLEN] = "";
	struct vj_flow flow;
	__u32 snaplen = ch->buf_size;
	int err;

	if (o->snaplen && o->snaplen < snaplen)
		snaplen = o->snaplen;
	if (!vj_chan_getflow(ch, &flow))
		vj_flow_format(&flow, text, sizeof(text));
	/* A reader that goes away is a write error (EPIPE), not a signal. */
	signal(SIGPIPE, SIG_IGN);
	err = capture_open(cap, o->write_file, snaplen, text);
	if (err) {
		fprintf(stderr, "vjchan-recv: %s: %s\n", o->write_file,
			err == -ENOTTY ? "standard output is a terminal" :
			strerror(-err));
		return err;
	}
	capture = cap;
	return 0;
}

/* Receive until the count, the deadline or a signal; return the error. */
static int receive(struct vj_chan *ch, const struct recv_opts *o,
		   struct recv_stats *s)
{
	double deadline = o->seconds ? now() + o->seconds : 0, left;
	unsigned int i, n, max;
	int timeout, ret;
	__u32 idx;

	while (!stop && (!o->count || s->packets < o->count)) {
		timeout = SLICE_MS;
		if (deadline) {
			left = deadline - now();
			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = left * 1000 + 1;
		}
		ret = vj_wait(ch, timeout);
		if (ret == -EINTR || !ret)
			continue;
		if (ret < 0)
			return ret;

		max = BATCH;
		if (o->count && o->count - s->packets < max)
			max = o->count - s->packets;
		n = vj_peek(ch, max, &idx);
		for (i = 0; i < n; i++)
			handle(ch, vj_desc_at(ch, idx + i), o, s);
		vj_release(ch, n);
		if (capture && !capture_err)
			capture_err = capture_flush(capture);
		if (capture_err)
			return capture_err;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct recv_opts o;
	struct recv_stats s;
	char text[VJ_FLOW_STRLEN];
	struct sigaction sa;
	struct vj_flow flow;
	unsigned long long ch_bad_desc;
	struct vj_chan ch;
	struct capture cap;
	int err, cerr, bad;

	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	err = parse_args(argc, argv, &o, &flow);
	if (err)
		return err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	err = vj_chan_open(&ch, &o.ring);
	if (err) {
		fprintf(stderr, "vjchan-recv: channel: %s%s\n", strerror(-err),
			err == -EAFNOSUPPORT ?
			" (is the vjchan module loaded?)" : "");
		return 1;
	}
	err = vj_chan_bind_flags(&ch, &flow, o.bind_flags |
				 (o.direct ? VJ_BIND_F_DIRECT : 0));
	if (err) {
		vj_flow_format(&flow, text, sizeof(text));
		fprintf(stderr, "vjchan-recv: bind %s: %s\n", text,
			strerror(-err));
		goto out;
	}
	err = vj_chan_map(&ch);
	if (err) {
		fprintf(stderr, "vjchan-recv: mmap: %s\n", strerror(-err));
		goto out;
	}
	if (!o.quiet && !vj_chan_getflow(&ch, &flow) &&
	    vj_flow_format(&flow, text, sizeof(text)) > 0)
		fprintf(stderr, "vjchan-recv: receiving %s\n", text);
	if (o.write_file) {
		err = open_capture(&ch, &o, &cap);
		if (err)
			goto out;
	}
	if (o.ready_file) {
		err = touch_ready(o.ready_file);
		if (err) {
			fprintf(stderr, "vjchan-recv: %s: %s\n", o.ready_file,
				strerror(-err));
			goto out;
		}
	}

	err = receive(&ch, &o, &s);
	if (err && err == capture_err)
		fprintf(stderr, "vjchan-recv: write %s: %s\n", o.write_file,
			strerror(-err));
	else if (err == -ENODEV)
		fprintf(stderr, "vjchan-recv: device gone\n");
	else if (err)
		fprintf(stderr, "vjchan-recv: wait: %s\n", strerror(-err));
	if (capture) {
		cerr = capture_close(capture);
		if (cerr && !err)
			fprintf(stderr, "vjchan-recv: write %s: %s\n",
				o.write_file, strerror(-cerr));
		err = err ?: cerr;
		capture = NULL;
	}
	summary(&ch, &o, &s);
out:
	if (capture)
		capture_close(capture);
	ch_bad_desc = ch.bad_desc;
	vj_chan_close(&ch);
	bad = o.verify && (s.bad_payload || s.out_of_order || s.gaps ||
			   ch_bad_desc || (o.count && s.packets < o.count));
	return err || bad ? 1 : 0;
}
