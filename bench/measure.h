/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest-side measurements of the benchmark share, vjrx (receive
 * cells) and vjtx (transmit cells): the clock, guest CPU time from
 * /proc/stat, the hand-shake files with the host (bench/lib.sh) and the
 * CSV rows.
 *
 * Hand-shake files live in the vm.sh output share (9p, cache=none) and are
 * named WHAT-K for cell K; each is written whole (a temporary file, then
 * rename()).  See rx.h and tx_main.c for the ones each side writes.
 */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <stddef.h>

struct cpu {
	unsigned long long	user, nice, sys, idle, iowait, irq, softirq,
				steal;
};

/* Guest CPU seconds between two struct cpu, see cpu_use(). */
struct cpu_use {
	double	busy;		/* online CPUs x wall time - idle - iowait */
	double	user;		/* sampled: user + nice */
	double	sys;		/* sampled: system + irq */
	double	softirq;	/* sampled: softirq */
	double	unsampled;	/* busy - every sampled column */
};

double mono(void);			/* CLOCK_MONOTONIC, seconds */
void sleep_for(double secs);
int read_cpu(struct cpu *c);		/* the "cpu" line of /proc/stat */
void cpu_use(const struct cpu *a, const struct cpu *b, double secs,
	     struct cpu_use *u);

void put_file(const char *dir, unsigned int cell, const char *what,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Wait up to @secs for WHAT-K; its first line (no newline) into @line. */
int wait_file(const char *dir, unsigned int cell, const char *what,
	      double secs, char *line, size_t size);
/* A number from a "key=value ..." line, -1 if missing. */
double keyval(const char *line, const char *key);
/* Commas, quotes and newlines become ';' (the CSV has no quoting). */
void csv_clean(char *s);
/* Append @line to DIR/FILE and echo it on standard output. */
void append_row(const char *dir, const char *file, const char *line);

/*
 * What vjrx and vjtx are both told about a cell: -s SIZE, -r RATE,
 * -k CELL, -w WARMUP, -T SECONDS, -o DIR, --smp N, --run N.
 */
struct cell_cfg {
	const char	*outdir;
	unsigned int	size, rate, cell, smp, run;
	double		warmup, seconds;
};

/* Their getopt_long() letters and long options (--smp is 1, --run 2). */
#define CELL_SHORT_OPTS	"s:r:k:w:T:o:"
#define CELL_LONG_OPTS							\
	{ "size",	required_argument, NULL, 's' },			\
	{ "rate",	required_argument, NULL, 'r' },			\
	{ "cell",	required_argument, NULL, 'k' },			\
	{ "warmup",	required_argument, NULL, 'w' },			\
	{ "seconds",	required_argument, NULL, 'T' },			\
	{ "out",	required_argument, NULL, 'o' },			\
	{ "smp",	required_argument, NULL, 1 },			\
	{ "run",	required_argument, NULL, 2 }

/* The defaults: 64 B, cell 1, 1 s + 4 s, online CPUs, $VJ_OUT. */
void cell_cfg_init(struct cell_cfg *c);
/* Takes option @opt (@arg its argument) if it is one of the above. */
int cell_cfg_opt(struct cell_cfg *c, int opt, const char *arg);
/* Whether @c can be measured: an output directory, sizes in range. */
int cell_cfg_ok(const struct cell_cfg *c);

#endif /* BENCH_MEASURE_H */
