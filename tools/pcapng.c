// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A minimal pcapng writer (see pcapng.h).  Every block is
 *
 *   uint32 type, uint32 total length, body, options, uint32 total length
 *
 * and every option is uint16 code, uint16 length, value padded to 32 bits,
 * the list ending with opt_endofopt (0, 0).
 */
#include <errno.h>
#include <string.h>

#include "pcapng.h"

#define BT_SHB		0x0A0D0D0A
#define BT_IDB		0x00000001
#define BT_EPB		0x00000006
#define BYTE_ORDER_MAGIC 0x1A2B3C4D

#define OPT_END		0
#define SHB_OS		3
#define SHB_USERAPPL	4
#define IF_NAME		2
#define IF_DESCRIPTION	3
#define IF_TSRESOL	9
#define EPB_FLAGS	2

/* Longest string option written; the format allows 65535 bytes. */
#define MAX_OPT_STR	1024

static uint32_t pad4(uint32_t n)
{
	return (n + 3) & ~3U;
}

static void put(struct pcapng *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	if (fwrite(p, 1, n, w->f) != n)
		w->err = errno ? -errno : -EIO;
}

static void put32(struct pcapng *w, uint32_t v)
{
	put(w, &v, sizeof(v));
}

static void put_pad(struct pcapng *w, uint32_t n)
{
	static const unsigned char zero[4];

	put(w, zero, pad4(n) - n);
}

static uint32_t str_len(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > MAX_OPT_STR ? MAX_OPT_STR : n;
}

/* Bytes an option with a @len-byte value takes; 0 if it is left out. */
static uint32_t opt_size(uint32_t len)
{
	return len ? 4 + pad4(len) : 0;
}

static void put_opt(struct pcapng *w, uint16_t code, const void *val,
		    uint32_t len)
{
	uint16_t hdr[2] = { code, len };

	if (!len)
		return;
	put(w, hdr, sizeof(hdr));
	put(w, val, len);
	put_pad(w, len);
}

int pcapng_start(struct pcapng *w, FILE *f, const char *appl, const char *os)
{
	uint32_t la = str_len(appl), lo = str_len(os), total;
	uint16_t version[2] = { 1, 0 };
	uint64_t section_len = UINT64_MAX;	/* not given */

	memset(w, 0, sizeof(*w));
	w->f = f;
	total = 12 + 4 + 4 + 8 + opt_size(la) + opt_size(lo) + 4;
	put32(w, BT_SHB);
	put32(w, total);
	put32(w, BYTE_ORDER_MAGIC);
	put(w, version, sizeof(version));
	put(w, &section_len, sizeof(section_len));
	put_opt(w, SHB_USERAPPL, appl, la);
	put_opt(w, SHB_OS, os, lo);
	put32(w, OPT_END);
	put32(w, total);
	return w->err;
}

int pcapng_add_if(struct pcapng *w, uint16_t linktype, uint32_t snaplen,
		  const char *name, const char *desc)
{
	uint32_t ln = str_len(name), ld = str_len(desc), total;
	uint16_t head[2] = { linktype, 0 };
	uint8_t tsresol = 9;	/* 10^-9 s */

	if (w->err)
		return w->err;
	total = 12 + 4 + 4 + opt_size(ln) + opt_size(ld) + opt_size(1) + 4;
	put32(w, BT_IDB);
	put32(w, total);
	put(w, head, sizeof(head));
	put32(w, snaplen);
	put_opt(w, IF_NAME, name, ln);
	put_opt(w, IF_DESCRIPTION, desc, ld);
	put_opt(w, IF_TSRESOL, &tsresol, 1);
	put32(w, OPT_END);
	put32(w, total);
	return w->err ? w->err : (int)w->nifs++;
}

int pcapng_packet(struct pcapng *w, uint32_t ifid, uint64_t ts_ns,
		  const void *data, uint32_t caplen, uint32_t origlen,
		  uint32_t flags)
{
	uint32_t total;

	if (w->err)
		return w->err;
	if (origlen < caplen || ifid >= w->nifs || caplen > UINT32_MAX - 64)
		return -EINVAL;
	total = 12 + 20 + pad4(caplen) + (flags ? opt_size(4) + 4 : 0);
	put32(w, BT_EPB);
	put32(w, total);
	put32(w, ifid);
	put32(w, ts_ns >> 32);
	put32(w, (uint32_t)ts_ns);
	put32(w, caplen);
	put32(w, origlen);
	put(w, data, caplen);
	put_pad(w, caplen);
	if (flags) {
		put_opt(w, EPB_FLAGS, &flags, 4);
		put32(w, OPT_END);
	}
	put32(w, total);
	return w->err;
}

int pcapng_flush(struct pcapng *w)
{
	if (!w->err && fflush(w->f))
		w->err = errno ? -errno : -EIO;
	return w->err;
}
