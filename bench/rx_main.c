// SPDX-License-Identifier: GPL-2.0
/*
 * vjrx: guest-side receivers of the vjchan benchmark: the measurement of
 * one cell, and the table of receive methods (see rx.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "vjchan.h"
#include "proc.h"
#include "rx.h"

static const struct rx_mode *const modes[] = {
	&rx_udp_recvmmsg,
	&rx_udp_vjchan,
	&rx_udp_vjchan_xdp,
	&rx_udp_vjchan_filtered,
	&rx_udp_reuseport_1,
	&rx_udp_reuseport_2,
	&rx_udp_vjchan_group_1,
	&rx_udp_vjchan_group_2,
	&rx_packet_v3,
	&rx_afxdp_copy,
	&rx_afxdp_zc,
	&rx_vjchan_hook,
	&rx_vjchan_hook_crowd,
	&rx_vjchan_driver,
	&rx_vjchan_direct,
	&rx_vjchan_filtered,
	&rx_vjchan_sanctioned,
	&rx_vjchan_xdp,
	&rx_xdp_drop,
};

#define NMODES	ARRAY_SIZE(modes)

void set_why(struct rx *rx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rx->why, sizeof(rx->why), fmt, ap);
	va_end(ap);
	csv_clean(rx->why);
}

/*
 * A mode names the path its packets take: of the @packets the channel
 * placed in its ring, @path came that way.  Any other is the cell's
 * failure.
 */
void rx_check_path(struct rx *rx, uint64_t path, uint64_t packets)
{
	if (path != packets)
		set_why(rx, "%llu of %llu packets did not come through the %s path",
			(unsigned long long)(packets - path),
			(unsigned long long)packets, rx->mode->name);
}

/*
 * The receiving loop: poll until told to stop; count the calls that
 * returned packets.  Returns 0, or the -errno that ended it (reason set).
 */
int rx_run(struct rx *rx)
{
	while (!RD(rx->stop)) {
		int e = rx->mode->poll(rx, SLICE_MS);

		if (e > 0)
			WR(rx->cnt.calls, rx->cnt.calls + 1);
		if (e < 0) {
			set_why(rx, "%s poll: %s", rx->mode->name,
				strerror(-e));
			return e;
		}
	}
	return 0;
}

static void snap(struct rx *rx, struct snap *s)
{
	if (rx->mode->counts)
		rx->mode->counts(rx);
	s->cnt.pkts = RD(rx->cnt.pkts);
	s->cnt.bytes = RD(rx->cnt.bytes);
	s->cnt.max_ctr = RD(rx->cnt.max_ctr);
	s->cnt.bad = RD(rx->cnt.bad);
	s->cnt.stale = RD(rx->cnt.stale);
	s->cnt.calls = RD(rx->cnt.calls);
	s->t = mono();
	read_cpu(&s->cpu);
}

