// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: generators of the socket calls.  socket() with good and bad
 * arguments, setsockopt()/getsockopt() of every option (and unknown ones)
 * with boundary lengths and geometries, options at SOL_SOCKET, bind() with
 * random and boundary flow ids and address lengths, getsockname(), and the
 * calls a channel refuses.  Arguments that end at, or run into, a guard
 * page test the copies from and to user space.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"

static const uint32_t bogus_ifindex[] = { 9999, 0x7fffffff, 0xffffffffu };

void op_socket(void)
{
	int flags = (chance(&R, 50) ? SOCK_CLOEXEC : 0) |
		    (chance(&R, 30) ? SOCK_NONBLOCK : 0);
	struct expect x;
	int fd, si, fi;
	bool clean = chance(&R, 50);

	op_begin(O_SOCKET, "socket(AF_VJCHAN, SOCK_DGRAM | %#x, 0) %s", flags,
		 clean ? "clean" : "dirty");
	expect_simple(&x, X_SOCKET);
	fd = socket(AF_VJCHAN, SOCK_DGRAM | flags, 0);
	if (!check(fd, errno, &x) || fd < 0)
		return;
	si = sock_new(fd, clean);
	fi = si < 0 ? -1 : fd_add(fd, si);
	if (fi < 0) {
		close(fd);
		if (si >= 0)
			socks[si].live = false;
		return;
	}
	if (chance(&R, 60))
		ep_register(fi);
}

void op_socket_bad(void)
{
	static const int types[] = { 0, SOCK_STREAM, SOCK_RAW, SOCK_RDM,
		SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET, 11, 255, 0x100 | SOCK_DGRAM,
		-1 };
	static const int protos[] = { 3, IPPROTO_UDP, 255, -1, 0x7fffffff,
				      0x10000 };
	int type = SOCK_DGRAM, proto = 0, fd;
	struct expect x;

	if (chance(&R, 60))
		type = PICK(&R, types);
	if (type == SOCK_DGRAM || chance(&R, 30))
		proto = PICK(&R, protos);
	op_begin(O_SOCKET_BAD, "socket(AF_VJCHAN, %d, %d)", type, proto);
	expect_socket_bad(&x, type, proto);
	fd = socket(AF_VJCHAN, type, proto);
	check(fd, errno, &x);
	if (fd >= 0)
		close(fd);
}

static void gen_geom(struct vj_ring_req *q)
{
	static const uint32_t ent[] = { 0, 1, 7, 8, 9, 16, 64, 255, 256, 512,
		4096, 32767, 32768, 32769, 65536, 1u << 31, 0xffffffffu };
	static const uint32_t bsz[] = { 0, 1, 2047, 2048, 2049, 4096, 8192,
		32768, 65535, 65536, 65537, 131072, 1u << 31, 0xffffffffu };

	memset(q, 0, sizeof(*q));
	if (chance(&R, 55)) {
		q->entries = 8u << below(&R, 7);
		q->buf_size = 2048u << below(&R, 2);
	} else {
		q->entries = chance(&R, 85) ? PICK(&R, ent) : (uint32_t)rnd64(&R);
		q->buf_size = chance(&R, 85) ? PICK(&R, bsz) : (uint32_t)rnd64(&R);
	}
	if (chance(&R, 4))
		q->flags = 1u << below(&R, 32);
	if (chance(&R, 4))
		q->pad = (uint32_t)rnd64(&R) | 1;
}

/* setsockopt(VJ_RING): the common part of the fuzzed and the budget op. */
static void do_set_ring(struct mfd *f, const struct ring_opt *o, uint8_t *val)
{
	struct msock *s = &socks[f->sock];
	struct expect x;
	int r, e;

	expect_set_ring(&x, s, o);
	r = setsockopt(f->fd, o->level, o->optname, val, (socklen_t)o->optlen);
	e = errno;
	if (check(r, e, &x))
		model_set_ring(s, &o->req, r, e);
}

/*
 * setsockopt(VJ_GROUP): a few group ids so that binds meet their groups,
 * every rule and one past them, and the option's own length errors.  The
 * option ends at the guard page, so a longer optlen would fault: the tail
 * is tested within it.
 */
