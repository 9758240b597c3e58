// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-run [--ports LIST] [--mode MODE] [--entries N] [--buf-size N]
 *            [--spread RULE] [--fallback] [--verbose] [--] PROGRAM [ARGS...]
 *
 * Runs PROGRAM with libvjchan-run.so preloaded, so that its UDP sockets
 * bound to a selected port become UDP channels (see run/run.h and
 * vjchan-run(1)).  The options become VJCHAN_RUN_* variables of the
 * environment, which PROGRAM's children inherit with LD_PRELOAD.
 *
 * The library is looked for beside this program (run/, in the build
 * tree) and then in ../lib/vjchan/ relative to it (where make install
 * puts it).  Exit status: PROGRAM's, or 125 if vjchan-run fails, 126 if
 * PROGRAM cannot be run, 127 if it is not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vjchan-run [--ports LIST] [--mode MODE] [--entries N] [--buf-size N]\n"
		"                  [--spread RULE] [--fallback] [--verbose] [--] PROGRAM [ARGS...]\n"
		"  -p, --ports LIST   replace UDP sockets bound to these ports: a comma\n"
		"                     list of ports and ranges (53,5000-5010); default all\n"
		"  -m, --mode MODE    firewall mode of the channels: filtered (default),\n"
		"                     sanctioned or bypass\n"
		"  -e, --entries N    ring entries of each channel (VJ_RING; default 256)\n"
		"  -b, --buf-size N   bytes per ring buffer: longer datagrams are held\n"
		"                     whole, charged to SO_RCVBUF (default 2048)\n"
		"  -s, --spread RULE  how a reuseport group's bypass or sanctioned channels\n"
		"                     share its datagrams (VJ_GROUP): hash (default), cpu\n"
		"                     or consumer\n"
		"  -f, --fallback     bind an ordinary UDP socket when no channel can be made\n"
		"  -v, --verbose      log every replacement on standard error\n"
		"  -h, --help         this text\n");
}

static int die(const char *fmt, const char *arg)
{
	fprintf(stderr, "vjchan-run: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 125;
}

/* The library's path into buf; -1 if it is in neither place. */
static int find_lib(char *buf, size_t len)
{
	static const char *const where[] = {
		"run/" VJ_RUN_LIB_NAME, "../lib/vjchan/" VJ_RUN_LIB_NAME,
	};
	char self[PATH_MAX], *dir;
	ssize_t n;
	size_t i;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	dir = dirname(self);
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		char path[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%s", dir, where[i]);
		if (access(path, R_OK) == 0 && realpath(path, buf) &&
		    strlen(buf) < len)
			return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ports",	required_argument,	NULL, 'p' },
		{ "mode",	required_argument,	NULL, 'm' },
		{ "entries",	required_argument,	NULL, 'e' },
		{ "buf-size",	required_argument,	NULL, 'b' },
		{ "spread",	required_argument,	NULL, 's' },
		{ "fallback",	no_argument,		NULL, 'f' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char lib[PATH_MAX], *preload;
	const char *old;
	struct vj_run_config cfg;
	int c;

	while ((c = getopt_long(argc, argv, "+p:m:e:b:s:fvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			setenv(VJ_RUN_ENV_PORTS, optarg, 1);
			break;
		case 'm':
			setenv(VJ_RUN_ENV_MODE, optarg, 1);
			break;
		case 'e':
			setenv(VJ_RUN_ENV_ENTRIES, optarg, 1);
			break;
		case 'b':
			setenv(VJ_RUN_ENV_BUF_SIZE, optarg, 1);
			break;
		case 's':
			setenv(VJ_RUN_ENV_SPREAD, optarg, 1);
			break;
		case 'f':
			setenv(VJ_RUN_ENV_FALLBACK, "1", 1);
			break;
		case 'v':
			setenv(VJ_RUN_ENV_VERBOSE, "1", 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 125;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 125;
	}
	/* What the library would refuse, refused before PROGRAM starts. */
	if (vj_run_config_load(&cfg) < 0)
		return die("%s", cfg.error);

	if (find_lib(lib, sizeof(lib)) < 0)
		return die("cannot find %s beside vjchan-run or in ../lib/vjchan",
			   VJ_RUN_LIB_NAME);
	/* LD_PRELOAD separates entries with spaces and colons. */
	if (strpbrk(lib, ": \t"))
		return die("the library's path '%s' has a space or colon", lib);
	old = getenv("LD_PRELOAD");
	if (asprintf(&preload, "%s%s%s", lib, old && *old ? ":" : "",
		     old ? old : "") < 0)
		return die("%s", strerror(errno));
	setenv("LD_PRELOAD", preload, 1);
	free(preload);

	execvp(argv[optind], argv + optind);
	c = errno;
	fprintf(stderr, "vjchan-run: %s: %s\n", argv[optind], strerror(c));
	return c == ENOENT ? 127 : 126;
}
