// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: the model.  Every socket (ring created or not, geometry, bound
 * flow, file references), descriptor and mapping the fuzzer made, and for
 * each call what vjchan(7) allows it to return in that state, plus what
 * the generic socket and mm code in front of the family documents (EBADF,
 * EFAULT, EINVAL for lengths beyond sockaddr_storage, ...).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "lib/pkt.h"

/* --- expected results ----------------------------------------------- */

void x_init(struct expect *x)
{
	x->ok = true;
	x->n = 0;
}

void x_may(struct expect *x, int e)
{
	int i;

	for (i = 0; i < x->n; i++)
		if (x->err[i] == e)
			return;
	if (x->n < (int)ARRAY_SIZE(x->err))
		x->err[x->n++] = e;
}

void x_must(struct expect *x, int e)
{
	x_may(x, e);
	x->ok = false;
}

bool x_has(const struct expect *x, int e)
{
	int i;

	for (i = 0; i < x->n; i++)
		if (x->err[i] == e)
			return true;
	return false;
}

const char *x_str(const struct expect *x)
{
	static char buf[400];
	size_t l = 0;
	int i;

	buf[0] = 0;
	if (x->ok)
		l += snprintf(buf + l, sizeof(buf) - l, "success");
	for (i = 0; i < x->n && l < sizeof(buf); i++)
		l += snprintf(buf + l, sizeof(buf) - l, "%s%s", l ? "|" : "",
			      errname(x->err[i]));
	return buf;
}

/* --- sockets, descriptors, mappings --------------------------------- */

const char *const ring_names[] = { "no", "yes", "maybe" };

struct msock socks[MAX_SOCKS];
struct mfd fds[MAX_FDS];
struct mmapping maps[MAX_MAPS];
static struct epkey epkeys[MAX_EPKEYS];
pthread_rwlock_t map_lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned int next_id = 1;
size_t ring_total;

int live_socks(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_SOCKS; i++)
		n += socks[i].live;
	return n;
}

int live_fds(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_FDS; i++)
		n += fds[i].live;
	return n;
}

int pick_fd(void)
{
	int idx[MAX_FDS], i, n = 0;

	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live)
			idx[n++] = i;
	return n ? idx[below(&R, n)] : -1;
}

/* With pct % chance, a descriptor of a socket for which want() holds. */
int pick_fd_pref(bool (*want)(const struct msock *), unsigned int pct)
{
	int idx[MAX_FDS], i, n = 0;

	if (!chance(&R, pct))
		return pick_fd();
	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live && want(&socks[fds[i].sock]))
			idx[n++] = i;
	return n ? idx[below(&R, n)] : pick_fd();
}

bool sock_unbound(const struct msock *s)
{
	return !s->bound;
}

bool sock_ringless(const struct msock *s)
{
	return s->ring != RING_YES;
}

int pick_map(bool (*ok)(const struct mmapping *))
{
	int idx[MAX_MAPS], i, n = 0;

	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].live && (!ok || ok(&maps[i])))
			idx[n++] = i;
	return n ? idx[below(&R, n)] : -1;
}

bool page_ok(const struct mmapping *m, size_t off, size_t len)
{
	size_t p;

	if (!len || off + len > m->len)
		return false;
	for (p = off / pg; p <= (off + len - 1) / pg; p++)
		if (!m->present[p])
			return false;
	return true;
}

uint32_t load_acq(const struct mmapping *m, uint64_t off)
{
	return __atomic_load_n((uint32_t *)(m->addr + off), __ATOMIC_ACQUIRE);
}

bool map_any(const struct mmapping *m)
{
	(void)m;
	return true;
}

bool map_whole(const struct mmapping *m)
{
	return memchr(m->present, 0, m->npages) == NULL;
}

static bool map_words_ok(const struct mmapping *m)
{
	return page_ok(m, m->off.producer, 4) &&
	       page_ok(m, m->off.consumer, 4) && page_ok(m, m->off.flags, 4);
}