static void op_set_group(struct mfd *f)
{
	struct msock *s = &socks[f->sock];
	struct group_opt o = { .optlen = sizeof(o.g) };
	uint8_t *val;
	struct expect x;
	int r, e, pos;

	o.g.id = below(&R, 4);
	o.g.spread = below(&R, 4);	/* 3: no such rule */
	if (chance(&R, 5))
		o.g.pad = 1 + below(&R, 0xffff);
	switch (below(&R, 12)) {
	case 0: o.optlen = below(&R, sizeof(o.g)); break;
	case 1: o.optlen = -1; break;
	case 2: o.optlen = sizeof(o.g) + 1 + below(&R, 64); break;
	case 3: o.optlen = sizeof(o.g) + 1 + below(&R, 64);
		o.tail_nonzero = true; break;
	case 4: o.null = true; break;
	}
	val = guard_end - (o.optlen > (int)sizeof(o.g) ? o.optlen :
			   (int)sizeof(o.g));
	memset(val, 0, guard_end - val);
	memcpy(val, &o.g, sizeof(o.g));
	if (o.tail_nonzero) {
		pos = sizeof(o.g) + below(&R, o.optlen - sizeof(o.g));
		val[pos] = 1 + below(&R, 255);
	}
	op_begin(O_SETSOCKOPT, "setsockopt(fd %d sock %u bound %d, VJ_GROUP {%u, %u, %#x}, len %d%s%s)",
		 f->fd, s->id, s->bound, o.g.id, o.g.spread, o.g.pad, o.optlen,
		 o.null ? " NULL" : "", o.tail_nonzero ? " tail-nonzero" : "");
	expect_set_group(&x, s, &o);
	r = setsockopt(f->fd, SOL_VJCHAN, VJ_GROUP, o.null ? NULL : val,
		       (socklen_t)o.optlen);
	e = errno;
	if (check(r, e, &x) && !r)
		s->group = o.g;
}

void op_setsockopt(void)
{
	static const int levels[] = { 0, IPPROTO_UDP, IPPROTO_IPV6, 298, 300,
				      -1, 0x7fffffff, SOL_PACKET };
	static const int names[] = { 0, VJ_MMAP_OFFSETS, VJ_STATISTICS, 4,
				     255, -1 };
	int fi = pick_fd_pref(sock_ringless, 60), optlen;
	bool tail_nz = false;
	struct ring_opt o = { .head_fault = false };
	struct vj_ring_req *req = &o.req;
	uint8_t *val;
	struct mfd *f;

	if (fi < 0)
		return;
	f = &fds[fi];
	if (chance(&R, 12)) {
		op_set_group(f);
		return;
	}
	o.level = chance(&R, 92) ? SOL_VJCHAN : PICK(&R, levels);
	o.optname = chance(&R, 85) ? VJ_RING : PICK(&R, names);
	gen_geom(req);
	switch (below(&R, 16)) {
	case 0: optlen = 0; break;
	case 1: optlen = chance(&R, 50) ? sizeof(*req) - 1 : 1 + below(&R, 14); break;
	case 2: optlen = 17; break;
	case 3: optlen = 17; tail_nz = true; break;
	case 4: optlen = 32 + below(&R, 4000); break;
	case 5: optlen = 32 + below(&R, 4000); tail_nz = true; break;
	case 6: optlen = 1 << 20; break;
	case 7: optlen = chance(&R, 50) ? 0x7fffffff : -1; break;
	default: optlen = sizeof(*req); break;
	}
	o.optlen = optlen;

	/*
	 * Lay the option out so that it ends at the guard page, or k bytes
	 * into it; the lengths beyond two pages read 2 MiB of zeros and, past
	 * those, the guard.
	 */
	if (optlen > (int)(2 * pg) || optlen < 0) {
		val = zbuf;
		memcpy(val, req, sizeof(*req));
		o.tail_fault = optlen > (int)ZBUF_LEN;
		tail_nz = false;
	} else {
		int blen = optlen > 0 ? optlen : (int)sizeof(*req);
		int k = 0, pos = -1;

		if (optlen >= (int)sizeof(*req) && chance(&R, 4))
			k = 1 + below(&R, blen < 32 ? blen : 32);
		val = guard_end - blen + k;
		memset(val, 0, blen - k);
		memcpy(val, req, blen - k < (int)sizeof(*req) ? blen - k :
		       (int)sizeof(*req));
		if (tail_nz)
			pos = sizeof(*req) + below(&R, optlen - sizeof(*req));
		/* A nonzero byte only where it can be read. */
		tail_nz = pos >= 0 && pos < blen - k;
		if (tail_nz)
			val[pos] = 1 + below(&R, 255);
		if (k > blen - (int)sizeof(*req))
			o.head_fault = true;
		else if (k)
			o.tail_fault = true;
	}
	if (chance(&R, 2)) {
		val = NULL;
		o.head_fault = true;
	}
	op_begin(O_SETSOCKOPT, "setsockopt(fd %d sock %u ring %s, level %d, opt %d, {%u, %u, %#x, %#x}, len %d%s%s%s)",
		 f->fd, socks[f->sock].id, ring_names[socks[f->sock].ring],
		 o.level, o.optname, req->entries, req->buf_size, req->flags,
		 req->pad, optlen, o.head_fault ? " head-fault" : "",
		 o.tail_fault ? " tail-fault" : "", tail_nz ? " tail-nonzero" : "");
	o.tail_nonzero = tail_nz && !o.head_fault;
	do_set_ring(f, &o, val);
	if (val == zbuf)
		memset(zbuf, 0, sizeof(*req));
}

