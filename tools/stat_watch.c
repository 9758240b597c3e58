// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-stat -w: per-channel rates, sampled every interval (stat_watch.h).
 *
 * Channels are told apart by their socket inode.  The counters shown are
 * found by name: rx_packets (pkts/s), rx_bytes (bytes/s), the drop
 * counters (drops/s, see stat_is_drop()) and every other rx_* counter of
 * the kernel's table, per-path ones included, each as NAME/s.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stat_print.h"
#include "stat_watch.h"

static volatile sig_atomic_t watch_stop;

static void on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long num(const char *s)
{
	return s ? strtoull(s, NULL, 10) : 0;
}

/* The row of @t with the inode of row @row of @cur, or -1. */
static long find_row(const struct stat_table *t, const struct stat_table *cur,
		     size_t row)
{
	const char *inode = stat_cell(cur, row, stat_table_col(cur, "inode"));
	int col = stat_table_col(t, "inode");
	size_t r;

	if (!inode)
		return -1;
	for (r = 0; r < t->nrows; r++) {
		const char *s = stat_cell(t, r, col);

		if (s && !strcmp(s, inode))
			return r;
	}
	return -1;
}

/*
 * Change of counter column @col of @cur (row @row) since @prev (row @pr,
 * or -1 for a new channel).  A counter that went down (a new channel
 * with a reused inode) counts from zero.
 */
static unsigned long long delta(const struct stat_table *cur, size_t row,
				int col, const struct stat_table *prev,
				long pr)
{
	unsigned long long now = num(stat_cell(cur, row, col)), before = 0;

	if (pr >= 0)
		before = num(stat_cell(prev, pr,
				       stat_table_col(prev, cur->names[col])));
	return now >= before ? now - before : now;
}

/* The "other" counters: shown as NAME/s after pkts, bytes and drops. */
static int is_other(const struct stat_table *t, size_t c)
{
	return stat_is_counter(t, c) && !stat_is_drop(t, c) &&
	       strcmp(t->names[c], "rx_packets") &&
	       strcmp(t->names[c], "rx_bytes");
}

/* Width of the NAME/s column of counter @c: its label, at least 10. */
static int other_width(const struct stat_table *t, size_t c)
{
	int n = strlen(t->names[c]) - 1;	/* "rx_" off, "/s" on */

	return n < 10 ? 10 : n > 60 ? 60 : n;
}

static void report_text(const struct stat_table *cur,
			const struct stat_table *prev, const int *keep,
			double secs, int numeric)
{
	int pk = stat_table_col(cur, "rx_packets");
	int by = stat_table_col(cur, "rx_bytes");
	char flow[256], when[32], label[64];
	unsigned long long drops;
	size_t r, c, n = 0;
	time_t now = time(NULL);
	int fw = 4;
	long pr;

	for (r = 0; r < cur->nrows; r++)
		n += keep[r];
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	printf("%s  interval %.2f s  %zu channel%s\n", when, secs, n,
	       n == 1 ? "" : "s");
	for (r = 0; r < cur->nrows; r++) {
		if (!keep[r])
			continue;
		stat_flow_text(cur, r, numeric, flow, sizeof(flow));
		if ((int)strlen(flow) > fw)
			fw = strlen(flow);
	}
	printf("%10s  %-*s %12s %14s %10s", "inode", fw, "flow", "pkts/s",
	       "bytes/s", "drops/s");
	for (c = 0; c < cur->ncols; c++) {
		if (is_other(cur, c)) {
			snprintf(label, sizeof(label), "%s/s", cur->names[c] + 3);
			printf(" %*s", other_width(cur, c), label);
		}
	}
	printf("\n");
	for (r = 0; r < cur->nrows; r++) {
		if (!keep[r])
			continue;
		pr = find_row(prev, cur, r);
		stat_flow_text(cur, r, numeric, flow, sizeof(flow));
		drops = 0;
		for (c = 0; c < cur->ncols; c++)
			if (stat_is_drop(cur, c))
				drops += delta(cur, r, c, prev, pr);
		printf("%10s  %-*s %12.1f %14.1f %10.1f",
		       stat_cell(cur, r, stat_table_col(cur, "inode")) ?: "?",
		       fw, flow,
		       pk >= 0 ? delta(cur, r, pk, prev, pr) / secs : 0.0,
		       by >= 0 ? delta(cur, r, by, prev, pr) / secs : 0.0,
		       drops / secs);
		for (c = 0; c < cur->ncols; c++)
			if (is_other(cur, c))
				printf(" %*.1f", other_width(cur, c),
				       delta(cur, r, c, prev, pr) / secs);
		printf("\n");
	}
	printf("\n");
}