bool map_clean_rw(const struct mmapping *m)
{
	return m->clean && m->writable && m->readable && map_words_ok(m);
}

bool map_dirty_rw(const struct mmapping *m)
{
	return !m->clean && m->writable;
}

/* A readable (writable if asked) mapping of si with its index words. */
int clean_map_of(int si, bool need_write)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++) {
		const struct mmapping *m = &maps[i];

		if (m->live && m->sock == si && m->readable &&
		    (!need_write || m->writable) && map_words_ok(m))
			return i;
	}
	return -1;
}

size_t ring_est(const struct vj_ring_req *q)
{
	/* vjchan(7): a 256-byte header and the descriptors, rounded up to a
	 * page, plus the buffers.
	 */
	size_t hdr = 256 + (size_t)q->entries * sizeof(struct vj_desc);

	return ((hdr + 4095) & ~(size_t)4095) +
	       (size_t)q->entries * q->buf_size;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

bool geom_valid(const struct vj_ring_req *q)
{
	return q->entries >= VJ_RING_MIN_ENTRIES &&
	       q->entries <= VJ_RING_MAX_ENTRIES && pow2(q->entries) &&
	       q->buf_size >= VJ_BUF_MIN_SIZE &&
	       q->buf_size <= VJ_BUF_MAX_SIZE && pow2(q->buf_size) &&
	       !q->flags && !q->pad && ring_est(q) <= (1u << 30);
}

void ring_set(struct msock *s, int state)
{
	if (s->ring == RING_NO && state != RING_NO) {
		s->ring_bytes = ring_est(&s->req);
		ring_total += s->ring_bytes;
	} else if (s->ring != RING_NO && state == RING_NO) {
		ring_total -= s->ring_bytes;
		s->ring_bytes = 0;
	}
	s->ring = state;
}

static void epkeys_drop(unsigned int id)
{
	int i;

	for (i = 0; i < MAX_EPKEYS; i++)
		if (epkeys[i].live && epkeys[i].id == id)
			epkeys[i].live = false;
}

struct epkey *epkey_find(unsigned int id, int fd)
{
	int i;

	for (i = 0; i < MAX_EPKEYS; i++)
		if (epkeys[i].live && epkeys[i].id == id && epkeys[i].fd == fd)
			return &epkeys[i];
	return NULL;
}

void epkey_add(unsigned int id, int fd)
{
	int i;

	for (i = 0; i < MAX_EPKEYS; i++)
		if (!epkeys[i].live) {
			epkeys[i] = (struct epkey){ true, id, fd };
			return;
		}
}

int sock_new(int fd, bool clean)
{
	struct stat st;
	int i;

	for (i = 0; i < MAX_SOCKS; i++)
		if (!socks[i].live)
			break;
	if (i == MAX_SOCKS)
		return -1;
	memset(&socks[i], 0, sizeof(socks[i]));
	socks[i].live = true;
	socks[i].clean = clean;
	socks[i].id = next_id++;
	socks[i].req.entries = VJ_RING_DEF_ENTRIES;
	socks[i].req.buf_size = VJ_BUF_DEF_SIZE;
	if (!fstat(fd, &st))
		socks[i].ino = st.st_ino;
	return i;
}

/* The last reference went: the socket is released and its flow unbound. */
static void sock_put_ref(int si)
{
	struct msock *s = &socks[si];

	if (s->nfds || s->nmaps)
		return;
	ring_set(s, RING_NO);
	epkeys_drop(s->id);
	s->live = false;
	s->bound = false;
}

int fd_add(int fd, int si)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (!fds[i].live) {
			fds[i] = (struct mfd){ true, fd, si };
			socks[si].nfds++;
			return i;
		}
	return -1;
}

void fd_forget(int fi)
{
	struct mfd *f = &fds[fi];

	f->live = false;
	socks[f->sock].nfds--;
	sock_put_ref(f->sock);
}