/* The clock: warm-up, window, hand-shake; then tell the receiver to stop. */
static void *clock_thread(void *arg)
{
	struct rx *rx = arg;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 30;
	while (sem_timedwait(&rx->first, &ts)) {
		if (errno == EINTR)
			continue;
		set_why(rx, "no frame of this cell within 30 s");
		put_file(rx->cfg.outdir, rx->cfg.cell, "win", "nothing\n");
		wait_file(rx->cfg.outdir, rx->cfg.cell, "done", 60, rx->done,
			  sizeof(rx->done));
		WR(rx->stop, 1);
		return NULL;
	}
	WR(rx->phase, PH_WARMUP);
	sleep_for(rx->cfg.warmup);
	snap(rx, &rx->s0);
	WR(rx->phase, PH_WINDOW);
	sleep_for(rx->cfg.seconds);
	WR(rx->phase, PH_DRAIN);
	snap(rx, &rx->s1);
	put_file(rx->cfg.outdir, rx->cfg.cell, "win", "over\n");
	if (wait_file(rx->cfg.outdir, rx->cfg.cell, "done", 60, rx->done,
		      sizeof(rx->done)))
		set_why(rx, "the host did not answer win-%u", rx->cfg.cell);
	/* Frames still queued between host and guest. */
	sleep_for(0.3);
	WR(rx->stop, 1);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* A number from the host's generator result line, -1 if missing. */
static double done_field(const struct rx *rx, const char *key)
{
	return keyval(rx->done, key);
}

#define CSV_HEADER \
	"smp,mode,size,kind,rate,run,status,reason,window_s,rx_pkts," \
	"offered_in_window,seq_span,pps,loss_pct,cpu_busy_s,cpu_us_per_pkt," \
	"user_us_per_pkt,sys_us_per_pkt,softirq_us_per_pkt," \
	"unsampled_us_per_pkt,pkts_per_call,lat_stamp," \
	"lat_samples,lat_p50_us,lat_p99_us,gen_sent,rx_total,bad,stale," \
	"method_drops,host_rcvbuf_drops"

static void write_row(struct rx *rx, const char *status)
{
	char line[2048], lat[128] = ",,";
	double dt = rx->s1.t - rx->s0.t;
	uint64_t pkts = rx->s1.cnt.pkts - rx->s0.cnt.pkts;
	uint64_t span = rx->s1.cnt.max_ctr - rx->s0.cnt.max_ctr;
	double gen_secs = done_field(rx, "secs"), gen_sent = done_field(rx, "sent");
	double offered;
	struct cpu_use u;
	uint64_t calls = rx->s1.cnt.calls - rx->s0.cnt.calls;
	double per = pkts ? 1e6 / pkts : 0, loss;
	char ppc[32] = "";

	if (!rx->s1.t) {
		snprintf(line, sizeof(line),
			     "%u,%s,%u,%s,%u,%u,%s,%s,,,,,,,,,,,,,,%s,,,,,,,,,\n",
			     rx->cfg.smp, rx->label, rx->cfg.size, rx->kind,
			     rx->cfg.rate, rx->cfg.run, status, rx->why,
			     rx->mode->stamp ? "yes" : "none");
		goto out;
	}
	/*
	 * Loss: the gaps among the sequence numbers the window delivered, a
	 * fraction that does not depend on when exactly the window's ends
	 * fell (queues are FIFO).  The span itself is not the count offered
	 * in the window: it runs short while a receive queue fills and long
	 * while one drains.  That count, the generator's measured rate times
	 * the window, is reported beside it.
	 */
	cpu_use(&rx->s0.cpu, &rx->s1.cpu, dt, &u);
	offered = gen_secs > 0 && gen_sent >= 0 ? gen_sent / gen_secs * dt : -1;
	loss = span ? 100.0 * (1.0 - (double)pkts / span) : 0;
	if (loss < 0)
		loss = 0;
	/* Packets per receive call that returned any: the batching achieved. */
	if (calls)
		snprintf(ppc, sizeof(ppc), "%.1f", (double)pkts / calls);
	if (rx->lat && rx->mode->stamp && rx->nlat) {
		qsort(rx->lat_ns, rx->nlat, sizeof(rx->lat_ns[0]), cmp_i64);
		snprintf(lat, sizeof(lat), "%u,%.1f,%.1f", rx->nlat,
			 rx->lat_ns[rx->nlat / 2] / 1e3,
			 rx->lat_ns[(size_t)(rx->nlat * 0.99)] / 1e3);
	} else if (rx->lat && rx->mode->stamp) {
		snprintf(lat, sizeof(lat), "0,,");
	}
	snprintf(line, sizeof(line),
		     "%u,%s,%u,%s,%u,%u,%s,%s,%.3f,%llu,%.0f,%llu,%.0f,%.2f,%.3f,"
		     "%.2f,%.2f,%.2f,%.2f,%.2f,%s,%s,%s,%.0f,%llu,%llu,%llu,%s,%.0f\n",
		     rx->cfg.smp, rx->label, rx->cfg.size, rx->kind, rx->cfg.rate,
		     rx->cfg.run, status, rx->why, dt, (unsigned long long)pkts,
		     offered, (unsigned long long)span, dt > 0 ? pkts / dt : 0,
		     loss, u.busy,
		     u.busy * per, u.user * per, u.sys * per, u.softirq * per,
		     u.unsampled * per, ppc,
		     rx->mode->stamp ? "yes" : "none", lat,
		     gen_sent, (unsigned long long)rx->cnt.pkts,
		     (unsigned long long)rx->cnt.bad,
		     (unsigned long long)rx->cnt.stale, rx->drops,
		     done_field(rx, "host_rcvbuf_drops"));
out:
	append_row(rx->cfg.outdir, "rows.csv", line);
}

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
"usage: vjrx [options] MODE[@WHERE] IFNAME\n"
"Measure one benchmark cell in the guest (see bench/guest.sh).\n"
"\n"
"  -s, --size N       UDP payload bytes (default 64)\n"
"  -r, --rate PPS     offered load, passed to the host (0: flat out)\n"
"  -k, --cell K       cell number, names the hand-shake files (default 1)\n"
"  -w, --warmup S     seconds from the first frame to the window (default 1)\n"
"  -T, --seconds S    length of the window (default 4)\n"
"  -L, --latency      a latency cell: take time stamps\n"
"  -o, --out DIR      hand-shake files and rows.csv (default $VJ_OUT)\n"
"  -B, --bpf FILE     XDP object (default: xdp_bench.bpf.o beside vjrx)\n"
"      --smp N --run N  labels for the row\n"
"      --header       print the CSV header and exit\n"
"      --list         print the modes and exit\n"
"\n"
"MODE[@WHERE]: the row names the method MODE@WHERE (e.g. udp-recvmmsg@vjnet)\n"
"MODE:");
	for (i = 0; i < NMODES; i++)
		fprintf(f, " %s", modes[i]->name);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		CELL_LONG_OPTS,
		{ "latency",	no_argument,	   NULL, 'L' },
		{ "bpf",	required_argument, NULL, 'B' },
		{ "header",	no_argument,	   NULL, 3 },
		{ "list",	no_argument,	   NULL, 4 },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct rx rx;
	char bpf[PATH_MAX];
	pthread_t clk;
	unsigned int i;
	double maxsec;
	int c, e;

	cell_cfg_init(&rx.cfg);
	rx.kind = "tput";
	while ((c = getopt_long(argc, argv, CELL_SHORT_OPTS "LB:h", lopts,
				NULL)) != -1) {
		if (cell_cfg_opt(&rx.cfg, c, optarg))
			continue;
		switch (c) {
		case 'L':
			rx.lat = 1;
			rx.kind = "lat";
			break;
		case 'B':
			rx.bpf_obj = optarg;
			break;
		case 3:
			puts(CSV_HEADER);
			return 0;
		case 4:
			for (i = 0; i < NMODES; i++)
				puts(modes[i]->name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2 || !cell_cfg_ok(&rx.cfg)) {
		usage(stderr);
		return 2;
	}
	/* MODE@WHERE: the row's method is the whole word (e.g. the same
	 * receiver on another NIC driver), the receiver is MODE.
	 */
	rx.label = argv[optind];
	for (i = 0; i < NMODES; i++)
		if (!strncmp(rx.label, modes[i]->name,
			     strcspn(rx.label, "@")) &&
		    !modes[i]->name[strcspn(rx.label, "@")])
			rx.mode = modes[i];
	if (!rx.mode) {
		fprintf(stderr, "vjrx: unknown mode '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	rx.ifname = argv[optind + 1];
	rx.ifindex = if_nametoindex(rx.ifname);
	rx.tag = rx.cfg.cell & ((1U << BENCH_TAG_BITS) - 1);
	if (!rx.bpf_obj) {
		ssize_t n = readlink("/proc/self/exe", bpf, sizeof(bpf) - 32);
		char *slash;

		bpf[n > 0 ? n : 0] = 0;
		slash = strrchr(bpf, '/');
		slash = slash ? slash + 1 : bpf;
		snprintf(slash, sizeof(bpf) - (slash - bpf), "xdp_bench.bpf.o");
		rx.bpf_obj = bpf;
	}
	sem_init(&rx.first, 0, 0);
	rx.lat_ns = rx.lat ? calloc(MAX_LAT, sizeof(*rx.lat_ns)) : NULL;
	if (rx.lat && !rx.lat_ns)
		return 1;
	libbpf_set_print(NULL);

	if (!rx.ifindex) {
		set_why(&rx, "no interface %s", rx.ifname);
		e = -ENODEV;
	} else {
		e = rx.mode->open(&rx);
	}
	if (e) {
		rx.mode->close(&rx);
		put_file(rx.cfg.outdir, rx.cfg.cell, "skip", "%s\n", rx.why);
		write_row(&rx, rx.unsupported ? "unsupported" : "fail");
		return rx.unsupported ? 0 : 1;
	}

	maxsec = rx.cfg.warmup + rx.cfg.seconds + 60;
	pthread_create(&clk, NULL, clock_thread, &rx);
	put_file(rx.cfg.outdir, rx.cfg.cell, "ready",
		 "size=%u rate=%u maxsec=%.0f tag=%u flows=%u\n", rx.cfg.size,
		 rx.cfg.rate, maxsec, rx.tag, rx.mode->flows ?: 1);
	e = rx_run(&rx);
	pthread_join(clk, NULL);
	if (rx.mode->counts)
		rx.mode->counts(&rx);
	rx.mode->drops(&rx);
	rx.mode->close(&rx);
	/*
	 * Anything that set a reason (poll error, no frames, no answer from
	 * the host, packets on the wrong path) fails the cell.
	 */
	if (e < 0 || !rx.s1.t || rx.why[0]) {
		write_row(&rx, "fail");
		return 1;
	}
	write_row(&rx, "ok");
	return 0;
}
