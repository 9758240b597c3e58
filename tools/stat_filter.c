// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-stat: which channels to show (FILTER), and a channel's flow id as
 * text (stat_filter.h).
 *
 * A term compares one column of /proc/net/vjchan with a value: numbers as
 * numbers, addresses as addresses (with an optional prefix length),
 * anything else as text.  "*" is the kernel's wildcard, so "saddr *"
 * selects channels that take any source.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include "stat_filter.h"

enum term_kind {
	T_TEXT,		/* string equality */
	T_NUMBER,	/* numeric equality */
	T_ADDR,		/* address within a prefix */
	T_PATH,		/* counter rx_<path> above zero */
};

struct stat_term {
	enum term_kind		kind;
	char			*col;		/* column name */
	char			*value;		/* as given */
	int			any;		/* value "*" */
	unsigned long long	num;
	int			family;		/* T_ADDR */
	unsigned char		addr[16];
	unsigned int		prefix;
};

static const struct {
	const char	*name;
	unsigned int	proto;
} protos[] = {
	{ "udp", 17 }, { "tcp", 6 }, { "udplite", 136 }, { "sctp", 132 },
	{ "dccp", 33 }, { "icmp", 1 }, { "icmpv6", 58 },
};

#define NPROTOS	(sizeof(protos) / sizeof(protos[0]))

static int parse_num(const char *s, unsigned long long max,
		     unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end || errno || *v > max ? -EINVAL : 0;
}

static int proto_num(const char *s, unsigned long long *v)
{
	size_t i;

	for (i = 0; i < NPROTOS; i++) {
		if (!strcmp(s, protos[i].name)) {
			*v = protos[i].proto;
			return 0;
		}
	}
	return parse_num(s, 255, v);
}

static struct stat_term *add(struct stat_filter *f, enum term_kind kind,
			     const char *col, const char *value)
{
	struct stat_term *t;

	t = realloc(f->terms, (f->n + 1) * sizeof(*t));
	if (!t) {
		fprintf(stderr, "vjchan-stat: out of memory\n");
		exit(1);
	}
	f->terms = t;
	t = &f->terms[f->n++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->col = stat_xstrdup(col);
	t->value = stat_xstrdup(value);
	t->any = !strcmp(value, "*");
	return t;
}

static int parse_addr(struct stat_term *t, const char *s)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	unsigned long long plen;

	if (t->any)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, t->addr) == 1) {
		t->family = AF_INET;
		t->prefix = 32;
	} else if (inet_pton(AF_INET6, buf, t->addr) == 1) {
		t->family = AF_INET6;
		t->prefix = 128;
	} else {
		return -EINVAL;
	}
	if (slash) {
		if (parse_num(slash, t->prefix, &plen))
			return -EINVAL;
		t->prefix = plen;
	}
	return 0;
}

/* A KIND word (udp4, ip6, ...): family, and proto unless ip4/ip6. */
static int parse_kind(struct stat_filter *f, const char *w)
{
	size_t n = strlen(w), i;
	char name[16];
	struct stat_term *t;

	if (n < 3 || n >= sizeof(name) || (w[n - 1] != '4' && w[n - 1] != '6'))
		return -EINVAL;
	memcpy(name, w, n - 1);
	name[n - 1] = '\0';
	if (strcmp(name, "ip")) {
		for (i = 0; i < NPROTOS && strcmp(name, protos[i].name); i++)
			;
		if (i == NPROTOS || protos[i].proto == 1 ||
		    protos[i].proto == 58)
			return -EINVAL;
		t = add(f, T_NUMBER, "proto", name);
		t->num = protos[i].proto;
	}
	add(f, T_TEXT, "family", w[n - 1] == '4' ? "ipv4" : "ipv6");
	return 0;
}

static int parse_term(struct stat_filter *f, const char *key, const char *val)
{
	struct stat_term *t;
	unsigned int idx;

	if (!strcmp(key, "family")) {
		if (!strcmp(val, "4") || !strcmp(val, "inet") ||
		    !strcmp(val, "ipv4"))
			val = "ipv4";
		else if (!strcmp(val, "6") || !strcmp(val, "inet6") ||
			 !strcmp(val, "ipv6"))
			val = "ipv6";
		else
			return -EINVAL;
		add(f, T_TEXT, "family", val);
		return 0;
	}
	if (!strcmp(key, "proto")) {
		t = add(f, T_NUMBER, key, val);
		return t->any ? 0 : proto_num(val, &t->num);
	}
	if (!strcmp(key, "sport") || !strcmp(key, "dport")) {
		t = add(f, T_NUMBER, key, val);
		return t->any ? 0 : parse_num(val, 65535, &t->num);
	}
	if (!strcmp(key, "ifindex")) {
		t = add(f, T_NUMBER, key, val);
		return t->any ? 0 : parse_num(val, UINT32_MAX, &t->num);
	}
	if (!strcmp(key, "dev")) {
		t = add(f, T_NUMBER, "ifindex", val);
		if (t->any)
			return 0;
		idx = if_nametoindex(val);
		if (!idx) {
			fprintf(stderr, "vjchan-stat: no device %s\n", val);
			return -EINVAL;
		}
		t->num = idx;
		return 0;
	}
	if (!strcmp(key, "saddr") || !strcmp(key, "daddr"))
		return parse_addr(add(f, T_ADDR, key, val), val);
	if (!strcmp(key, "path")) {
		char col[64];

		if (!*val || strchr(val, '*') ||
		    snprintf(col, sizeof(col), "rx_%s", val) >= (int)sizeof(col))
			return -EINVAL;
		add(f, T_PATH, col, val);
		return 0;
	}
	/* Any other column of the table, as text or as a number. */
	t = add(f, stat_is_number(val) ? T_NUMBER : T_TEXT, key, val);
	if (t->kind == T_NUMBER && parse_num(val, ~0ULL, &t->num))
		t->kind = T_TEXT;	/* negative: compare the text */
	return 0;
}

