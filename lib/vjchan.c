// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libvjchan: user-space side of vjchan, Van Jacobson network channels.
 * The ring fast path is inline in vjchan.h; this file holds setup, waiting,
 * flow id text and the payload helpers.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "vjchan.h"

int vj_chan_open(struct vj_chan *ch, const struct vj_chan_opts *opts)
{
	struct vj_ring_req req = {
		.entries = VJ_RING_DEF_ENTRIES,
		.buf_size = VJ_BUF_DEF_SIZE,
	};
	int err;

	memset(ch, 0, sizeof(*ch));
	ch->fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ch->fd < 0)
		return -errno;

	if (!opts || (!opts->entries && !opts->buf_size))
		return 0;
	if (opts->entries)
		req.entries = opts->entries;
	if (opts->buf_size)
		req.buf_size = opts->buf_size;
	if (setsockopt(ch->fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req)) < 0) {
		err = -errno;
		vj_chan_close(ch);
		return err;
	}
	return 0;
}

int vj_chan_bind_flags(struct vj_chan *ch, const struct vj_flow *flow,
		       __u16 flags)
{
	struct sockaddr_vj addr = {
		.svj_family = AF_VJCHAN,
		.svj_flags = flags,
		.svj_flow = *flow,
	};

	if (bind(ch->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return -errno;
	return 0;
}

int vj_chan_bind(struct vj_chan *ch, const struct vj_flow *flow)
{
	return vj_chan_bind_flags(ch, flow, VJ_BIND_FW_FILTERED);
}

int vj_bind_flags_parse(const char *s, __u16 *flags)
{
	static const struct {
		const char *name;
		__u16 bits;
		__u16 mask;
	} words[] = {
		{ "filtered", VJ_BIND_FW_FILTERED, VJ_BIND_FW_MASK },
		{ "sanctioned", VJ_BIND_FW_SANCTIONED, VJ_BIND_FW_MASK },
		{ "bypass", VJ_BIND_FW_BYPASS, VJ_BIND_FW_MASK },
		{ "transit", VJ_BIND_F_TRANSIT, VJ_BIND_F_TRANSIT },
		{ "direct", VJ_BIND_F_DIRECT, VJ_BIND_F_DIRECT },
	};
	__u16 f = 0, seen = 0;
	size_t n, i;

	while (*s) {
		n = strcspn(s, ",");
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i].name) == n &&
			    !strncmp(s, words[i].name, n))
				break;
		if (i == sizeof(words) / sizeof(words[0]) ||
		    (seen & words[i].mask))
			return -EINVAL;
		f |= words[i].bits;
		seen |= words[i].mask;
		s += n;
		if (*s && !*++s)
			return -EINVAL;	/* a trailing comma */
	}
	*flags = f;
	return 0;
}

/* Does a field of @len bytes at @off, aligned to @align, fit in @size? */
static int vj_fits(__u64 off, __u64 len, __u64 align, __u64 size)
{
	return !(off & (align - 1)) && off <= size && len <= size - off;
}

/* Is the layout the kernel reported self-consistent? */
static int vj_offsets_ok(const struct vj_mmap_offsets *o)
{
	__u64 n = o->entries;

	return n && !(n & (n - 1)) && o->buf_size &&
	       o->size && o->size <= SIZE_MAX &&
	       vj_fits(o->producer, sizeof(__u32), sizeof(__u32), o->size) &&
	       vj_fits(o->consumer, sizeof(__u32), sizeof(__u32), o->size) &&
	       vj_fits(o->flags, sizeof(__u32), sizeof(__u32), o->size) &&
	       vj_fits(o->desc, n * sizeof(struct vj_desc),
		       _Alignof(struct vj_desc), o->size) &&
	       vj_fits(o->bufs, n * o->buf_size, 1, o->size);
}

/* Is the channel bound with VJ_BIND_F_DIRECT? */
static int vj_bound_direct(int fd)
{
	struct sockaddr_vj sa;
	socklen_t len = sizeof(sa);

	memset(&sa, 0, sizeof(sa));
	return !getsockname(fd, (struct sockaddr *)&sa, &len) &&
	       len >= sizeof(sa) && sa.svj_family == AF_VJCHAN &&
	       (sa.svj_flags & VJ_BIND_F_DIRECT);
}

/*
 * A direct channel's buffers can only be mapped read-only: the pages
 * before them go read-write at offset 0, the buffers read-only at offset
 * bufs, both in one reservation so that they lie as one mapping would and
 * one munmap() of the whole size undoes them.
 */
