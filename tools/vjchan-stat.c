// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-stat: show /proc/net/vjchan (channels) and /proc/net/vjchan_pool
 * (the driver-API buffer pool) as aligned tables or as JSON, select
 * channels with a filter, or watch their rates.
 *
 * Columns are taken from the header line of /proc/net/vjchan, so columns
 * added by newer kernels are shown, filtered on and (rx_* counters)
 * watched without changes here.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_filter.h"
#include "stat_print.h"
#include "stat_table.h"
#include "stat_watch.h"

enum { OPT_COUNT = 256 };

struct stat_opts {
	int		want_chan;
	int		want_pool;
	int		json;
	int		numeric;
	int		watch;
	double		interval;
	unsigned long	count;
	const char	*dir;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: vjchan-stat [-c|-p] [-j] [-n] [-d DIR] [FILTER]\n"
"       vjchan-stat -w [-i SECS] [--count N] [-j] [-n] [-d DIR] [FILTER]\n"
"Show vjchan channels (DIR/vjchan) and the buffer pool (DIR/vjchan_pool).\n"
"\n"
"  -c, --channels       channels only\n"
"  -p, --pool           pool only\n"
"  -j, --json           JSON instead of tables\n"
"  -w, --watch          print each channel's rates every interval\n"
"  -i, --interval SECS  seconds between -w reports (default 1)\n"
"      --count N        stop after N -w reports\n"
"  -n, --numeric        interfaces as ifindex, not names (-w)\n"
"  -d, --dir DIR        read DIR instead of /proc/net\n"
"  -h, --help           this text\n"
"\n"
"FILTER selects channels; every term must hold:\n"
"  KIND                 ip4 ip6 udp4 udp6 tcp4 tcp6 udplite4 udplite6\n"
"                       sctp4 sctp6 dccp4 dccp6\n"
"  family F             ipv4 or ipv6\n"
"  proto P, sport N, dport N, ifindex N, dev NAME\n"
"  saddr A[/LEN], daddr A[/LEN]\n"
"  path P               channels with packets on receive path P (a\n"
"                       nonzero rx_P counter, e.g. path driver)\n"
"  COLUMN VALUE         any other column of DIR/vjchan\n"
"A VALUE of '*' selects channels with that field a wildcard.\n"
"\n"
"Exit status: 0, 1 if a file cannot be read or a filter names a column\n"
"the kernel does not have, 2 for bad usage.\n");
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{ "channels",	no_argument,		NULL, 'c' },
		{ "pool",	no_argument,		NULL, 'p' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "numeric",	no_argument,		NULL, 'n' },
		{ "watch",	no_argument,		NULL, 'w' },
		{ "interval",	required_argument,	NULL, 'i' },
		{ "count",	required_argument,	NULL, OPT_COUNT },
		{ "dir",	required_argument,	NULL, 'd' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+cpjnwi:d:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'c':
			o->want_pool = 0;
			break;
		case 'p':
			o->want_chan = 0;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'n':
			o->numeric = 1;
			break;
		case 'w':
			o->watch = 1;
			break;
		case 'i':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(o->interval >= 0.01 && o->interval <= 86400)) {
				fprintf(stderr, "vjchan-stat: bad interval: %s\n",
					optarg);
				return 2;
			}
			break;
		case OPT_COUNT:
			errno = 0;
			o->count = strtoul(optarg, &end, 10);
			if (errno || *end || *optarg < '1' || *optarg > '9') {
				fprintf(stderr, "vjchan-stat: bad count: %s\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			o->dir = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o->want_chan && !o->want_pool) {
		fprintf(stderr, "vjchan-stat: -c and -p exclude each other\n");
		return 2;
	}
	if (o->watch && !o->want_chan) {
		fprintf(stderr, "vjchan-stat: -w watches channels, not the pool\n");
		return 2;
	}
	if (optind < argc && !o->want_chan) {
		fprintf(stderr, "vjchan-stat: a filter selects channels, not the pool\n");
		return 2;
	}
	return 0;
}

static const char *why(int err)
{
	return err == -EBADMSG ? "no header line" : strerror(-err);
}

int main(int argc, char **argv)
{
	struct stat_opts o = {
		.want_chan = 1, .want_pool = 1, .interval = 1.0,
		.dir = "/proc/net",
	};
	struct stat_table chan = { 0 }, pool = { 0 };
	int have_chan = 0, have_pool = 0, *keep = NULL, err, ret = 1;
	struct stat_filter filter;
	char chan_path[4096], pool_path[4096];
	size_t r;

	err = parse_args(argc, argv, &o);
	if (err)
		return err;
	if (stat_filter_parse(&filter, argc - optind, argv + optind))
		return 2;
	snprintf(chan_path, sizeof(chan_path), "%s/vjchan", o.dir);
	snprintf(pool_path, sizeof(pool_path), "%s/vjchan_pool", o.dir);

	if (o.watch) {
		struct stat_watch_opts w = {
			.path = chan_path, .interval = o.interval,
			.count = o.count, .json = o.json,
			.numeric = o.numeric, .filter = &filter,
		};

		ret = stat_watch(&w);
		stat_filter_free(&filter);
		return ret;
	}

	if (o.want_chan) {
		err = stat_table_read(&chan, chan_path, STAT_HEADER);
		if (err) {
			fprintf(stderr, "vjchan-stat: %s: %s%s\n", chan_path,
				why(err), err == -ENOENT ?
				" (is the vjchan module loaded?)" : "");
			goto out;
		}
		have_chan = 1;
		if (stat_filter_check(&filter, &chan))
			goto out;
		keep = stat_xalloc(chan.nrows, sizeof(int));
		for (r = 0; r < chan.nrows; r++)
			keep[r] = stat_filter_match(&filter, &chan, r);
	}
	/* The pool file exists in the initial network namespace only. */
	if (o.want_pool) {
		err = stat_table_read(&pool, pool_path, STAT_KEYVAL);
		if (err && (err != -ENOENT || !o.want_chan)) {
			fprintf(stderr, "vjchan-stat: %s: %s\n", pool_path,
				why(err));
			goto out;
		}
		have_pool = !err;
	}

	if (o.json) {
		printf("{");
		if (have_chan) {
			printf("\n  \"channels\": ");
			stat_print_json_rows(&chan, keep, "  ");
		}
		if (have_pool) {
			printf("%s\n  \"pool\": ", have_chan ? "," : "");
			stat_print_json_keyval(&pool, "  ");
		}
		printf("\n}\n");
	} else {
		if (have_chan)
			stat_print_table(&chan, keep);
		if (have_chan && have_pool)
			printf("\n");
		if (have_pool)
			stat_print_table(&pool, NULL);
	}
	ret = 0;
out:
	free(keep);
	if (have_chan)
		stat_table_free(&chan);
	if (have_pool)
		stat_table_free(&pool);
	stat_filter_free(&filter);
	return ret;
}