void map_add(int mi, int si, uint8_t *addr, int prot,
	     const struct vj_mmap_offsets *o)
{
	size_t npg = o->size / pg;

	ring_set(&socks[si], RING_YES);
	pthread_rwlock_wrlock(&map_lock);
	maps[mi] = (struct mmapping){
		.live = true, .clean = socks[si].clean, .sock = si,
		.readable = prot & PROT_READ, .writable = prot & PROT_WRITE,
		.addr = addr, .len = o->size, .npages = npg, .off = *o,
	};
	maps[mi].present = malloc(npg);
	memset(maps[mi].present, 1, npg);
	pthread_rwlock_unlock(&map_lock);
	socks[si].nmaps++;
}

void map_forget(int mi)
{
	struct mmapping *m = &maps[mi];
	int si = m->sock;

	pthread_rwlock_wrlock(&map_lock);
	m->live = false;
	free(m->present);
	m->present = NULL;
	pthread_rwlock_unlock(&map_lock);
	socks[si].nmaps--;
	sock_put_ref(si);
}

/* --- flows ---------------------------------------------------------- */

bool ifindex_exists(uint32_t i)
{
	char name[IF_NAMESIZE];

	if (i && ((int)i == if_lo || (int)i == if_vjt || (int)i == if_eth0 ||
		  (int)i == if_eth1))
		return true;
	return i && i < 0x80000000u && if_indextoname(i, name);
}

static bool addr_any(const union vj_addr *a)
{
	return !(a->ip6[0] | a->ip6[1] | a->ip6[2] | a->ip6[3]);
}

/* Mask bits in the rank order of vjchan(7), most significant first. */
static unsigned int flow_mask(const struct vj_flow *f)
{
	return (f->dport ? 32 : 0) | (!addr_any(&f->daddr) ? 16 : 0) |
	       (f->sport ? 8 : 0) | (!addr_any(&f->saddr) ? 4 : 0) |
	       (f->proto ? 2 : 0) | (f->ifindex ? 1 : 0);
}

/* More non-wildcard fields wins; then the greater mask. */
unsigned int flow_rank(const struct vj_flow *f)
{
	unsigned int m = flow_mask(f);

	return (unsigned int)__builtin_popcount(m) << 8 | m;
}

/* Would a packet with these headers, received on ifindex, match f? */
bool flow_matches(const struct vj_flow *f, const struct pkt_info *pi,
		  uint32_t ifindex)
{
	size_t alen = pi->family == AF_INET ? 4 : 16;

	if (f->family != pi->family)
		return false;
	if (f->proto && f->proto != pi->proto)
		return false;
	if (f->sport && ntohs(f->sport) != pi->sport)
		return false;
	if (f->dport && ntohs(f->dport) != pi->dport)
		return false;
	if (f->ifindex && f->ifindex != ifindex)
		return false;
	if (!addr_any(&f->saddr) && memcmp(&f->saddr, &pi->saddr, alen))
		return false;
	if (!addr_any(&f->daddr) && memcmp(&f->daddr, &pi->daddr, alen))
		return false;
	return true;
}

const char *flow_str(const struct vj_flow *f)
{
	static char buf[4][256];
	static int n;
	char *b = buf[n++ % 4], sa[64], da[64];

	if (f->family == AF_INET6) {
		inet_ntop(AF_INET6, &f->saddr, sa, sizeof(sa));
		inet_ntop(AF_INET6, &f->daddr, da, sizeof(da));
	} else {
		snprintf(sa, sizeof(sa), "%08x:%08x%08x%08x",
			 ntohl(f->saddr.ip6[0]), f->saddr.ip6[1],
			 f->saddr.ip6[2], f->saddr.ip6[3]);
		snprintf(da, sizeof(da), "%08x:%08x%08x%08x",
			 ntohl(f->daddr.ip6[0]), f->daddr.ip6[1],
			 f->daddr.ip6[2], f->daddr.ip6[3]);
	}
	snprintf(b, 256, "{fam %u proto %u pad %u sport %u dport %u if %u %s > %s}",
		 f->family, f->proto, f->pad, ntohs(f->sport), ntohs(f->dport),
		 f->ifindex, sa, da);
	return b;
}

