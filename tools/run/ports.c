// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Port lists: "53", "5000-5010", "53,853,5000-5010".  Ports are decimal
 * numbers from 0 to 65535; a range's first port is not above its last.
 * An empty or absent list selects every port.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

/* Reads a port at *s, advancing *s; -1 if there is none or it is too big. */
static long read_port(const char **s)
{
	long v = 0;
	const char *p = *s;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p - '0');
		if (v > 65535)
			return -1;
		p++;
	}
	*s = p;
	return v;
}

/*
 * Fills *p from list (NULL or "" = every port).  Returns 0, or -1 with the
 * reason in why.
 */
int vj_run_ports_parse(struct vj_run_ports *p, const char *list,
		       char *why, size_t whylen)
{
	const char *s = list, *item;
	long lo, hi, i;

	memset(p, 0, sizeof(*p));
	if (!list || !*list) {
		p->all = true;
		return 0;
	}
	for (;;) {
		item = s;
		lo = read_port(&s);
		hi = lo;
		if (lo >= 0 && *s == '-') {
			s++;
			hi = read_port(&s);
		}
		if (lo < 0 || hi < 0 || (*s && *s != ',')) {
			snprintf(why, whylen,
				 "bad port list '%s' at '%s' (want N or N-M, N and M from 0 to 65535, comma-separated)",
				 list, item);
			return -1;
		}
		if (lo > hi) {
			snprintf(why, whylen, "bad port range %ld-%ld in '%s' (first above last)",
				 lo, hi, list);
			return -1;
		}
		for (i = lo; i <= hi; i++)
			p->bits[i / 8] |= 1u << (i % 8);
		if (!*s)
			return 0;
		s++;
	}
}

bool vj_run_port_selected(const struct vj_run_ports *p, unsigned int port)
{
	if (port > 65535)
		return false;
	return p->all || (p->bits[port / 8] & (1u << (port % 8)));
}