/* Before an op that may create the ring: keep it within the budget. */
void budget_guard(struct mfd *f)
{
	struct msock *s = &socks[f->sock];
	struct ring_opt o = {
		.optlen = sizeof(struct vj_ring_req),
		.level = SOL_VJCHAN,
		.optname = VJ_RING,
	};

	if (s->ring != RING_NO)
		return;
	if (ring_est(&s->req) <= RING_MAX_ONE &&
	    ring_total + ring_est(&s->req) <= RING_BUDGET)
		return;
	o.req.entries = 8u << below(&R, 4);
	o.req.buf_size = 2048;
	op_begin(O_SETSOCKOPT, "setsockopt(fd %d sock %u, VJ_RING {%u, %u}) to stay in budget",
		 f->fd, s->id, o.req.entries, o.req.buf_size);
	memcpy(gbuf, &o.req, sizeof(o.req));
	do_set_ring(f, &o, gbuf);
}

void op_getsockopt(void)
{
	static const int levels[] = { 0, IPPROTO_UDP, 298, 300, -1 };
	static const int names[] = { 0, 4, 255, -1, 0x10000 };
	int fi = pick_fd(), level, optname, len, mode;
	socklen_t l, *lp = &l;
	uint8_t *val, *buf = guard_end - 256;
	size_t size, least;
	struct expect x;
	struct msock *s;
	struct mfd *f;
	int r, i;

	if (fi < 0)
		return;
	f = &fds[fi];
	s = &socks[f->sock];
	level = chance(&R, 93) ? SOL_VJCHAN : PICK(&R, levels);
	i = below(&R, 100);
	optname = i < 30 ? VJ_RING : i < 55 ? VJ_MMAP_OFFSETS :
		  i < 84 ? VJ_STATISTICS : i < 92 ? VJ_GROUP : PICK(&R, names);
	size = optname == VJ_RING ? sizeof(struct vj_ring_req) :
	       optname == VJ_GROUP ? sizeof(struct vj_group_req) :
	       optname == VJ_MMAP_OFFSETS ? sizeof(struct vj_mmap_offsets) :
	       optname == VJ_STATISTICS ? sizeof(struct vj_statistics) : 16;
	/* The least optlen accepted: the structure's first size. */
	least = optname == VJ_STATISTICS ? VJ_STATISTICS_SIZE_V1 : size;
	switch (below(&R, 13)) {
	case 0: len = 0; break;
	case 1: len = size - 1; break;
	case 12: len = least - below(&R, 2); break;
	case 2: len = size + 1; break;
	case 3: len = size + 64; break;
	case 4: len = chance(&R, 50) ? 1 << 20 : 0x7fffffff; break;
	case 5: len = chance(&R, 50) ? -1 : (int)0x80000000; break;
	default: len = size; break;
	}
	memset(buf, 0xa5, 256);
	val = buf;
	mode = below(&R, 100);
	if (mode < 3)
		val = NULL;
	else if (mode < 6)
		val = guard_end - (size - 1);	/* the last byte faults */
	else if (mode < 8)
		lp = NULL;
	l = len;
	op_begin(O_GETSOCKOPT, "getsockopt(fd %d sock %u ring %s, level %d, opt %d, len %d%s%s)",
		 f->fd, s->id, ring_names[s->ring], level, optname, len,
		 !val ? " optval NULL" : val != buf ? " optval short" : "",
		 lp ? "" : " optlen NULL");
	expect_getsockopt(&x, level, optname, len, size, least,
			  !val ? 0 : val == buf ? SIZE_MAX : size - 1, lp);
	r = getsockopt(f->fd, level, optname, val, lp);
	if (check(r, errno, &x) && !r)
		check_getsockopt(s, optname, buf, (size_t)(val - buf), size,
				 (size_t)len < size ? (size_t)len : size, l);
}

