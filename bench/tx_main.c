// SPDX-License-Identifier: GPL-2.0
/*
 * vjtx: the transmit cells of the vjchan benchmark, in the guest.
 *
 * One process measures one cell: one kind of socket, one payload size.  It
 * binds BENCH_DST_IP:BENCH_DPORT, connects to BENCH_SRC_IP:BENCH_SPORT (the
 * host, behind the benchmark NIC's static neighbour entry) and sends
 * sendmmsg() batches of 64 datagrams carrying the benchmark pattern, flat
 * out or at -r datagrams a second (a batch of 64 whenever 64 are due):
 * warm-up, then the measurement window, then it stops.  The frames of the window carry BENCH_WIN_BIT in their counter.
 * The host's sink (vjgen -R) checks and counts every frame that comes out
 * of the NIC, so the row has both what the sender handed to the kernel and
 * what reached the other side of the NIC.
 *
 *   udp-sendmmsg  an ordinary UDP socket, socket(AF_INET, SOCK_DGRAM, 0)
 *   udp-vjchan    a UDP channel socket, socket(AF_VJCHAN, SOCK_DGRAM,
 *                 VJ_PROTO_UDP4), default firewall mode: its sends go to
 *                 the port holder, the kernel's UDP output path
 *
 * Hand-shake with the host (bench/lib.sh), files in OUTDIR:
 *
 *   guest: ready-K  "size=S rate=0 maxsec=M tag=T sink=1": start the sink
 *   host:  go-K     the sink listens
 *   guest: skip-K   this cell sends nothing (set-up failed)
 *   guest: win-K    sending is over: stop the sink
 *   host:  done-K   the sink's result line (key=value ...)
 *
 * CPU per packet is guest busy time over the window (measure.c, as for the
 * receive cells) divided by the datagrams sent in the window.  Appends one
 * row to OUTDIR/tx.csv.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/vjchan.h>

#include "common.h"
#include "measure.h"
#include "pattern.h"
#include "proc.h"
#include "util.h"

#define BATCH		64

static const char *const modes[] = { "udp-sendmmsg", "udp-vjchan" };

struct tx_snap {
	double		t;
	struct cpu	cpu;
	unsigned long	win_sent, calls;
	long long	sndbuf_errors;
};

struct tx {
	const char	*mode;
	struct cell_cfg	cfg;
	unsigned int	tag;
	int		fd;
	unsigned long	sent, win_sent, calls, errors;
	int		last_err;
	struct tx_snap	s0, s1;
	char		why[256];
	char		done[512];
	uint8_t		bufs[BATCH][BENCH_MAX_PAYLOAD];
	struct mmsghdr	msgs[BATCH];
	struct iovec	iov[BATCH];
};

static void set_why(struct tx *tx, const char *what, int e)
{
	snprintf(tx->why, sizeof(tx->why), "%s: %s", what, strerror(e));
	csv_clean(tx->why);
}

static int tx_open(struct tx *tx)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct timeval tv = { 0, 100000 };
	int i;

	if (!strcmp(tx->mode, "udp-vjchan"))
		tx->fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC,
				VJ_PROTO_UDP4);
	else
		tx->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (tx->fd < 0) {
		set_why(tx, errno == EAFNOSUPPORT ?
			"socket (vjchan.ko not loaded?)" : "socket", errno);
		return -1;
	}
	/* A send that blocks longer than this returns, to keep the clock. */
	if (setsockopt(tx->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		set_why(tx, "setsockopt(SO_SNDTIMEO)", errno);
		return -1;
	}
	inet_pton(AF_INET, BENCH_DST_IP, &me.sin_addr);
	me.sin_port = htons(BENCH_DPORT);
	inet_pton(AF_INET, BENCH_SRC_IP, &to.sin_addr);
	to.sin_port = htons(BENCH_SPORT);
	if (bind(tx->fd, (struct sockaddr *)&me, sizeof(me))) {
		set_why(tx, "bind", errno);
		return -1;
	}
	if (connect(tx->fd, (struct sockaddr *)&to, sizeof(to))) {
		set_why(tx, "connect", errno);
		return -1;
	}
	for (i = 0; i < BATCH; i++) {
		tx->iov[i].iov_base = tx->bufs[i];
		tx->iov[i].iov_len = tx->cfg.size;
		tx->msgs[i].msg_hdr.msg_iov = &tx->iov[i];
		tx->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

static void snap(struct tx *tx, struct tx_snap *s)
{
	s->t = mono();
	s->win_sent = tx->win_sent;
	s->calls = tx->calls;
	s->sndbuf_errors = udp_snmp("SndbufErrors");
	read_cpu(&s->cpu);
}

/* Send until the window is over; 0, or -1 with tx->why set. */
static int tx_loop(struct tx *tx)
{
	double t0 = mono(), t, next = 0;
	double w0 = t0 + tx->cfg.warmup, w1 = w0 + tx->cfg.seconds;
	int in_win = 0, i, n;

	for (;;) {
		t = mono();
		if (!in_win && t >= w0) {
			snap(tx, &tx->s0);
			in_win = 1;
		}
		if (t >= w1) {
			snap(tx, &tx->s1);
			return 0;
		}
		/* At a fixed rate too, whole batches: wait until 64 are due. */
		next = tx->cfg.rate ? t0 + (double)(tx->sent + BATCH) / tx->cfg.rate : t;
		if (next > t) {
			sleep_for(next - t < w1 - t ? next - t : w1 - t);
			continue;
		}
		n = BATCH;
		/* The counter leaves BENCH_WIN_BIT to mark the window. */
		for (i = 0; i < n; i++)
			payload_fill(tx->bufs[i], tx->cfg.size,
				     BENCH_SEQ(tx->tag,
					       ((tx->sent + i) & (BENCH_WIN_BIT - 1)) |
					       (in_win ? BENCH_WIN_BIT : 0)));
		n = sendmmsg(tx->fd, tx->msgs, n, 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			tx->errors++;
			tx->last_err = errno;
			if (tx->errors > 1000) {
				set_why(tx, "sendmmsg", errno);
				snap(tx, &tx->s1);
				return -1;
			}
			continue;
		}
		tx->sent += n;
		if (in_win) {
			tx->win_sent += n;
			tx->calls++;
		}
	}
}

#define CSV_HEADER \
	"smp,mode,size,rate,run,status,reason,window_s,sent,sent_pps," \
	"peer_rcvd,peer_pps,loss_pct,cpu_busy_s,cpu_us_per_pkt," \
	"user_us_per_pkt,sys_us_per_pkt,softirq_us_per_pkt," \
	"unsampled_us_per_pkt,pkts_per_call,send_errors,last_error," \
	"udp_sndbuf_errors,peer_total,peer_bad,peer_stale,host_rcvbuf_drops"

static void write_row(struct tx *tx, const char *status)
{
	double dt = tx->s1.t - tx->s0.t, per, loss = 0;
	double peer = keyval(tx->done, "window");
	unsigned long sent = tx->s1.win_sent - tx->s0.win_sent;
	unsigned long calls = tx->s1.calls - tx->s0.calls;
	char line[2048], ppc[32] = "", peer_s[32] = "", peer_pps[32] = "",
	     loss_s[32] = "";
	struct cpu_use u;

	if (!tx->s0.t || !tx->s1.t) {
		snprintf(line, sizeof(line),
			 "%u,%s,%u,%u,%u,%s,%s,,,,,,,,,,,,,,%lu,%s,,,,,\n",
			 tx->cfg.smp, tx->mode, tx->cfg.size, tx->cfg.rate, tx->cfg.run,
			 status, tx->why, tx->errors,
			 tx->last_err ? errname(tx->last_err) : "");
		append_row(tx->cfg.outdir, "tx.csv", line);
		return;
	}
	cpu_use(&tx->s0.cpu, &tx->s1.cpu, dt, &u);
	per = sent ? 1e6 / sent : 0;
	if (calls)
		snprintf(ppc, sizeof(ppc), "%.1f", (double)sent / calls);
	/* The sink's count of the window's frames: loss is what did not come. */
	if (peer >= 0 && dt > 0) {
		snprintf(peer_s, sizeof(peer_s), "%.0f", peer);
		snprintf(peer_pps, sizeof(peer_pps), "%.0f", peer / dt);
		if (sent)
			loss = 100.0 * (1.0 - peer / sent);
		snprintf(loss_s, sizeof(loss_s), "%.2f", loss < 0 ? 0 : loss);
	}
	snprintf(line, sizeof(line),
		 "%u,%s,%u,%u,%u,%s,%s,%.3f,%lu,%.0f,%s,%s,%s,%.3f,%.2f,%.2f,"
		 "%.2f,%.2f,%.2f,%s,%lu,%s,%lld,%.0f,%.0f,%.0f,%.0f\n",
		 tx->cfg.smp, tx->mode, tx->cfg.size, tx->cfg.rate, tx->cfg.run, status,
		 tx->why, dt, sent, dt > 0 ? sent / dt : 0, peer_s, peer_pps,
		 loss_s, u.busy, u.busy * per, u.user * per, u.sys * per,
		 u.softirq * per, u.unsampled * per, ppc, tx->errors,
		 tx->last_err ? errname(tx->last_err) : "",
		 tx->s0.sndbuf_errors >= 0 && tx->s1.sndbuf_errors >= 0 ?
		 tx->s1.sndbuf_errors - tx->s0.sndbuf_errors : -1LL,
		 keyval(tx->done, "received"), keyval(tx->done, "bad"),
		 keyval(tx->done, "stale"),
		 keyval(tx->done, "host_rcvbuf_drops"));
	append_row(tx->cfg.outdir, "tx.csv", line);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: vjtx [options] MODE\n"
"Measure one transmit cell in the guest (see bench/guest.sh).\n"
"\n"
"  -s, --size N       UDP payload bytes (default 64)\n"
"  -r, --rate PPS     datagrams a second (default 0: flat out)\n"
"  -k, --cell K       cell number, names the hand-shake files (default 1)\n"
"  -w, --warmup S     seconds of sending before the window (default 1)\n"
"  -T, --seconds S    length of the window (default 4)\n"
"  -o, --out DIR      hand-shake files and tx.csv (default $VJ_OUT)\n"
"      --smp N --run N  labels for the row\n"
"      --header       print the CSV header and exit\n"
"      --list         print the modes and exit\n"
"\n"
"MODE: udp-sendmmsg udp-vjchan\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		CELL_LONG_OPTS,
		{ "header",	no_argument,	   NULL, 3 },
		{ "list",	no_argument,	   NULL, 4 },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct tx tx;
	char go[64];
	unsigned int i;
	int c, e;

	cell_cfg_init(&tx.cfg);
	tx.fd = -1;
	while ((c = getopt_long(argc, argv, CELL_SHORT_OPTS "h", lopts,
				NULL)) != -1) {
		if (cell_cfg_opt(&tx.cfg, c, optarg))
			continue;
		switch (c) {
		case 3:
			puts(CSV_HEADER);
			return 0;
		case 4:
			for (i = 0; i < ARRAY_SIZE(modes); i++)
				puts(modes[i]);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1 || !cell_cfg_ok(&tx.cfg)) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(argv[optind], modes[i]))
			tx.mode = modes[i];
	if (!tx.mode) {
		fprintf(stderr, "vjtx: unknown mode '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	tx.tag = tx.cfg.cell & ((1U << BENCH_TAG_BITS) - 1);

	if (tx_open(&tx)) {
		put_file(tx.cfg.outdir, tx.cfg.cell, "skip", "%s\n", tx.why);
		write_row(&tx, "fail");
		return 1;
	}
	put_file(tx.cfg.outdir, tx.cfg.cell, "ready",
		 "size=%u rate=0 maxsec=%.0f tag=%u sink=1\n", tx.cfg.size,
		 tx.cfg.warmup + tx.cfg.seconds + 60, tx.tag);
	if (wait_file(tx.cfg.outdir, tx.cfg.cell, "go", 30, go, sizeof(go))) {
		snprintf(tx.why, sizeof(tx.why), "no sink on the host within 30 s");
		put_file(tx.cfg.outdir, tx.cfg.cell, "win", "nothing\n");
		wait_file(tx.cfg.outdir, tx.cfg.cell, "done", 60, tx.done,
			  sizeof(tx.done));
		close(tx.fd);
		write_row(&tx, "fail");
		return 1;
	}
	e = tx_loop(&tx);
	close(tx.fd);
	/* Frames still on their way through the NIC and QEMU. */
	sleep_for(0.5);
	put_file(tx.cfg.outdir, tx.cfg.cell, "win", "over\n");
	if (wait_file(tx.cfg.outdir, tx.cfg.cell, "done", 60, tx.done,
		      sizeof(tx.done)) && !tx.why[0])
		snprintf(tx.why, sizeof(tx.why),
			 "the host did not answer win-%u", tx.cfg.cell);
	if (!e && !tx.why[0] && tx.s1.win_sent == tx.s0.win_sent)
		snprintf(tx.why, sizeof(tx.why), "nothing sent in the window");
	write_row(&tx, e || tx.why[0] ? "fail" : "ok");
	return e || tx.why[0] ? 1 : 0;
}
