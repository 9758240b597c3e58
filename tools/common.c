// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan tools: option parsing shared by the tools.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "common.h"

#define TOOL_MAX_OPTS	32

int tool_parse_ulong(const char *s, unsigned long min, unsigned long max,
		     unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return *s < '0' || *s > '9' || *end || errno || *v < min || *v > max ?
	       -1 : 0;
}

static int tool_parse_seconds(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || *end || end == s || !(*v >= 0) ? -1 : 0;
}

/* Stores the argument of @o; 0, or -1 if it is bad. */
static int tool_store(const struct tool_opt *o, const char *arg)
{
	unsigned long v;

	switch (o->type) {
	case TOOL_FLAG:
		*(int *)o->dest = 1;
		return 0;
	case TOOL_ULONG:
		return tool_parse_ulong(arg, o->min, o->max, o->dest);
	case TOOL_U32:
		if (tool_parse_ulong(arg, o->min, o->max, &v))
			return -1;
		*(__u32 *)o->dest = v;
		return 0;
	case TOOL_SECONDS:
		return tool_parse_seconds(arg, o->dest);
	case TOOL_STRING:
		*(const char **)o->dest = arg;
		return 0;
	}
	return -1;
}

int tool_options(const char *prog, int argc, char **argv,
		 const struct tool_opt *opts, void (*usage)(FILE *f))
{
	struct option lopts[TOOL_MAX_OPTS + 2];
	char sopts[2 * TOOL_MAX_OPTS + 2];
	size_t n, s = 0, i;
	int c;

	for (n = 0; opts[n].name && n < TOOL_MAX_OPTS; n++) {
		int has_arg = opts[n].type != TOOL_FLAG;

		lopts[n] = (struct option){ opts[n].name,
			has_arg ? required_argument : no_argument, NULL,
			opts[n].key };
		if (opts[n].key < TOOL_LONG_ONLY) {
			sopts[s++] = opts[n].key;
			if (has_arg)
				sopts[s++] = ':';
		}
	}
	lopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	sopts[s++] = 'h';
	sopts[s] = '\0';

	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		for (i = 0; i < n; i++)
			if (opts[i].key == c)
				break;
		if (i == n) {
			usage(stderr);
			return 2;
		}
		if (tool_store(&opts[i], optarg)) {
			if (opts[i].what)
				fprintf(stderr, "%s: bad %s: %s\n", prog,
					opts[i].what, optarg);
			else
				fprintf(stderr, "%s: bad -%c: %s\n", prog, c,
					optarg);
			return 2;
		}
	}
	return 0;
}