/* Options at SOL_SOCKET go to the generic socket code. */
void op_solsocket(void)
{
	static const int gets[] = { SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ERROR,
				    SO_RCVBUF, SO_ACCEPTCONN, SO_PEERCRED };
	static const int sets[] = { SO_RCVBUF, SO_PRIORITY, SO_RCVLOWAT,
				    SO_BINDTODEVICE, SO_ATTACH_FILTER, 9999 };
	int fi = pick_fd(), name, v, r;
	uint8_t buf[64] = { 0 };
	socklen_t l = sizeof(v);
	struct expect x;
	struct mfd *f;

	if (fi < 0)
		return;
	f = &fds[fi];
	if (chance(&R, 60)) {
		name = PICK(&R, gets);
		op_begin(O_SOLSOCKET, "getsockopt(fd %d, SOL_SOCKET, %d)",
			 f->fd, name);
		expect_simple(&x, X_ANY);
		if (name == SO_PEERCRED)
			l = sizeof(buf);
		r = getsockopt(f->fd, SOL_SOCKET, name,
			       name == SO_PEERCRED ? (void *)buf : (void *)&v, &l);
		if (check(r, errno, &x) && !r)
			check_sol_value(name, name == SO_PEERCRED ? buf :
					(uint8_t *)&v, l);
		return;
	}
	name = PICK(&R, sets);
	v = (int)below(&R, 1 << 20);
	op_begin(O_SOLSOCKET, "setsockopt(fd %d, SOL_SOCKET, %d, %d)", f->fd,
		 name, v);
	expect_simple(&x, name == SO_ATTACH_FILTER ? X_SOL_BADLEN :
			  name == 9999 ? X_SOL_UNKNOWN : X_SOL_SET);
	r = setsockopt(f->fd, SOL_SOCKET, name, name == SO_BINDTODEVICE ?
		       (void *)"lo" : (void *)&v, name == SO_BINDTODEVICE ? 3 :
		       sizeof(v));
	check(r, errno, &x);
}

