/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vjchan-stat -w: per-channel rates, sampled every interval.
 */
#ifndef VJ_STAT_WATCH_H
#define VJ_STAT_WATCH_H

#include "stat_filter.h"

/**
 * struct stat_watch_opts - what to watch
 * @path: the channel table (DIR/vjchan)
 * @interval: seconds between samples
 * @count: reports to print, 0 until SIGINT or SIGTERM
 * @json: one JSON object per report instead of a table
 * @numeric: interfaces as "ifindex N"
 * @filter: the channels to show
 */
struct stat_watch_opts {
	const char			*path;
	double				interval;
	unsigned long			count;
	int				json;
	int				numeric;
	const struct stat_filter	*filter;
};

/**
 * stat_watch() - print rates until done
 * @o: options
 *
 * Each report covers the channels present at its sample (filtered): the
 * change of every counter (rx_* column) since the previous sample, divided
 * by the time between the two reads.  A channel new since the previous
 * sample counts from zero.
 *
 * Return: 0, or 1 after printing why the table could not be read.
 */
int stat_watch(const struct stat_watch_opts *o);

#endif /* VJ_STAT_WATCH_H */