static void report_json(const struct stat_table *cur,
			const struct stat_table *prev, const int *keep,
			double secs, int numeric)
{
	int pk = stat_table_col(cur, "rx_packets");
	int by = stat_table_col(cur, "rx_bytes");
	const char *sep = "", *inode, *s2;
	unsigned long long drops;
	struct timespec ts;
	char flow[256];
	size_t r, c;
	long pr;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("{\"time\": %lld.%06ld, \"interval\": %.6f, \"channels\": [",
	       (long long)ts.tv_sec, ts.tv_nsec / 1000, secs);
	for (r = 0; r < cur->nrows; r++) {
		if (!keep[r])
			continue;
		pr = find_row(prev, cur, r);
		stat_flow_text(cur, r, numeric, flow, sizeof(flow));
		inode = stat_cell(cur, r, stat_table_col(cur, "inode"));
		drops = 0;
		for (c = 0; c < cur->ncols; c++)
			if (stat_is_drop(cur, c))
				drops += delta(cur, r, c, prev, pr);
		printf("%s{\"inode\": %s, \"flow\": ", sep,
		       inode && stat_is_number(inode) ? inode : "null");
		stat_json_string(flow);
		printf(", \"packets_per_s\": %.3f, \"bytes_per_s\": %.3f, \"drops_per_s\": %.3f",
		       pk >= 0 ? delta(cur, r, pk, prev, pr) / secs : 0.0,
		       by >= 0 ? delta(cur, r, by, prev, pr) / secs : 0.0,
		       drops / secs);
		printf(", \"per_s\": {");
		for (s2 = "", c = 0; c < cur->ncols; c++) {
			if (!stat_is_counter(cur, c))
				continue;
			printf("%s", s2);
			stat_json_string(cur->names[c]);
			printf(": %.3f", delta(cur, r, c, prev, pr) / secs);
			s2 = ", ";
		}
		printf("}, \"delta\": {");
		for (s2 = "", c = 0; c < cur->ncols; c++) {
			if (!stat_is_counter(cur, c))
				continue;
			printf("%s", s2);
			stat_json_string(cur->names[c]);
			printf(": %llu", delta(cur, r, c, prev, pr));
			s2 = ", ";
		}
		printf("}}");
		sep = ", ";
	}
	printf("]}\n");
}

/* Read the table; print why not and return nonzero on failure. */
static int sample(const struct stat_watch_opts *o, struct stat_table *t,
		  double *when)
{
	int err = stat_table_read(t, o->path, STAT_HEADER);

	*when = mono_now();
	if (err)
		fprintf(stderr, "vjchan-stat: %s: %s\n", o->path,
			err == -EBADMSG ? "no header line" : strerror(-err));
	return err;
}

int stat_watch(const struct stat_watch_opts *o)
{
	struct stat_table prev, cur;
	double t_prev, t_cur, next;
	unsigned long reports = 0;
	struct sigaction sa;
	struct timespec ts;
	int *keep, ret = 0;
	size_t r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (sample(o, &prev, &t_prev))
		return 1;
	if (stat_filter_check(o->filter, &prev)) {
		stat_table_free(&prev);
		return 1;
	}
	next = t_prev;
	while (!watch_stop && (!o->count || reports < o->count)) {
		next += o->interval;
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - ts.tv_sec) * 1e9);
		while (!watch_stop &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		if (watch_stop)
			break;
		if (sample(o, &cur, &t_cur)) {
			ret = 1;
			break;
		}
		keep = stat_xalloc(cur.nrows, sizeof(int));
		for (r = 0; r < cur.nrows; r++)
			keep[r] = stat_filter_match(o->filter, &cur, r);
		if (o->json)
			report_json(&cur, &prev, keep, t_cur - t_prev,
				    o->numeric);
		else
			report_text(&cur, &prev, keep, t_cur - t_prev,
				    o->numeric);
		free(keep);
		reports++;
		stat_table_free(&prev);
		prev = cur;
		t_prev = t_cur;
	}
	stat_table_free(&prev);
	return ret;
}
