// SPDX-License-Identifier: GPL-2.0
/*
 * The guest-side measurement shared by vjrx and vjtx (see measure.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vjchan.h"
#include "common.h"
#include "proc.h"
#include "util.h"
#include "measure.h"

double mono(void)
{
	return now_ns() * 1e-9;
}

void sleep_for(double secs)
{
	double until = mono() + secs;
	struct timespec ts;

	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int read_cpu(struct cpu *c)
{
	char buf[512];

	memset(c, 0, sizeof(*c));
	if (text_read("/proc/stat", buf, sizeof(buf)) <= 0)
		return -1;
	return sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		      &c->user, &c->nice, &c->sys, &c->idle, &c->iowait,
		      &c->irq, &c->softirq, &c->steal) == 8 ? 0 : -1;
}

/*
 * Guest CPU time.  The Debian kernel samples user/system/softirq time at the
 * tick (no CONFIG_IRQ_TIME_ACCOUNTING), which charges interrupt and softirq
 * work that interrupts the idle task to no column at all; but with NOHZ the
 * idle column is the measured idle sleep time, which excludes that work.  So
 * busy time is taken as online CPUs x wall time minus idle and iowait, and
 * the sampled columns are only a breakdown; "unsampled" is the difference,
 * mostly softirq work done while the CPU was otherwise idle.
 */
static unsigned long long sampled(const struct cpu *c)
{
	return c->user + c->nice + c->sys + c->irq + c->softirq + c->steal;
}

static unsigned long long idle(const struct cpu *c)
{
	return c->idle + c->iowait;
}

void cpu_use(const struct cpu *a, const struct cpu *b, double secs,
	     struct cpu_use *u)
{
	double hz = sysconf(_SC_CLK_TCK);
	double ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	u->busy = ncpu * secs - (idle(b) - idle(a)) / hz;
	if (u->busy < 0)
		u->busy = 0;
	u->user = (b->user + b->nice - a->user - a->nice) / hz;
	u->sys = (b->sys + b->irq - a->sys - a->irq) / hz;
	u->softirq = (b->softirq - a->softirq) / hz;
	u->unsampled = u->busy - (sampled(b) - sampled(a)) / hz;
}

void put_file(const char *dir, unsigned int cell, const char *what,
	      const char *fmt, ...)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%u", dir, what, cell);
	snprintf(tmp, sizeof(tmp), "%s/.%s-%u.tmp", dir, what, cell);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "bench: %s: %s\n", tmp, strerror(errno));
		return;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	rename(tmp, path);
}

int wait_file(const char *dir, unsigned int cell, const char *what,
	      double secs, char *line, size_t size)
{
	char path[PATH_MAX];
	double until = mono() + secs;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%u", dir, what, cell);
	while (mono() < until) {
		f = fopen(path, "r");
		if (f) {
			if (!fgets(line, size, f))
				line[0] = 0;
			line[strcspn(line, "\n")] = 0;
			fclose(f);
			return 0;
		}
		sleep_for(0.1);
	}
	return -1;
}

double keyval(const char *line, const char *key)
{
	double v;

	return vj_keyval_double(line, key, &v) ? -1 : v;
}

void csv_clean(char *s)
{
	for (; *s; s++)
		if (*s == ',' || *s == '"' || *s == '\n')
			*s = ';';
}

void append_row(const char *dir, const char *file, const char *line)
{
	char path[PATH_MAX];
	size_t n = strlen(line);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, n) != (ssize_t)n)
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	fputs(line, stdout);
}

void cell_cfg_init(struct cell_cfg *c)
{
	c->outdir = getenv("VJ_OUT");
	c->size = 64;
	c->rate = 0;
	c->cell = 1;
	c->smp = sysconf(_SC_NPROCESSORS_ONLN);
	c->run = 0;
	c->warmup = 1;
	c->seconds = 4;
}

int cell_cfg_opt(struct cell_cfg *c, int opt, const char *arg)
{
	switch (opt) {
	case 's':
		c->size = strtoul(arg, NULL, 0);
		return 1;
	case 'r':
		c->rate = strtoul(arg, NULL, 0);
		return 1;
	case 'k':
		c->cell = strtoul(arg, NULL, 0);
		return 1;
	case 'w':
		c->warmup = strtod(arg, NULL);
		return 1;
	case 'T':
		c->seconds = strtod(arg, NULL);
		return 1;
	case 'o':
		c->outdir = arg;
		return 1;
	case 1:
		c->smp = strtoul(arg, NULL, 0);
		return 1;
	case 2:
		c->run = strtoul(arg, NULL, 0);
		return 1;
	}
	return 0;
}

int cell_cfg_ok(const struct cell_cfg *c)
{
	return c->outdir && c->size >= BENCH_MIN_PAYLOAD &&
	       c->size <= BENCH_MAX_PAYLOAD && c->seconds > 0 &&
	       c->warmup >= 0;
}
