/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vjchan-stat: tables as aligned text and as JSON.
 */
#ifndef VJ_STAT_PRINT_H
#define VJ_STAT_PRINT_H

#include "stat_table.h"

/*
 * Print the header and the rows of @t whose @keep entry is set (all rows
 * for a NULL @keep) as columns two blanks apart, numbers right-aligned.
 */
void stat_print_table(const struct stat_table *t, const int *keep);

/*
 * Print the kept rows of @t as a JSON array of objects, one member per
 * column: numbers as numbers, a missing cell as null, the rest as strings.
 * @indent is the indentation of the array's first line.
 */
void stat_print_json_rows(const struct stat_table *t, const int *keep,
			  const char *indent);

/* Print a STAT_KEYVAL table as one JSON object. */
void stat_print_json_keyval(const struct stat_table *t, const char *indent);

/* Print @s as a JSON string. */
void stat_json_string(const char *s);

#endif /* VJ_STAT_PRINT_H */