/* --- what each call may return ---------------------------------------- */

/* setsockopt(): the generic code checks the length, then vjchan(7). */
void expect_set_ring(struct expect *x, const struct msock *s,
		     const struct ring_opt *o)
{
	x_init(x);
	if (o->optlen < 0) {
		x_must(x, EINVAL);
	} else if (o->level != SOL_VJCHAN || o->optname != VJ_RING) {
		x_must(x, ENOPROTOOPT);
	} else if (o->optlen < (int)sizeof(o->req)) {
		x_must(x, EINVAL);
	} else if (o->head_fault) {
		x_must(x, EFAULT);
	} else {
		if (o->tail_fault) {
			x_must(x, EFAULT);
			if (o->tail_nonzero)
				x_must(x, E2BIG);
		} else if (o->tail_nonzero) {
			x_must(x, E2BIG);
		}
		if (!geom_valid(&o->req))
			x_must(x, EINVAL);
		if (s->ring == RING_YES)
			x_must(x, EBUSY);
		else if (s->ring == RING_MAYBE)
			x_may(x, EBUSY);
	}
}

void model_set_ring(struct msock *s, const struct vj_ring_req *req, int r,
		    int err)
{
	if (!r) {
		if (s->ring == RING_MAYBE)
			ring_set(s, RING_NO);
		s->req = *req;
	} else if (err == EBUSY) {
		ring_set(s, RING_YES);
	}
}

/*
 * VJ_GROUP: the option is copied and checked whole (vjchan(7)), then
 * refused once the channel is bound.  The fuzzed sockets are raw channels,
 * where any id is valid.
 */
void expect_set_group(struct expect *x, const struct msock *s,
		      const struct group_opt *o)
{
	x_init(x);
	if (o->optlen < 0 || o->optlen < (int)sizeof(o->g)) {
		x_must(x, EINVAL);
	} else if (o->null) {
		x_must(x, EFAULT);
	} else if (o->tail_nonzero) {
		x_must(x, E2BIG);
	} else if (o->g.pad || o->g.spread > VJ_SPREAD_CONSUMER) {
		x_must(x, EINVAL);
	} else if (s->bound) {
		x_must(x, EBUSY);
	}
}

void expect_socket_bad(struct expect *x, int type, int proto)
{
	int base = type & 0xf;

	x_init(x);
	if (type < 0 || (type & ~(0xf | SOCK_CLOEXEC | SOCK_NONBLOCK)) ||
	    base >= SOCK_PACKET + 1)
		x_must(x, EINVAL);		/* socket(2): unknown type */
	else if (base != SOCK_DGRAM)
		x_must(x, ESOCKTNOSUPPORT);
	if (proto)
		x_must(x, EPROTONOSUPPORT);
	x_may(x, EMFILE);
	x_may(x, ENFILE);
}

/* val_ok: optval is a whole buffer; len_ok: optlen is not NULL. */
/*
 * @least: the structure's first size, the least optlen accepted; @val_room:
 * bytes writable at optval (0 for NULL, SIZE_MAX for plenty).
 */
void expect_getsockopt(struct expect *x, int level, int optname, int len,
		       size_t size, size_t least, size_t val_room, bool len_ok)
{
	x_init(x);
	if (level != SOL_VJCHAN) {
		x_must(x, ENOPROTOOPT);
		if (!len_ok)
			x_may(x, EFAULT);
		return;
	}
	if (!len_ok)
		x_must(x, EFAULT);
	if (optname < VJ_RING || optname > VJ_GROUP ||
	    optname == VJ_BIND_FLAGS)	/* a UDP channel socket's */
		x_must(x, ENOPROTOOPT);
	else if (len_ok && (len < 0 || (size_t)len < least))
		x_must(x, EINVAL);
	else if (len_ok && ((size_t)len < size ? (size_t)len : size) > val_room)
		x_must(x, EFAULT);	/* the copy runs into the guard */
}