static unsigned char *vj_map_parts(int fd, const struct vj_mmap_offsets *off)
{
	unsigned char *map;
	int e;

	map = mmap(NULL, off->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (map == MAP_FAILED)
		return map;
	if (mmap(map, off->bufs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, 0) == MAP_FAILED ||
	    mmap(map + off->bufs, off->size - off->bufs, PROT_READ,
		 MAP_SHARED | MAP_FIXED, fd, (off_t)off->bufs) == MAP_FAILED) {
		e = errno;
		munmap(map, off->size);
		errno = e;
		return MAP_FAILED;
	}
	return map;
}

int vj_chan_map(struct vj_chan *ch)
{
	struct vj_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	unsigned char *map;

	if (ch->map)
		return -EBUSY;
	if (getsockopt(ch->fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, &off, &optlen) < 0)
		return -errno;
	if (optlen < sizeof(off) || !vj_offsets_ok(&off))
		return -EPROTO;

	if (vj_bound_direct(ch->fd))
		map = vj_map_parts(ch->fd, &off);
	else
		map = mmap(NULL, off.size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   ch->fd, 0);
	if (map == MAP_FAILED)
		return -errno;

	ch->map = map;
	ch->map_size = off.size;
	ch->entries = off.entries;
	ch->mask = off.entries - 1;
	ch->buf_size = off.buf_size;
	ch->producer = (__u32 *)(map + off.producer);
	ch->consumer = (__u32 *)(map + off.consumer);
	ch->flags = (__u32 *)(map + off.flags);
	ch->desc = (struct vj_desc *)(map + off.desc);
	ch->bufs = map + off.bufs;
	/* Start where the ring is: it may have been consumed from before. */
	ch->cached_cons = __atomic_load_n(ch->consumer, __ATOMIC_RELAXED);
	ch->cached_prod = __atomic_load_n(ch->producer, __ATOMIC_ACQUIRE);
	return 0;
}

void vj_chan_close(struct vj_chan *ch)
{
	if (ch->map)
		munmap(ch->map, ch->map_size);
	if (ch->fd >= 0)
		close(ch->fd);
	memset(ch, 0, sizeof(*ch));
	ch->fd = -1;
}

int vj_chan_stats(struct vj_chan *ch, struct vj_statistics *st)
{
	socklen_t optlen = sizeof(*st);

	if (getsockopt(ch->fd, SOL_VJCHAN, VJ_STATISTICS, st, &optlen) < 0)
		return -errno;
	return optlen < sizeof(*st) ? -EPROTO : 0;
}

int vj_chan_getflow(struct vj_chan *ch, struct vj_flow *flow)
{
	union {
		struct sockaddr_storage ss;
		struct sockaddr_vj svj;
	} addr;
	socklen_t len = sizeof(addr);

	memset(&addr, 0, sizeof(addr));
	if (getsockname(ch->fd, (struct sockaddr *)&addr, &len) < 0)
		return -errno;
	if (len < sizeof(addr.svj) || addr.svj.svj_family != AF_VJCHAN)
		return -EPROTO;
	*flow = addr.svj.svj_flow;
	return 0;
}

/* Load the producer index (C, matches B) and return what is ready. */
static __u32 vj_ready(struct vj_chan *ch)
{
	ch->cached_prod = __atomic_load_n(ch->producer, __ATOMIC_ACQUIRE);
	return ch->cached_prod - ch->cached_cons;
}

int vj_wait(struct vj_chan *ch, int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	socklen_t optlen;
	int dead, err;
	__u32 n;

	/*
	 * DEAD first (F), then the producer (C): a ring seen dead has its
	 * final producer index published before the flag (E), so nothing
	 * queued is missed.  The other order could see an old producer and
	 * then DEAD, and report ENODEV with packets still in the ring.
	 */
	dead = vj_chan_dead(ch);
	n = vj_ready(ch);
	if (n)
		return n;

	/* A dead ring gets nothing new: collect what poll() moves in. */
	if (dead)
		timeout_ms = 0;
	if (poll(&pfd, 1, timeout_ms) < 0)
		return -errno;
	dead = vj_chan_dead(ch);
	n = vj_ready(ch);
	if (n)
		return n;

	if (pfd.revents & POLLNVAL)
		return -EBADF;
	if (pfd.revents & POLLERR) {
		err = 0;
		optlen = sizeof(err);
		if (getsockopt(ch->fd, SOL_SOCKET, SO_ERROR, &err, &optlen) < 0)
			return -errno;
		if (err)
			return -err;
	}
	return dead ? -ENODEV : 0;
}

/* Protocols with a text name; the first entry is the "any" kind. */
static const struct {
	const char	*name;
	__u8		proto;
} vj_protos[] = {
	{ "ip",		0 },
	{ "udp",	IPPROTO_UDP },
	{ "tcp",	IPPROTO_TCP },
	{ "udplite",	IPPROTO_UDPLITE },
	{ "sctp",	IPPROTO_SCTP },
	{ "dccp",	IPPROTO_DCCP },
};

#define VJ_NPROTOS	(sizeof(vj_protos) / sizeof(vj_protos[0]))

/* Parse a decimal number in [0, @max] that is the whole of @s. */
static int vj_parse_u32(const char *s, __u32 max, __u32 *val)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/* Parse the value of "proto": a number or a name from vj_protos. */
static int vj_parse_proto(const char *s, __u8 *proto)
{
	unsigned int i;
	__u32 v;

	for (i = 1; i < VJ_NPROTOS; i++) {
		if (!strcmp(s, vj_protos[i].name)) {
			*proto = vj_protos[i].proto;
			return 0;
		}
	}
	if (vj_parse_u32(s, 255, &v))
		return -EINVAL;
	*proto = v;
	return 0;
}

/* Parse a kind such as "udp6" into family and protocol. */
static int vj_parse_kind(const char *s, struct vj_flow *flow)
{
	size_t n = strlen(s);
	unsigned int i;

	if (n < 2)
		return -EINVAL;
	if (s[n - 1] == '4')
		flow->family = AF_INET;
	else if (s[n - 1] == '6')
		flow->family = AF_INET6;
	else
		return -EINVAL;
	for (i = 0; i < VJ_NPROTOS; i++) {
		if (strlen(vj_protos[i].name) == n - 1 &&
		    !strncmp(s, vj_protos[i].name, n - 1)) {
			flow->proto = vj_protos[i].proto;
			return 0;
		}
	}
	return -EINVAL;
}

/* Copy the next blank-separated word of *@s into @tok, advancing *@s. */
static int vj_next_token(const char **s, char *tok, size_t size)
{
	const char *p = *s;
	size_t n = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n')
		n++;
	if (n >= size)
		return -EINVAL;
	memcpy(tok, p, n);
	tok[n] = '\0';
	*s = p + n;
	return n;
}

enum {
	VJ_KEY_SPORT	= 1 << 0,
	VJ_KEY_DPORT	= 1 << 1,
	VJ_KEY_SADDR	= 1 << 2,
	VJ_KEY_DADDR	= 1 << 3,
	VJ_KEY_IF	= 1 << 4,
	VJ_KEY_PROTO	= 1 << 5,
};

/* Apply one "KEY VALUE" pair to @flow; @seen tracks the keys given. */
static int vj_parse_key(const char *key, const char *val,
			struct vj_flow *flow, unsigned int *seen)
{
	unsigned int bit;
	__u32 v;
	__u8 proto;

	if (!strcmp(key, "sport") || !strcmp(key, "dport")) {
		bit = key[0] == 's' ? VJ_KEY_SPORT : VJ_KEY_DPORT;
		if (vj_parse_u32(val, 65535, &v))
			return -EINVAL;
		if (bit == VJ_KEY_SPORT)
			flow->sport = htons(v);
		else
			flow->dport = htons(v);
	} else if (!strcmp(key, "saddr") || !strcmp(key, "daddr")) {
		bit = key[0] == 's' ? VJ_KEY_SADDR : VJ_KEY_DADDR;
		if (inet_pton(flow->family, val, bit == VJ_KEY_SADDR ?
			      &flow->saddr : &flow->daddr) != 1)
			return -EINVAL;
	} else if (!strcmp(key, "dev")) {
		bit = VJ_KEY_IF;
		flow->ifindex = if_nametoindex(val);
		if (!flow->ifindex)
			return -ENODEV;
	} else if (!strcmp(key, "ifindex")) {
		bit = VJ_KEY_IF;
		if (vj_parse_u32(val, UINT32_MAX, &flow->ifindex))
			return -EINVAL;
	} else if (!strcmp(key, "proto")) {
		bit = VJ_KEY_PROTO;
		if (vj_parse_proto(val, &proto) ||
		    (flow->proto && flow->proto != proto))
			return -EINVAL;
		flow->proto = proto;
	} else {
		return -EINVAL;
	}
	if (*seen & bit)
		return -EINVAL;
	*seen |= bit;
	return 0;
}

int vj_flow_parse(const char *spec, struct vj_flow *flow)
{
	char key[INET6_ADDRSTRLEN + 16], val[INET6_ADDRSTRLEN + 16];
	unsigned int seen = 0;
	int err;

	memset(flow, 0, sizeof(*flow));
	if (vj_next_token(&spec, key, sizeof(key)) <= 0 ||
	    vj_parse_kind(key, flow))
		goto invalid;
	for (;;) {
		err = vj_next_token(&spec, key, sizeof(key));
		if (err < 0)
			goto invalid;
		if (!err)
			return 0;
		if (vj_next_token(&spec, val, sizeof(val)) <= 0)
			goto invalid;
		err = vj_parse_key(key, val, flow, &seen);
		if (err)
			goto out;
	}
invalid:
	err = -EINVAL;
out:
	memset(flow, 0, sizeof(*flow));
	return err;
}

/* Append printf-style text at @*pos of @buf, tracking the full length. */
static void __attribute__((format(printf, 4, 5)))
vj_append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*pos < len ? buf + *pos : NULL,
		      *pos < len ? len - *pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += n;
}

