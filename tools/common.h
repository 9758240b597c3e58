/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vjchan tools: what vjchan-recv, vjchan-send and vjchan-stat share, the
 * parsing of their options.
 */
#ifndef VJ_TOOLS_COMMON_H
#define VJ_TOOLS_COMMON_H

#include <stdio.h>

enum tool_arg {
	TOOL_FLAG,		/* no argument: sets an int to 1 */
	TOOL_ULONG,		/* a decimal number in [min, max]: unsigned long */
	TOOL_U32,		/* the same, into a __u32 */
	TOOL_SECONDS,		/* a number of seconds >= 0: double */
	TOOL_STRING,		/* the argument itself: const char * */
};

/* Keys from here on have a long name only. */
#define TOOL_LONG_ONLY	256

/**
 * struct tool_opt - one option of a tool
 * @name: its long name
 * @key: its short letter, or TOOL_LONG_ONLY + n for a long-only option
 * @type: what its argument is
 * @dest: where the value goes (int, unsigned long, __u32, double or
 *	const char *, after @type)
 * @min: smallest number accepted
 * @max: largest number accepted
 * @what: names a bad argument in "PROG: bad WHAT: ARG"; NULL for "-KEY"
 */
struct tool_opt {
	const char	*name;
	int		key;
	enum tool_arg	type;
	void		*dest;
	unsigned long	min, max;
	const char	*what;
};

/* Entries of a struct tool_opt table. */
#define TOOL_OPT_NUM(n, k, t, d, lo, hi, w) \
	{ .name = (n), .key = (k), .type = (t), .dest = (d), .min = (lo), \
	  .max = (hi), .what = (w) }
#define TOOL_OPT_FLAG(n, k, d) \
	{ .name = (n), .key = (k), .type = TOOL_FLAG, .dest = (d) }
#define TOOL_OPT_STRING(n, k, d) \
	{ .name = (n), .key = (k), .type = TOOL_STRING, .dest = (d) }
#define TOOL_OPT_END	{ .name = NULL }

/**
 * tool_options() - parse a tool's options with getopt_long()
 * @prog: the tool's name, for messages
 * @argc: as for main()
 * @argv: as for main()
 * @opts: the options, ended by one with a NULL name; -h/--help is added
 * @usage: prints the tool's usage text to a stream
 *
 * -h or --help prints the usage to stdout and exits with 0.  An unknown
 * option prints the usage to stderr; a bad argument prints
 * "PROG: bad WHAT: ARG".  The operands start at optind.
 *
 * Return: 0, or 2 (the exit status for bad usage) once that is reported.
 */
int tool_options(const char *prog, int argc, char **argv,
		 const struct tool_opt *opts, void (*usage)(FILE *f));

/**
 * tool_parse_ulong() - a decimal number that is the whole of a string
 * @s: the string; digits only, no sign, no blanks
 * @min: smallest value accepted
 * @max: largest value accepted
 * @v: set to the value
 *
 * Return: 0, or -1 if @s is not such a number within [@min, @max].
 */
int tool_parse_ulong(const char *s, unsigned long min, unsigned long max,
		     unsigned long *v);

#endif /* VJ_TOOLS_COMMON_H */