/* The errno a bind() with these svj_flags must fail with, if any. */
static void x_bind_flags(struct expect *x, uint16_t fl)
{
	uint16_t mode = fl & VJ_BIND_FW_MASK;

	if (fl & ~(VJ_BIND_FW_MASK | VJ_BIND_F_TRANSIT | VJ_BIND_F_DIRECT) ||
	    mode == VJ_BIND_FW_MASK)
		x_must(x, EINVAL);
	else if ((fl & (VJ_BIND_F_TRANSIT | VJ_BIND_F_DIRECT)) &&
		 mode != VJ_BIND_FW_BYPASS)
		x_must(x, EINVAL);
	else if (mode == VJ_BIND_FW_SANCTIONED)
		x_may(x, EOPNOTSUPP);	/* a kernel without conntrack marks */
}

/*
 * A direct bypass channel also needs a device (EINVAL) whose driver offers
 * direct receive (EOPNOTSUPP): none of the devices the fuzzer names (lo,
 * vjtest0, eth0 on virtio_net) does.
 */
static void x_bind_direct(struct expect *x, uint16_t fl,
			  const struct vj_flow *f)
{
	if (!(fl & VJ_BIND_F_DIRECT) ||
	    (fl & VJ_BIND_FW_MASK) != VJ_BIND_FW_BYPASS)
		return;
	x_must(x, f->ifindex ? EOPNOTSUPP : EINVAL);
}

/* @o, bound, and @s binding with @flags are members of one group. */
static bool same_group(const struct msock *o, const struct msock *s,
		       uint16_t flags)
{
	return s->group.id && o->group.id == s->group.id &&
	       o->group.spread == s->group.spread &&
	       (o->bind_flags & VJ_BIND_FW_MASK) == (flags & VJ_BIND_FW_MASK);
}

void expect_bind(struct expect *x, const struct msock *s,
		 const struct bind_arg *b)
{
	const struct vj_flow *fl = &b->sa.svj_flow;
	int i;

	x_init(x);
	if (b->len < 0 || b->len > SS_LEN) {
		x_must(x, EINVAL);		/* bind(2): addrlen */
		return;
	}
	if ((b->null && b->len > 0) || b->fault) {
		x_must(x, EFAULT);
		return;
	}
	if (b->len < SVJ_LEN) {
		x_must(x, EINVAL);
		return;
	}
	if (b->sa.svj_family != AF_VJCHAN)
		x_must(x, EAFNOSUPPORT);
	if (b->tail_at >= 0)
		x_must(x, E2BIG);
	x_bind_flags(x, b->sa.svj_flags);
	x_bind_direct(x, b->sa.svj_flags, fl);
	if (fl->family != AF_INET && fl->family != AF_INET6)
		x_must(x, EAFNOSUPPORT);
	if (fl->family == AF_INET &&
	    (fl->saddr.ip6[1] | fl->saddr.ip6[2] | fl->saddr.ip6[3] |
	     fl->daddr.ip6[1] | fl->daddr.ip6[2] | fl->daddr.ip6[3]))
		x_must(x, EINVAL);
	if (fl->pad)
		x_must(x, EINVAL);
	if (s->bound)
		x_must(x, EINVAL);
	if (fl->ifindex && !ifindex_exists(fl->ifindex))
		x_must(x, ENODEV);
	/* A direct channel owns its queue alone: no group. */
	if (s->group.id && (b->sa.svj_flags & VJ_BIND_F_DIRECT))
		x_must(x, EINVAL);
	for (i = 0; i < MAX_SOCKS; i++)
		if (&socks[i] != s && socks[i].live && socks[i].bound &&
		    !memcmp(&socks[i].flow, fl, sizeof(*fl)) &&
		    !same_group(&socks[i], s, b->sa.svj_flags))
			x_must(x, EADDRINUSE);
	if (s->ring != RING_YES)
		x_may(x, ENOMEM);
}

