// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-stat: tables as aligned text and as JSON (stat_print.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_print.h"

static const char *text(const struct stat_table *t, size_t r, size_t c)
{
	const char *s = stat_cell(t, r, c);

	return s ? s : "";
}

void stat_print_table(const struct stat_table *t, const int *keep)
{
	int *width = stat_xalloc(t->ncols, sizeof(int));
	int *numeric = stat_xalloc(t->ncols, sizeof(int));
	size_t r, c;
	int n;

	for (c = 0; c < t->ncols; c++) {
		width[c] = strlen(t->names[c]);
		numeric[c] = 0;
		for (r = 0; r < t->nrows; r++) {
			const char *s = stat_cell(t, r, c);

			if (keep && !keep[r])
				continue;
			n = strlen(text(t, r, c));
			if (n > width[c])
				width[c] = n;
			if (s && (stat_is_number(s) || !strcmp(s, "*")))
				numeric[c] |= 1;
			else if (s)
				numeric[c] |= 2;
		}
		numeric[c] = numeric[c] == 1;
	}
	for (r = 0; r <= t->nrows; r++) {
		size_t end = t->ncols;

		if (r && keep && !keep[r - 1])
			continue;
		/* A short row ends at its last cell: no trailing blanks. */
		while (r && end > 1 && !stat_cell(t, r - 1, end - 1))
			end--;
		for (c = 0; c < end; c++) {
			const char *s = r ? text(t, r - 1, c) : t->names[c];
			int last = c + 1 == end;

			if (numeric[c])
				printf("%*s", width[c], s);
			else
				printf("%-*s", last ? 0 : width[c], s);
			if (!last)
				printf("  ");
		}
		printf("\n");
	}
	free(width);
	free(numeric);
}

void stat_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* A decimal integer that JSON takes as is: no leading zeros. */
static int json_int(const char *s)
{
	const char *d = *s == '-' ? s + 1 : s;

	return stat_is_number(s) && (d[0] != '0' || !d[1]);
}

static void json_value(const char *s)
{
	if (!s)
		printf("null");
	else if (json_int(s))
		printf("%s", s);
	else
		stat_json_string(s);
}

void stat_print_json_rows(const struct stat_table *t, const int *keep,
			  const char *indent)
{
	const char *sep = "";
	size_t r, c;

	printf("[");
	for (r = 0; r < t->nrows; r++) {
		if (keep && !keep[r])
			continue;
		printf("%s\n%s  {", sep, indent);
		for (c = 0; c < t->ncols; c++) {
			printf("%s", c ? ", " : " ");
			stat_json_string(t->names[c]);
			printf(": ");
			json_value(stat_cell(t, r, c));
		}
		printf(" }");
		sep = ",";
	}
	printf("%s%s]", *sep ? "\n" : "", *sep ? indent : "");
}

void stat_print_json_keyval(const struct stat_table *t, const char *indent)
{
	size_t r;

	printf("{");
	for (r = 0; r < t->nrows; r++) {
		printf("%s\n%s  ", r ? "," : "", indent);
		stat_json_string(text(t, r, 0));
		printf(": ");
		json_value(stat_cell(t, r, 1));
	}
	printf("%s%s}", t->nrows ? "\n" : "", t->nrows ? indent : "");
}
