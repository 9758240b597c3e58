// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libvjchan: keys and values in text, as /proc/net/vjchan_pool, the test
 * driver's files, the benchmark's result lines and /proc/net/snmp write
 * them.  See vj_keyval_next() in vjchan.h for the forms understood.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vjchan.h"

enum {
	VJ_KV_LINE = 0,		/* at the start of a line */
	VJ_KV_WORDS,		/* inside a KEY=VALUE line */
	VJ_KV_TABLE,		/* inside a header line and its value line */
};

static int vj_kv_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *vj_kv_skip_blanks(const char *p)
{
	while (vj_kv_blank(*p))
		p++;
	return p;
}

/* The word at @p (no leading blanks): its length, up to a blank or EOL. */
static size_t vj_kv_word(const char *p)
{
	size_t n = 0;

	while (p[n] && p[n] != '\n' && !vj_kv_blank(p[n]))
		n++;
	return n;
}

static const char *vj_kv_next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

void vj_keyval_start(struct vj_keyval_iter *it, const char *text)
{
	memset(it, 0, sizeof(*it));
	it->pos = text;
}

/* Is the line at @line a table header, its label repeated on the next? */
static int vj_kv_table(const char *line, const char **values, size_t *label)
{
	const char *p = vj_kv_skip_blanks(line), *next;
	size_t n = vj_kv_word(p);

	if (n < 2 || p[n - 1] != ':' || memchr(p, '=', n))
		return 0;
	next = vj_kv_next_line(line);
	next = vj_kv_skip_blanks(next);
	if (vj_kv_word(next) != n || memcmp(p, next, n))
		return 0;
	*values = next + n;
	*label = n;
	return 1;
}

/* Start on the line at it->pos; 0 at the end of the text. */
static int vj_kv_line(struct vj_keyval_iter *it, struct vj_keyval *kv)
{
	const char *p, *end, *values;
	size_t n, label;

	for (;;) {
		p = vj_kv_skip_blanks(it->pos);
		if (!*p)
			return 0;
		if (*p == '\n') {
			it->pos = p + 1;
			continue;
		}
		break;
	}
	if (vj_kv_table(it->pos, &values, &label)) {
		it->section = p;
		it->section_len = label - 1;
		it->words = p + label;
		it->values = values;
		it->pos = vj_kv_next_line(values);
		it->state = VJ_KV_TABLE;
		return -EAGAIN;
	}
	n = vj_kv_word(p);
	if (memchr(p, '=', n)) {
		it->words = p;
		it->pos = vj_kv_next_line(p);
		it->state = VJ_KV_WORDS;
		return -EAGAIN;
	}
	/* KEY VALUE: the value is the rest of the line, blanks trimmed. */
	kv->section = NULL;
	kv->section_len = 0;
	kv->key = p;
	kv->key_len = n;
	p = vj_kv_skip_blanks(p + n);
	end = p + strcspn(p, "\n");
	while (end > p && vj_kv_blank(end[-1]))
		end--;
	kv->value = p;
	kv->value_len = end - p;
	it->pos = vj_kv_next_line(p);
	return 1;
}

/* The next KEY=VALUE word of the line at it->words. */
static int vj_kv_assign(struct vj_keyval_iter *it, struct vj_keyval *kv)
{
	const char *p = vj_kv_skip_blanks(it->words), *eq;
	size_t n = vj_kv_word(p);

	if (!n) {
		it->state = VJ_KV_LINE;
		return -EAGAIN;
	}
	it->words = p + n;
	eq = memchr(p, '=', n);
	if (!eq || eq == p)
		return -EBADMSG;
	kv->section = NULL;
	kv->section_len = 0;
	kv->key = p;
	kv->key_len = eq - p;
	kv->value = eq + 1;
	kv->value_len = n - (eq + 1 - p);
	return 1;
}

/* The next column of a table: its header word and its value word. */
static int vj_kv_column(struct vj_keyval_iter *it, struct vj_keyval *kv)
{
	const char *k = vj_kv_skip_blanks(it->words);
	const char *v = vj_kv_skip_blanks(it->values);
	size_t kn = vj_kv_word(k), vn = vj_kv_word(v);

	if (!kn || !vn) {
		it->state = VJ_KV_LINE;
		/* Both lines end together, or the table is malformed. */
		return kn || vn ? -EBADMSG : -EAGAIN;
	}
	it->words = k + kn;
	it->values = v + vn;
	kv->section = it->section;
	kv->section_len = it->section_len;
	kv->key = k;
	kv->key_len = kn;
	kv->value = v;
	kv->value_len = vn;
	return 1;
}

int vj_keyval_next(struct vj_keyval_iter *it, struct vj_keyval *kv)
{
	int r;

	do {
		switch (it->state) {
		case VJ_KV_WORDS:
			r = vj_kv_assign(it, kv);
			break;
		case VJ_KV_TABLE:
			r = vj_kv_column(it, kv);
			break;
		default:
			r = vj_kv_line(it, kv);
			break;
		}
	} while (r == -EAGAIN);
	return r;
}

/* Does @kv have the name @name ("KEY", or "SECTION:KEY" in a table)? */
static int vj_kv_named(const struct vj_keyval *kv, const char *name)
{
	const char *colon = strchr(name, ':');
	size_t n;

	if (kv->section) {
		if (!colon)
			return 0;
		n = colon - name;
		if (n != kv->section_len || memcmp(name, kv->section, n))
			return 0;
		name = colon + 1;
	} else if (colon) {
		return 0;
	}
	return strlen(name) == kv->key_len &&
	       !memcmp(name, kv->key, kv->key_len);
}

int vj_keyval_find(const char *text, const char *name, struct vj_keyval *kv)
{
	struct vj_keyval_iter it;
	int r;

	vj_keyval_start(&it, text);
	while ((r = vj_keyval_next(&it, kv))) {
		if (r > 0 && vj_kv_named(kv, name))
			return 0;
	}
	return -ENOENT;
}

/* The value of @name, NUL-terminated in @buf. */
static int vj_kv_value(const char *text, const char *name, char *buf,
		       size_t size)
{
	struct vj_keyval kv;
	int r = vj_keyval_find(text, name, &kv);

	if (r)
		return r;
	if (!kv.value_len || kv.value_len >= size)
		return -EINVAL;
	memcpy(buf, kv.value, kv.value_len);
	buf[kv.value_len] = '\0';
	return 0;
}

int vj_keyval_int(const char *text, const char *name, long long *val)
{
	char buf[32], *end;
	long long v;
	int r = vj_kv_value(text, name, buf, sizeof(buf));

	if (r)
		return r;
	if (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9'))
		return -EINVAL;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end || end == buf)
		return -EINVAL;
	*val = v;
	return 0;
}

int vj_keyval_double(const char *text, const char *name, double *val)
{
	char buf[64], *end;
	double v;
	int r = vj_kv_value(text, name, buf, sizeof(buf));

	if (r)
		return r;
	errno = 0;
	v = strtod(buf, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end || end == buf)
		return -EINVAL;
	*val = v;
	return 0;
}