void model_bind(struct msock *s, const struct sockaddr_vj *sa, int r, int err)
{
	if (!r) {
		s->bound = true;
		s->bind_flags = sa->svj_flags;
		s->flow = sa->svj_flow;
		s->bound_at = now_ns();
		ring_set(s, RING_YES);
	} else if ((err == EADDRINUSE || err == ENODEV || err == ENOMEM ||
		    (err == EOPNOTSUPP && (sa->svj_flags & VJ_BIND_F_DIRECT))) &&
		   s->ring == RING_NO) {
		/* Whether a bind that failed this late made the ring is not
		 * documented.
		 */
		ring_set(s, RING_MAYBE);
	}
}

void expect_getsockname(struct expect *x, int len, bool addr_ok,
			bool len_ok)
{
	x_init(x);
	if (!len_ok)
		x_must(x, EFAULT);
	else if (len < 0)
		x_must(x, EINVAL);
	else if (!addr_ok && len > 0)
		x_must(x, EFAULT);
}

void expect_mmap(struct expect *x, const struct vj_mmap_offsets *o,
		 size_t len, off_t off, int flags)
{
	size_t plen = (len + pg - 1) & ~(size_t)(pg - 1);

	x_init(x);
	if (!len)
		x_must(x, EINVAL);
	if (off % pg)
		x_must(x, EINVAL);
	if (off > ((off_t)1 << 50))
		x_must(x, EOVERFLOW);
	/* The whole area or the part before the buffers at 0, the buffers. */
	if (off ? (uint64_t)off != o->bufs || plen != o->size - o->bufs :
		  plen != o->size && plen != o->bufs)
		x_must(x, EINVAL);
	if (!(flags & MAP_SHARED))
		x_must(x, EINVAL);
	x_may(x, ENOMEM);
}

void expect_epoll_ctl(struct expect *x, int op, bool registered)
{
	x_init(x);
	if (op == EPOLL_CTL_ADD) {
		if (registered)
			x_must(x, EEXIST);
		x_may(x, ENOMEM);
		x_may(x, ENOSPC);
	} else if (!registered) {
		x_must(x, ENOENT);
	}
}

/* The calls whose results depend little on the state. */
void expect_simple(struct expect *x, enum simple_call call)
{
	x_init(x);
	switch (call) {
	case X_SOCKET:
		x_may(x, EMFILE);
		x_may(x, ENFILE);
		x_may(x, ENOMEM);
		x_may(x, ENOBUFS);
		break;
	case X_DUP:
		x_may(x, EMFILE);
		break;
	case X_FORK:
		x_may(x, EAGAIN);
		x_may(x, ENOMEM);
		break;
	case X_POLL:
		x_may(x, ENOMEM);
		break;
	case X_CLOSE_BAD:
		x_must(x, EBADF);
		break;
	case X_REFUSED:
		/* vjchan(7): a channel refuses them. */
		x_must(x, EOPNOTSUPP);
		break;
	case X_SOCKETPAIR:
		x_must(x, EOPNOTSUPP);
		x_may(x, EMFILE);
		break;
	case X_SOL_SET:
		/* An option the generic socket code takes: root may set it. */
		break;
	case X_SOL_BADLEN:
		/* SO_ATTACH_FILTER with an int, not a struct sock_fprog. */
		x_must(x, EINVAL);
		break;
	case X_SOL_UNKNOWN:
		x_must(x, ENOPROTOOPT);
		break;
	case X_MREMAP_GROW:
		/* A ring mapping never grows past the ring. */
		x_must(x, EFAULT);
		x_must(x, ENOMEM);
		x_must(x, EINVAL);
		break;
	case X_MREMAP_SHRINK:
	case X_MREMAP_MOVE:
		/* A whole ring mapping may shrink, and move whole. */
		break;
	case X_MMAP_ANON:
		x_may(x, ENOMEM);
		break;
	case X_INJECT:
		x_may(x, ENOBUFS);	/* the pool ran dry: frames held in rings */
		break;
	case X_INJECT_BOGUS:
		x_must(x, EINVAL);
		x_may(x, ENOBUFS);
		break;
	case X_ANY:
		break;
	}
}
