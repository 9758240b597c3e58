// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-stat: the /proc/net/vjchan* files as tables of named columns.
 *
 * Columns are found by the names in the header line, never by position,
 * so columns a newer kernel adds are shown and filtered like the others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_table.h"

void *stat_xalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "vjchan-stat: out of memory\n");
		exit(1);
	}
	return p;
}

char *stat_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		fprintf(stderr, "vjchan-stat: out of memory\n");
		exit(1);
	}
	return p;
}

int stat_is_number(const char *s)
{
	if (!s)
		return 0;
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* A line split into words (the line is modified). */
struct words {
	char	**w;
	size_t	n;
	size_t	cap;
};

static void split(struct words *ws, char *line)
{
	char *tok, *save;

	ws->n = 0;
	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (ws->n == ws->cap) {
			ws->cap = ws->cap ? 2 * ws->cap : 32;
			ws->w = realloc(ws->w, ws->cap * sizeof(*ws->w));
			if (!ws->w) {
				fprintf(stderr, "vjchan-stat: out of memory\n");
				exit(1);
			}
		}
		ws->w[ws->n++] = tok;
	}
}

/* Make room for @ncols columns, naming new ones col<N>; cells move. */
static void widen(struct stat_table *t, size_t ncols, size_t cap_rows)
{
	char **names, **cells, buf[32];
	size_t r, c;

	if (ncols <= t->ncols)
		return;
	names = stat_xalloc(ncols, sizeof(*names));
	memcpy(names, t->names, t->ncols * sizeof(*names));
	for (c = t->ncols; c < ncols; c++) {
		snprintf(buf, sizeof(buf), "col%zu", c + 1);
		names[c] = stat_xstrdup(buf);
	}
	cells = stat_xalloc(cap_rows * ncols, sizeof(*cells));
	for (r = 0; r < t->nrows; r++)
		memcpy(cells + r * ncols, t->cells + r * t->ncols,
		       t->ncols * sizeof(*cells));
	free(t->names);
	free(t->cells);
	t->names = names;
	t->cells = cells;
	t->ncols = ncols;
}

int stat_table_read(struct stat_table *t, const char *path,
		    enum stat_layout layout)
{
	size_t linecap = 0, cap = 16, c;
	struct words ws = { 0 };
	char *line = NULL;
	int err = 0, first = 1;
	FILE *f;

	memset(t, 0, sizeof(*t));
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (layout == STAT_KEYVAL) {
		t->ncols = 2;
		t->names = stat_xalloc(2, sizeof(*t->names));
		t->names[0] = stat_xstrdup("key");
		t->names[1] = stat_xstrdup("value");
	}
	t->cells = stat_xalloc(cap * (t->ncols ? t->ncols : 1),
			       sizeof(*t->cells));
	errno = 0;
	while (getline(&line, &linecap, f) > 0) {
		split(&ws, line);
		if (!ws.n)
			continue;
		if (first && layout == STAT_HEADER) {
			first = 0;
			if (stat_is_number(ws.w[0])) {
				err = -EBADMSG;
				break;
			}
			free(t->cells);
			t->ncols = ws.n;
			t->names = stat_xalloc(ws.n, sizeof(*t->names));
			for (c = 0; c < ws.n; c++)
				t->names[c] = stat_xstrdup(ws.w[c]);
			t->cells = stat_xalloc(cap * t->ncols,
					       sizeof(*t->cells));
			continue;
		}
		first = 0;
		if (layout == STAT_KEYVAL && ws.n > 2)
			ws.n = 2;	/* "key value": a value has no blanks */
		if (t->nrows == cap) {
			char **cells = stat_xalloc(2 * cap * t->ncols,
						   sizeof(*cells));

			memcpy(cells, t->cells,
			       t->nrows * t->ncols * sizeof(*cells));
			free(t->cells);
			t->cells = cells;
			cap *= 2;
		}
		widen(t, ws.n, cap);
		for (c = 0; c < ws.n; c++)
			t->cells[t->nrows * t->ncols + c] =
				stat_xstrdup(ws.w[c]);
		t->nrows++;
		errno = 0;
	}
	if (!err && ferror(f))
		err = errno ? -errno : -EIO;
	free(line);
	free(ws.w);
	fclose(f);
	if (err)
		stat_table_free(t);
	return err;
}

void stat_table_free(struct stat_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (i = 0; i < t->ncols; i++)
		free(t->names[i]);
	free(t->cells);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

int stat_table_col(const struct stat_table *t, const char *name)
{
	size_t c;

	for (c = 0; c < t->ncols; c++)
		if (!strcmp(t->names[c], name))
			return (int)c;
	return -1;
}

const char *stat_cell(const struct stat_table *t, size_t row, int col)
{
	if (col < 0 || (size_t)col >= t->ncols || row >= t->nrows)
		return NULL;
	return t->cells[row * t->ncols + col];
}

int stat_is_counter(const struct stat_table *t, int col)
{
	size_t r;

	if (col < 0 || (size_t)col >= t->ncols ||
	    strncmp(t->names[col], "rx_", 3))
		return 0;
	for (r = 0; r < t->nrows; r++) {
		const char *s = stat_cell(t, r, col);

		if (s && !stat_is_number(s))
			return 0;
	}
	return 1;
}

int stat_is_drop(const struct stat_table *t, int col)
{
	return stat_is_counter(t, col) &&
	       (!strcmp(t->names[col], "rx_ring_full") ||
		strstr(t->names[col], "drop"));
}
