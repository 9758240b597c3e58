/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vjchan-stat: the /proc/net/vjchan* files as tables of named columns.
 */
#ifndef VJ_STAT_TABLE_H
#define VJ_STAT_TABLE_H

#include <stddef.h>

/**
 * struct stat_table - a whitespace-separated file
 * @names: column names, @ncols of them
 * @ncols: columns
 * @cells: @nrows * @ncols cells, row by row; a row shorter than the header
 *	has NULL cells at its end
 * @nrows: rows, not counting the header
 */
struct stat_table {
	char	**names;
	size_t	ncols;
	char	**cells;
	size_t	nrows;
};

/* How the first line of a file is taken. */
enum stat_layout {
	STAT_HEADER,	/* names the columns (/proc/net/vjchan) */
	STAT_KEYVAL,	/* every line is "key value" (/proc/net/vjchan_pool) */
};

/**
 * stat_table_read() - read a file into a table
 * @t: table to fill
 * @path: the file
 * @layout: STAT_HEADER or STAT_KEYVAL (columns "key" and "value")
 *
 * With STAT_HEADER, columns the header does not name (a row longer than
 * the header) are called col<N>, N counting from 1.
 *
 * Return: 0, -errno of the file's opening or reading, or -EBADMSG if a
 * STAT_HEADER file's first line starts with a number (no header).
 */
int stat_table_read(struct stat_table *t, const char *path,
		    enum stat_layout layout);

void stat_table_free(struct stat_table *t);

/* The index of the column @name, or -1. */
int stat_table_col(const struct stat_table *t, const char *name);

/* The cell at @row, @col, or NULL for a missing one (or @col < 0). */
const char *stat_cell(const struct stat_table *t, size_t row, int col);

/* Is @s a decimal integer, as the kernel prints counters ("-" allowed)? */
int stat_is_number(const char *s);

/* Is column @col a counter: named rx_*, a number in every row that has it? */
int stat_is_counter(const struct stat_table *t, int col);

/*
 * Is column @col a drop counter: rx_ring_full, or a counter whose name
 * contains "drop"?
 */
int stat_is_drop(const struct stat_table *t, int col);

/* Allocation that exits with a message when memory runs out. */
void *stat_xalloc(size_t n, size_t size);
char *stat_xstrdup(const char *s);

#endif /* VJ_STAT_TABLE_H */
