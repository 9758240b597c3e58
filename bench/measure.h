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

#endif /* BENCH_MEASURE_H */