/* Is @a (16 bytes) all zero, the "any" address? */
static int vj_addr_any(const union vj_addr *a)
{
	static const union vj_addr zero;

	return !memcmp(a, &zero, sizeof(*a));
}

int vj_flow_format(const struct vj_flow *flow, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	const char *kind = NULL;
	unsigned int i;
	size_t pos = 0;
	int v;

	if (flow->family != AF_INET && flow->family != AF_INET6)
		return -EINVAL;
	v = flow->family == AF_INET ? 4 : 6;
	for (i = 0; i < VJ_NPROTOS; i++)
		if (vj_protos[i].proto == flow->proto)
			kind = vj_protos[i].name;

	if (len)
		buf[0] = '\0';
	if (kind)
		vj_append(buf, len, &pos, "%s%d", kind, v);
	else
		vj_append(buf, len, &pos, "ip%d proto %u", v, flow->proto);
	if (flow->sport)
		vj_append(buf, len, &pos, " sport %u", ntohs(flow->sport));
	if (flow->dport)
		vj_append(buf, len, &pos, " dport %u", ntohs(flow->dport));
	if (!vj_addr_any(&flow->saddr) &&
	    inet_ntop(flow->family, &flow->saddr, addr, sizeof(addr)))
		vj_append(buf, len, &pos, " saddr %s", addr);
	if (!vj_addr_any(&flow->daddr) &&
	    inet_ntop(flow->family, &flow->daddr, addr, sizeof(addr)))
		vj_append(buf, len, &pos, " daddr %s", addr);
	if (flow->ifindex)
		vj_append(buf, len, &pos, " ifindex %u", flow->ifindex);
	return pos < len ? (int)pos : -ENOSPC;
}