static uint32_t ip4(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static void gen_addr(int fam, union vj_addr *a)
{
	static const char *const v4[] = { "127.0.0.1", "127.0.0.2",
		"198.51.100.1", "198.51.100.2", "192.0.2.1", "255.255.255.255" };
	static const char *const v6[] = { "::1", "2001:db8:100::1",
		"2001:db8:100::2", "::ffff:127.0.0.1", "ff02::1" };

	memset(a, 0, sizeof(*a));
	if (chance(&R, 55))
		return;				/* wildcard */
	if (fam == AF_INET6 || (fam != AF_INET && chance(&R, 50))) {
		if (chance(&R, 80))
			inet_pton(AF_INET6, PICK(&R, v6), a);
		else
			for (int i = 0; i < 4; i++)
				a->ip6[i] = (uint32_t)rnd64(&R);
		return;
	}
	a->ip4 = chance(&R, 85) ? ip4(PICK(&R, v4)) : (uint32_t)rnd64(&R);
}

static uint16_t gen_port(void)
{
	uint32_t r = below(&R, 100);

	if (r < 35)
		return 0;
	if (r < 85)
		return htons(PBASE + below(&R, NPORTS));
	if (r < 90)
		return htons(65535);
	if (r < 93)
		return htons(1);
	return htons((uint16_t)rnd64(&R));
}

static void gen_flow(struct vj_flow *f)
{
	static const uint16_t fams[] = { 0, 1, AF_UNIX, AF_VJCHAN, 0xffff,
					 AF_INET + 256, AF_PACKET };
	static const uint8_t protos[] = { 0, 0, IPPROTO_UDP, IPPROTO_UDP,
		IPPROTO_UDP, IPPROTO_TCP, IPPROTO_UDPLITE, IPPROTO_SCTP,
		IPPROTO_DCCP, IPPROTO_ICMP, 255, 253 };
	uint32_t r = below(&R, 100);

	memset(f, 0, sizeof(*f));
	f->family = r < 62 ? AF_INET : r < 92 ? AF_INET6 : PICK(&R, fams);
	f->proto = chance(&R, 5) ? (uint8_t)rnd64(&R) : PICK(&R, protos);
	f->pad = chance(&R, 3) ? 1 + below(&R, 255) : 0;
	f->sport = chance(&R, 70) ? 0 : gen_port();
	f->dport = gen_port();
	r = below(&R, 100);
	if (r < 65)
		f->ifindex = 0;
	else if (r < 80)
		f->ifindex = if_lo;
	else if (r < 88)
		f->ifindex = if_vjt ? if_vjt : if_lo;
	else if (r < 92)
		f->ifindex = if_eth0 ? if_eth0 : if_lo;
	else
		f->ifindex = PICK(&R, bogus_ifindex);
	gen_addr(f->family, &f->saddr);
	gen_addr(f->family, &f->daddr);
	/* IPv4 flows whose other 12 address bytes are not zero. */
	if (f->family == AF_INET && chance(&R, 5))
		f->daddr.bytes[4 + below(&R, 12)] = 1 + below(&R, 255);
}

void op_bind(void)
{
	static const uint16_t bad_fams[] = { 0, AF_INET, AF_INET6, AF_UNIX,
					     18, 20, 0xffff };
	static const int lens[] = { 0, 1, 2, 4, 47, 49, 52, 64, 127, 128,
				    129, 4096, -1 };
	int fi = pick_fd_pref(sock_unbound, 70), fault = 0, i, r, e;
	struct bind_arg b = { .tail_at = -1 };
	struct sockaddr_vj *sa = &b.sa;
	bool dup = false;
	struct expect x;
	struct msock *s;
	struct mfd *f;
	uint8_t *a;

	if (fi < 0)
		return;
	f = &fds[fi];
	s = &socks[f->sock];
	budget_guard(f);
	if (failed)
		return;

	memset(sa, 0, sizeof(*sa));
	sa->svj_family = chance(&R, 95) ? AF_VJCHAN : PICK(&R, bad_fams);
	sa->svj_flags = chance(&R, 97) ? VJ_BIND_FW_BYPASS :
			chance(&R, 50) ? 1u << below(&R, 16) : below(&R, 16);
	if (chance(&R, 20)) {
		for (i = 0; i < MAX_SOCKS; i++) {
			int j = (i + below(&R, MAX_SOCKS)) % MAX_SOCKS;

			if (socks[j].live && socks[j].bound) {
				sa->svj_flow = socks[j].flow;
				dup = true;
				break;
			}
		}
	}
	if (!dup)
		gen_flow(&sa->svj_flow);
	b.len = chance(&R, 80) ? SVJ_LEN : PICK(&R, lens);
	if (b.len > SVJ_LEN && b.len <= SS_LEN && chance(&R, 50))
		b.tail_at = SVJ_LEN + below(&R, b.len - SVJ_LEN);

	/* The address ends at the guard page, or runs into it. */
	if (b.len > 0 && b.len <= SS_LEN) {
		if (chance(&R, 4))
			fault = 1 + below(&R, b.len);
		a = guard_end - b.len + fault;
		memset(a, 0, b.len - fault);
		memcpy(a, sa, (size_t)(b.len - fault) < sizeof(*sa) ?
		       (size_t)(b.len - fault) : sizeof(*sa));
		if (b.tail_at >= 0 && b.tail_at < b.len - fault)
			a[b.tail_at] = 1 + below(&R, 255);
		else
			b.tail_at = -1;
	} else {
		a = gbuf;
		memset(a, 0, 2 * pg);
		memcpy(a, sa, sizeof(*sa));
	}
	b.fault = fault;
	if (chance(&R, 2)) {
		a = NULL;
		b.null = true;
	}
	op_begin(O_BIND, "bind(fd %d sock %u ring %s%s, {fam %u flags %#x flow %s}, len %d%s%s%s%s)",
		 f->fd, s->id, ring_names[s->ring], s->bound ? " bound" : "",
		 sa->svj_family, sa->svj_flags, flow_str(&sa->svj_flow), b.len,
		 b.tail_at >= 0 ? " tail-nonzero" : "", fault ? " faults" : "",
		 b.null ? " NULL" : "", dup ? " dup" : "");
	expect_bind(&x, s, &b);
	r = bind(f->fd, (struct sockaddr *)a, (socklen_t)b.len);
	e = errno;
	if (check(r, e, &x))
		model_bind(s, sa, r, e);
}

void op_getsockname(void)
{
	static const int lens[] = { 0, 1, 10, 47, 49, 128, -1 };
	uint8_t *buf = guard_end - 256;
	int fi = pick_fd(), len, r;
	socklen_t l, *lp = &l;
	void *ap = buf;
	struct expect x;
	struct msock *s;

	if (fi < 0)
		return;
	s = &socks[fds[fi].sock];
	len = chance(&R, 60) ? SVJ_LEN : PICK(&R, lens);
	if (chance(&R, 3))
		ap = NULL;
	else if (chance(&R, 3))
		lp = NULL;
	l = len;
	memset(buf, 0xa5, 256);
	op_begin(O_GETSOCKNAME, "getsockname(fd %d sock %u%s, len %d%s%s)",
		 fds[fi].fd, s->id, s->bound ? " bound" : "", len,
		 ap ? "" : " addr NULL", lp ? "" : " len NULL");
	expect_getsockname(&x, len, ap, lp);
	r = getsockname(fds[fi].fd, ap, lp);
	if (check(r, errno, &x) && !r)
		check_getsockname(s, buf, len, l);
}

/* The calls vjchan(7) says a channel refuses with EOPNOTSUPP. */
void op_refused(void)
{
	int fi = pick_fd(), what = below(&R, 12), fd, r, sv[2];
	struct sockaddr_vj sa = { .svj_family = AF_VJCHAN };
	uint8_t buf[64] = { 0 };
	socklen_t l = sizeof(buf);
	struct msghdr mh = { 0 };
	struct iovec iov = { buf, sizeof(buf) };
	struct expect x;
	static const char *const names[] = { "connect", "listen", "accept",
		"sendto", "recvfrom", "shutdown", "getpeername", "read", "write",
		"sendmsg", "recvmsg", "socketpair" };

	if (fi < 0)
		return;
	fd = fds[fi].fd;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	op_begin(O_REFUSED, "%s(fd %d sock %u)", names[what], fd,
		 socks[fds[fi].sock].id);
	expect_simple(&x, what == 11 ? X_SOCKETPAIR : X_REFUSED);
	switch (what) {
	case 0: r = connect(fd, (struct sockaddr *)&sa, sizeof(sa)); break;
	case 1: r = listen(fd, 4); break;
	case 2: r = accept4(fd, NULL, NULL, SOCK_NONBLOCK); break;
	case 3: r = sendto(fd, buf, 16, MSG_DONTWAIT, NULL, 0); break;
	case 4: r = recvfrom(fd, buf, 16, MSG_DONTWAIT, NULL, NULL); break;
	case 5: r = shutdown(fd, SHUT_RDWR); break;
	case 6: r = getpeername(fd, (struct sockaddr *)buf, &l); break;
	case 7: r = read(fd, buf, 16); break;
	case 8: r = write(fd, buf, 16); break;
	case 9: r = sendmsg(fd, &mh, MSG_DONTWAIT); break;
	case 10: r = recvmsg(fd, &mh, MSG_DONTWAIT); break;
	default:
		r = socketpair(AF_VJCHAN, SOCK_DGRAM, 0, sv);
		if (!r) {
			close(sv[0]);
			close(sv[1]);
		}
		break;
	}
	check(r, errno, &x);
}
