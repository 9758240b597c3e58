/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vjchan-stat: which channels to show (FILTER), and a channel's flow id as
 * text.
 */
#ifndef VJ_STAT_FILTER_H
#define VJ_STAT_FILTER_H

#include <stddef.h>

#include "stat_table.h"

struct stat_term;

/**
 * struct stat_filter - terms that all must hold
 * @terms: the terms
 * @n: how many; none selects every channel
 */
struct stat_filter {
	struct stat_term	*terms;
	size_t			n;
};

/**
 * stat_filter_parse() - read FILTER words
 * @f: filter to fill
 * @argc: words
 * @argv: "KIND" (ip4 ip6 udp4 udp6 tcp4 tcp6 udplite4 udplite6 sctp4 sctp6
 *	dccp4 dccp6) or "KEY VALUE" pairs: family, proto, sport, dport,
 *	saddr, daddr (ADDR or ADDR/PREFIX), dev, ifindex, path, or the name
 *	of any column of /proc/net/vjchan; a VALUE of "*" selects wildcards
 *
 * Prints what is wrong to stderr.
 *
 * Return: 0 or -EINVAL.
 */
int stat_filter_parse(struct stat_filter *f, int argc, char **argv);

/**
 * stat_filter_check() - check the filter against a channel table's header
 * @f: filter
 * @t: /proc/net/vjchan as read
 *
 * Every KEY must be a column of @t (path P: rx_P), else what is missing is
 * printed to stderr.
 *
 * Return: 0 or -ENOENT.
 */
int stat_filter_check(const struct stat_filter *f,
		      const struct stat_table *t);

/* Does channel @row of @t pass every term? */
int stat_filter_match(const struct stat_filter *f,
		      const struct stat_table *t, size_t row);

void stat_filter_free(struct stat_filter *f);

/**
 * stat_flow_text() - a channel's flow id as vj_flow_parse() text
 * @t: /proc/net/vjchan as read
 * @row: the channel
 * @numeric: "ifindex N" rather than "dev NAME"
 * @buf: output
 * @len: its size
 */
void stat_flow_text(const struct stat_table *t, size_t row, int numeric,
		    char *buf, size_t len);

#endif /* VJ_STAT_FILTER_H */