void vj_pattern_fill(void *p, size_t len, uint32_t seq)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len && i < 4; i++)
		b[i] = seq >> (24 - 8 * i);
	for (; i < len; i++)
		b[i] = seq + i;
}

int vj_pattern_check(const void *p, size_t len, uint32_t *seq)
{
	const unsigned char *b = p;
	uint32_t s;
	size_t i;

	if (len < 4)
		return -EINVAL;
	s = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | b[3];
	*seq = s;
	for (i = 4; i < len; i++)
		if (b[i] != (unsigned char)(s + i))
			return -EBADMSG;
	return 0;
}

/* Read a big-endian 16-bit field. */
static __u32 vj_get16(const unsigned char *p)
{
	return (__u32)p[0] << 8 | p[1];
}

const void *vj_udp_payload(const struct vj_desc *desc, const void *pkt,
			   __u32 len, __u32 *plen)
{
	const unsigned char *p = pkt;
	__u32 flags = __atomic_load_n(&desc->flags, __ATOMIC_RELAXED);
	__u32 l3 = 0, l4, end, iplen, ulen;
	unsigned char vhl;

	if (flags & VJ_DESC_F_L2)
		l3 = __atomic_load_n(&desc->l3_off, __ATOMIC_RELAXED);
	if (l3 >= len)
		return NULL;
	vhl = p[l3];
	if (vhl >> 4 == 4) {
		/* IPv4: header length, total length, fragment bits, proto. */
		l4 = l3 + (vhl & 0x0f) * 4;
		if ((vhl & 0x0f) < 5 || l4 > len)
			return NULL;
		iplen = vj_get16(p + l3 + 2);
		if (iplen < l4 - l3 || (vj_get16(p + l3 + 6) & 0x3fff) ||
		    p[l3 + 9] != IPPROTO_UDP)
			return NULL;
		end = l3 + iplen;
	} else if (vhl >> 4 == 6) {
		/* IPv6: payload length, next header; no extension headers. */
		l4 = l3 + 40;
		if (l4 > len || p[l3 + 6] != IPPROTO_UDP)
			return NULL;
		end = l4 + vj_get16(p + l3 + 4);
	} else {
		return NULL;
	}
	if (l4 + 8 > len)
		return NULL;
	ulen = vj_get16(p + l4 + 4);
	if (ulen < 8 || ulen > end - l4)
		return NULL;
	end = l4 + ulen;
	if (end > len)
		end = len;
	*plen = end - l4 - 8;
	return p + l4 + 8;
}