int stat_filter_parse(struct stat_filter *f, int argc, char **argv)
{
	int i = 0;

	memset(f, 0, sizeof(*f));
	while (i < argc) {
		if (!parse_kind(f, argv[i])) {
			i++;
			continue;
		}
		if (i + 1 == argc) {
			fprintf(stderr, "vjchan-stat: filter: %s needs a value\n",
				argv[i]);
			return -EINVAL;
		}
		if (parse_term(f, argv[i], argv[i + 1])) {
			fprintf(stderr, "vjchan-stat: filter: bad %s %s\n",
				argv[i], argv[i + 1]);
			return -EINVAL;
		}
		i += 2;
	}
	return 0;
}

int stat_filter_check(const struct stat_filter *f, const struct stat_table *t)
{
	size_t i, c;
	int err = 0;

	for (i = 0; i < f->n; i++) {
		const struct stat_term *term = &f->terms[i];

		if (stat_table_col(t, term->col) >= 0)
			continue;
		err = -ENOENT;
		if (term->kind != T_PATH) {
			fprintf(stderr, "vjchan-stat: filter: no column %s\n",
				term->col);
			continue;
		}
		fprintf(stderr, "vjchan-stat: filter: no counter %s for path %s; counters:",
			term->col, term->value);
		for (c = 0; c < t->ncols; c++)
			if (stat_is_counter(t, c))
				fprintf(stderr, " %s", t->names[c]);
		fprintf(stderr, "\n");
	}
	return err;
}

/* Does the address text @s lie in the term's prefix? */
static int addr_match(const struct stat_term *t, const char *s)
{
	unsigned char a[16];
	unsigned int bits = t->prefix, i;

	if (inet_pton(t->family, s, a) != 1)
		return 0;
	for (i = 0; bits >= 8; i++, bits -= 8)
		if (a[i] != t->addr[i])
			return 0;
	return !bits || !((a[i] ^ t->addr[i]) & (0xff00 >> bits));
}

static int term_match(const struct stat_term *t, const char *s)
{
	unsigned long long v;

	if (!s)
		return 0;
	if (t->any)
		return !strcmp(s, "*");
	switch (t->kind) {
	case T_NUMBER:
		return !parse_num(s, ~0ULL, &v) && v == t->num;
	case T_ADDR:
		return addr_match(t, s);
	case T_PATH:
		return !parse_num(s, ~0ULL, &v) && v > 0;
	case T_TEXT:
	default:
		return !strcmp(s, t->value);
	}
}

int stat_filter_match(const struct stat_filter *f,
		      const struct stat_table *t, size_t row)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct stat_term *term = &f->terms[i];

		if (!term_match(term, stat_cell(t, row,
						stat_table_col(t, term->col))))
			return 0;
	}
	return 1;
}

void stat_filter_free(struct stat_filter *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->terms[i].col);
		free(f->terms[i].value);
	}
	free(f->terms);
	memset(f, 0, sizeof(*f));
}

static void append(char *buf, size_t len, size_t *pos, const char *a,
		   const char *b)
{
	int n;

	if (*pos >= len)
		return;
	n = snprintf(buf + *pos, len - *pos, "%s%s%s%s", *pos ? " " : "", a,
		     b ? " " : "", b ? b : "");
	if (n > 0)
		*pos += n;
}

void stat_flow_text(const struct stat_table *t, size_t row, int numeric,
		    char *buf, size_t len)
{
	static const char *const keys[] = {
		"sport", "dport", "saddr", "daddr",
	};
	const char *fam = stat_cell(t, row, stat_table_col(t, "family"));
	const char *proto = stat_cell(t, row, stat_table_col(t, "proto"));
	const char *ifx = stat_cell(t, row, stat_table_col(t, "ifindex"));
	const char *v, *kind = "ip";
	char word[32], name[IF_NAMESIZE];
	unsigned long long p = 0;
	size_t pos = 0, i;

	if (len)
		buf[0] = '\0';
	if (proto && strcmp(proto, "*") && !parse_num(proto, 255, &p)) {
		for (i = 0; i < NPROTOS; i++)
			if (protos[i].proto == p && p != 1 && p != 58)
				kind = protos[i].name;
	}
	snprintf(word, sizeof(word), "%s%s", kind,
		 fam && !strcmp(fam, "ipv6") ? "6" : "4");
	append(buf, len, &pos, word, NULL);
	if (!strcmp(kind, "ip") && p)
		append(buf, len, &pos, "proto", proto);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = stat_cell(t, row, stat_table_col(t, keys[i]));
		if (v && strcmp(v, "*"))
			append(buf, len, &pos, keys[i], v);
	}
	if (ifx && strcmp(ifx, "*")) {
		if (!numeric && !parse_num(ifx, UINT32_MAX, &p) &&
		    if_indextoname(p, name))
			append(buf, len, &pos, "dev", name);
		else
			append(buf, len, &pos, "ifindex", ifx);
	}
}
