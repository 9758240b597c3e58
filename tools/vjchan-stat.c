// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-stat: show /proc/net/vjchan (channels) and /proc/net/vjchan_pool
 * (the driver-API buffer pool) as aligned tables or as JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Most columns a /proc line may have; the channel table has 20, ending
 * with the path counters: fw rx_hook rx_xdp rx_filtered.
 */
#define MAX_COLS	32

struct table {
	char	**cells;	/* rows * MAX_COLS, row 0 is the header */
	size_t	rows;
	size_t	cols;		/* of the widest row */
	int	*width;		/* MAX_COLS */
	int	*numeric;	/* MAX_COLS: every non-header cell a number or * */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: vjchan-stat [-c|-p] [-j] [-d DIR]\n"
"Show vjchan channels (DIR/vjchan) and the buffer pool (DIR/vjchan_pool).\n"
"\n"
"  -c, --channels   channels only\n"
"  -p, --pool       pool only\n"
"  -j, --json       JSON instead of tables\n"
"  -d, --dir DIR    read DIR instead of /proc/net\n"
"  -h, --help       this text\n");
}

/* Is @s a decimal integer (the /proc counters are printed with %lld)? */
static int is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "vjchan-stat: out of memory\n");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		fprintf(stderr, "vjchan-stat: out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * Read a whitespace-separated file into @t.  With @header, the first line
 * names the columns; otherwise "key value" lines get a made-up header.
 * Returns 0 or -errno of fopen().
 */
static int table_read(struct table *t, const char *path, int header)
{
	size_t cap = 16, linecap = 0, c;
	char *line = NULL, *tok, *save;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	memset(t, 0, sizeof(*t));
	t->cells = xcalloc(cap * MAX_COLS, sizeof(char *));
	t->width = xcalloc(MAX_COLS, sizeof(int));
	t->numeric = xcalloc(MAX_COLS, sizeof(int));
	if (!header) {
		t->cells[0] = xstrdup("key");
		t->cells[1] = xstrdup("value");
		t->rows = 1;
	}
	while (getline(&line, &linecap, f) > 0) {
		if (t->rows == cap) {
			t->cells = realloc(t->cells,
					   2 * cap * MAX_COLS * sizeof(char *));
			if (!t->cells) {
				fprintf(stderr, "vjchan-stat: out of memory\n");
				exit(1);
			}
			memset(t->cells + cap * MAX_COLS, 0,
			       cap * MAX_COLS * sizeof(char *));
			cap *= 2;
		}
		c = 0;
		for (tok = strtok_r(line, " \t\n", &save);
		     tok && c < MAX_COLS; tok = strtok_r(NULL, " \t\n", &save))
			t->cells[t->rows * MAX_COLS + c++] = xstrdup(tok);
		if (!c)
			continue;
		if (c > t->cols)
			t->cols = c;
		t->rows++;
	}
	free(line);
	fclose(f);

	for (c = 0; c < t->cols; c++) {
		size_t r;

		t->numeric[c] = t->rows > 1;
		for (r = 0; r < t->rows; r++) {
			const char *s = t->cells[r * MAX_COLS + c];
			int n = s ? strlen(s) : 0;

			if (n > t->width[c])
				t->width[c] = n;
			if (r && s && !is_number(s) && strcmp(s, "*"))
				t->numeric[c] = 0;
		}
	}
	return 0;
}

static void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->rows * MAX_COLS; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->width);
	free(t->numeric);
}

static const char *cell(const struct table *t, size_t r, size_t c)
{
	const char *s = t->cells[r * MAX_COLS + c];

	return s ? s : "";
}

/* Print @t as columns two blanks apart, numbers right-aligned. */
static void table_print(const struct table *t)
{
	size_t r, c;

	for (r = 0; r < t->rows; r++) {
		for (c = 0; c < t->cols; c++) {
			int last = c + 1 == t->cols;

			if (t->numeric[c])
				printf("%*s", t->width[c], cell(t, r, c));
			else
				printf("%-*s", last ? 0 : t->width[c],
				       cell(t, r, c));
			if (!last)
				printf("  ");
		}
		printf("\n");
	}
}

/* Print @s as a JSON string. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* Print @s as a JSON value: a number if it is one, else a string. */
static void json_value(const char *s)
{
	if (is_number(s))
		printf("%s", s);
	else
		json_string(s);
}

/* Print the channel table as a JSON array of objects. */
static void json_channels(const struct table *t)
{
	size_t r, c;

	printf("[");
	for (r = 1; r < t->rows; r++) {
		printf("%s\n    {", r > 1 ? "," : "");
		for (c = 0; c < t->cols; c++) {
			printf("%s", c ? ", " : " ");
			json_string(cell(t, 0, c));
			printf(": ");
			json_value(cell(t, r, c));
		}
		printf(" }");
	}
	printf("%s]", t->rows > 1 ? "\n  " : "");
}

/* Print "key value" rows as one JSON object. */
static void json_pool(const struct table *t)
{
	size_t r;

	printf("{");
	for (r = 1; r < t->rows; r++) {
		printf("%s\n    ", r > 1 ? "," : "");
		json_string(cell(t, r, 0));
		printf(": ");
		json_value(cell(t, r, 1));
	}
	printf("%s}", t->rows > 1 ? "\n  " : "");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "channels",	no_argument,		NULL, 'c' },
		{ "pool",	no_argument,		NULL, 'p' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "dir",	required_argument,	NULL, 'd' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	int want_chan = 1, want_pool = 1, json = 0, have_chan, have_pool;
	const char *dir = "/proc/net";
	struct table chan, pool;
	char path[4096];
	int c, err;

	while ((c = getopt_long(argc, argv, "cpjd:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			want_pool = 0;
			break;
		case 'p':
			want_chan = 0;
			break;
		case 'j':
			json = 1;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (!want_chan && !want_pool)) {
		usage(stderr);
		return 2;
	}

	have_chan = 0;
	if (want_chan) {
		snprintf(path, sizeof(path), "%s/vjchan", dir);
		err = table_read(&chan, path, 1);
		if (err) {
			fprintf(stderr, "vjchan-stat: %s: %s%s\n", path,
				strerror(-err), err == -ENOENT ?
				" (is the vjchan module loaded?)" : "");
			return 1;
		}
		have_chan = 1;
	}
	/* The pool file exists in the initial network namespace only. */
	have_pool = 0;
	if (want_pool) {
		snprintf(path, sizeof(path), "%s/vjchan_pool", dir);
		err = table_read(&pool, path, 0);
		if (err && (err != -ENOENT || !want_chan)) {
			fprintf(stderr, "vjchan-stat: %s: %s\n", path,
				strerror(-err));
			if (have_chan)
				table_free(&chan);
			return 1;
		}
		have_pool = !err;
	}

	if (json) {
		printf("{");
		if (have_chan) {
			printf("\n  \"channels\": ");
			json_channels(&chan);
		}
		if (have_pool) {
			printf("%s\n  \"pool\": ", have_chan ? "," : "");
			json_pool(&pool);
		}
		printf("\n}\n");
	} else {
		if (have_chan)
			table_print(&chan);
		if (have_chan && have_pool)
			printf("\n");
		if (have_pool)
			table_print(&pool);
	}
	if (have_chan)
		table_free(&chan);
	if (have_pool)
		table_free(&pool);
	return 0;
}
