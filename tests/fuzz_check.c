// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: the checks.  Each call's result against what the model allows; on
 * the clean sockets (nothing scribbles on their rings) every descriptor
 * they receive (bounds, flags, lengths, that the packet matches the flow,
 * that no more specific channel was bound when it arrived, the driver
 * payload pattern), their counters (no rejected consumer index) and
 * poll(); and what reads give back (options, addresses, /proc/net/vjchan).
 * A failed check stops the run with "FAIL FUZZ: seed N op K: ...".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "fuzz.h"
#include "lib/pattern.h"
#include "lib/pkt.h"
#include "lib/proc.h"
#include "lib/ring.h"

/* ret < 0 means the call failed with err.  True if the result was ok. */
bool check(long ret, int err, const struct expect *x)
{
	if (ret >= 0) {
		op_note("ok");
		if (x->ok) {
			op_ok();
			return true;
		}
		failf("%s: succeeded (returned %ld), expected %s", opdesc, ret,
		      x_str(x));
		return false;
	}
	op_note(errname(err));
	if (x_has(x, err))
		return true;
	failf("%s: failed with %s, expected %s", opdesc, errname(err),
	      x_str(x));
	return false;
}

void check_offsets(const struct msock *s, const struct vj_mmap_offsets *o)
{
	uint64_t words[3] = { o->producer, o->consumer, o->flags };
	int i;

	if (o->entries != s->req.entries || o->buf_size != s->req.buf_size) {
		failf("%s: offsets give %u x %u, the geometry is %u x %u",
		      opdesc, o->entries, o->buf_size, s->req.entries,
		      s->req.buf_size);
		return;
	}
	for (i = 0; i < 3; i++)
		if (words[i] % 4 || words[i] + 4 > o->desc) {
			failf("%s: index word %d at %llu, descriptors at %llu",
			      opdesc, i, (unsigned long long)words[i],
			      (unsigned long long)o->desc);
			return;
		}
	if ((o->producer > o->consumer ? o->producer - o->consumer :
	     o->consumer - o->producer) < 64 ||
	    o->desc + (uint64_t)o->entries * sizeof(struct vj_desc) > o->bufs ||
	    o->bufs + (uint64_t)o->entries * o->buf_size > o->size ||
	    o->size % pg || o->desc % 8) {
		failf("%s: inconsistent offsets prod %llu cons %llu flags %llu desc %llu bufs %llu size %llu",
		      opdesc, (unsigned long long)o->producer,
		      (unsigned long long)o->consumer,
		      (unsigned long long)o->flags,
		      (unsigned long long)o->desc,
		      (unsigned long long)o->bufs,
		      (unsigned long long)o->size);
	}
}

void check_stats(struct msock *s, const struct vj_statistics *st)
{
	const uint64_t *a = (const uint64_t *)st, *b = (const uint64_t *)&s->last;
	unsigned int i;

	if (s->ring == RING_NO && memcmp(st, &(struct vj_statistics){ 0 },
					 sizeof(*st))) {
		failf("%s: counters nonzero without a ring", opdesc);
		return;
	}
	for (i = 0; i < sizeof(*st) / 8; i++)
		if (a[i] < b[i]) {
			failf("%s: counter %u went back from %llu to %llu",
			      opdesc, i, (unsigned long long)b[i],
			      (unsigned long long)a[i]);
			return;
		}
	if (st->rx_driver > st->rx_packets ||
	    st->rx_truncated > st->rx_packets ||
	    st->rx_bytes > st->rx_packets * (uint64_t)VJ_BUF_MAX_SIZE ||
	    st->rx_bytes < st->rx_packets * 34) {
		failf("%s: inconsistent counters packets %llu bytes %llu trunc %llu driver %llu",
		      opdesc, (unsigned long long)st->rx_packets,
		      (unsigned long long)st->rx_bytes,
		      (unsigned long long)st->rx_truncated,
		      (unsigned long long)st->rx_driver);
		return;
	}
	/* Only valid consumer indices are ever stored into a clean ring. */
	if (s->clean && st->rx_invalid_cons) {
		failf("%s: clean ring counted %llu invalid consumer indices",
		      opdesc, (unsigned long long)st->rx_invalid_cons);
		return;
	}
	s->last = *st;
}

/* The headers of a packet a channel may receive, and the packet's lengths. */
static const char *check_headers(const struct vj_desc *d,
				 const struct pkt_info *pi)
{
	bool trunc = d->flags & VJ_DESC_F_TRUNC;

	if ((!trunc && pi->ip_len != pi->avail) ||
	    (trunc && pi->ip_len <= pi->avail))
		return pi->family == AF_INET ?
		       "IPv4 total length disagrees with the descriptor" :
		       "IPv6 payload length disagrees with the descriptor";
	if (pi->frag)
		return pi->family == AF_INET ? "an IPv4 fragment was claimed" :
		       "an IPv6 fragment was claimed";
	return NULL;
}

void check_desc(int si, const struct mmapping *m, uint32_t idx)
{
	const struct msock *s = &socks[si];
	const struct vj_mmap_offsets *o = &m->off;
	uint64_t doff = o->desc + (uint64_t)(idx & (o->entries - 1)) *
			sizeof(struct vj_desc);
	struct vj_desc d;
	const uint8_t *p;
	struct pkt_info pi;
	const char *why;
	uint64_t now = now_ns();
	int i;

	if (!page_ok(m, doff, sizeof(d)))
		return;
	desc_read((const struct vj_desc *)(m->addr + doff), &d);

#define DFAIL(...) do {							\
	char __w[300];							\
	snprintf(__w, sizeof(__w), __VA_ARGS__);			\
	failf("%s: sock %u flow %s slot %u: desc {buf %u off %u len %u if %u l3 %u proto %#x flags %#x}: %s", \
	      opdesc, s->id, flow_str(&s->flow), idx, d.buf, d.off, d.len, \
	      d.ifindex, d.l3_off, ntohs(d.proto), d.flags, __w);	\
	return;								\
} while (0)

	why = desc_bounds(&d, o->entries, o->buf_size);
	if (why)
		DFAIL("%s", why);
	if (d.flags & ~(VJ_DESC_F_L2 | VJ_DESC_F_TRUNC | VJ_DESC_F_DRIVER |
			VJ_DESC_F_XDP | VJ_DESC_F_FILTERED | VJ_DESC_F_CSUM_OK))
		DFAIL("unknown flags");
	if (__builtin_popcount(d.flags & (VJ_DESC_F_DRIVER | VJ_DESC_F_XDP |
					  VJ_DESC_F_FILTERED)) > 1)
		DFAIL("more than one path");
	if (!(d.flags & VJ_DESC_F_L2) || d.l3_off != 14)
		DFAIL("no 14-byte link header");
	if ((d.flags & VJ_DESC_F_TRUNC) && d.off + d.len != o->buf_size)
		DFAIL("TRUNC but the buffer is not full");
	if (!d.ifindex || !ifindex_exists(d.ifindex))
		DFAIL("ifindex of no device");
	if ((d.flags & VJ_DESC_F_DRIVER) && (int)d.ifindex != if_vjt)
		DFAIL("DRIVER frame not from vjtest0 (%d)", if_vjt);
	if (d.tstamp > now || d.tstamp + NSEC < t_start)
		DFAIL("tstamp %llu outside the run [%llu, %llu]",
		      (unsigned long long)d.tstamp,
		      (unsigned long long)t_start, (unsigned long long)now);
	if (d.len < d.l3_off)
		DFAIL("shorter than its link header");
	descs_checked++;
	if (!page_ok(m, o->bufs + (uint64_t)d.buf * o->buf_size + d.off,
		     d.len))
		return;
	p = m->addr + o->bufs + (uint64_t)d.buf * o->buf_size + d.off;
	why = pkt_parse_at(&d, p, &pi);
	if (!why)
		why = check_headers(&d, &pi);
	if (why)
		DFAIL("%s", why);
	/*
	 * A packet whose transport header is cut cannot be classified by
	 * ports; where it goes vjchan(7) leaves open.
	 */
	if (!pi.ports && (proto_has_ports(pi.proto) || pi.l4_err))
		return;
	descs_classified++;
	if (!flow_matches(&s->flow, &pi, d.ifindex))
		DFAIL("packet (proto %u ports %u > %u) does not match the flow",
		      pi.proto, pi.sport, pi.dport);
	/*
	 * The most specific channel wins: no channel bound well before the
	 * packet was taken (the tstamp follows the lookup by at most the
	 * copy; a second covers a descheduled vCPU) may outrank this one.
	 */
	for (i = 0; i < MAX_SOCKS; i++) {
		const struct msock *o2 = &socks[i];

		if (i == si || !o2->live || !o2->bound ||
		    o2->bound_at + NSEC > d.tstamp)
			continue;
		if (flow_matches(&o2->flow, &pi, d.ifindex) &&
		    flow_rank(&o2->flow) > flow_rank(&s->flow))
			DFAIL("sock %u with the more specific flow %s was bound",
			      o2->id, flow_str(&o2->flow));
	}
	if (pi.proto == IPPROTO_UDP && pi.l4len >= 8 + 4 &&
	    pi.dport >= PBASE && pi.dport < PBASE + NPORTS &&
	    !payload_ok(pi.l4 + 8, pi.l4len - 8, NULL))
		DFAIL("payload pattern damaged");
#undef DFAIL
}

/* A clean ring as a consumer finds it: prod - cons packets, no flags. */
void check_ring_state(const struct msock *s, uint32_t prod, uint32_t flags,
		      uint32_t entries)
{
	uint32_t n = prod - s->cons;

	if (n > entries)
		failf("%s: producer %u is %u ahead of consumer %u, ring of %u",
		      opdesc, prod, n, s->cons, entries);
	else if (flags)
		failf("%s: ring flags %#x, no device went away", opdesc, flags);
	else if (n && !s->bound)
		failf("%s: %u packets in the ring of an unbound socket",
		      opdesc, n);
}

/*
 * One entry of poll()'s result.  m: a mapping of a clean socket, whose
 * producer was before when poll() was called.
 */
void check_poll(const struct msock *s, int fd, short rv,
		const struct mmapping *m, uint32_t before)
{
	/* No device goes away here: no POLLERR, no POLLHUP. */
	if ((rv & ~(POLLIN | POLLRDNORM)) ||
	    !(rv & POLLIN) != !(rv & POLLRDNORM) ||
	    (s->ring == RING_NO && rv)) {
		failf("%s: fd %d sock %u ring %s: revents %#x", opdesc, fd,
		      s->id, ring_names[s->ring], rv);
		return;
	}
	if (!m)
		return;
	/*
	 * The producer only grows: readable before poll means POLLIN,
	 * POLLIN means readable after it.
	 */
	if (before != s->cons && !(rv & POLLIN))
		failf("%s: sock %u: producer %u, consumer %u, no POLLIN",
		      opdesc, s->id, before, s->cons);
	if ((rv & POLLIN) && load_acq(m, m->off.producer) == s->cons)
		failf("%s: sock %u: POLLIN on an empty ring (index %u)",
		      opdesc, s->id, s->cons);
}

/* epoll_wait(): only POLLIN, only for registered (id, fd) keys. */
void check_epoll_events(const struct epoll_event *ev, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned int id = ev[i].data.u64 >> 32;
		int fd = (int)(uint32_t)ev[i].data.u64;

		if (ev[i].events & ~(EPOLLIN | EPOLLRDNORM)) {
			failf("%s: events %#x for sock %u", opdesc,
			      ev[i].events, id);
			return;
		}
		if (!epkey_find(id, fd)) {
			failf("%s: event for sock %u fd %d, which is not registered (or released)",
			      opdesc, id, fd);
			return;
		}
	}
}

/*
 * What getsockopt(SOL_VJCHAN) wrote at @buf + @at: exactly @want bytes of
 * the option (less than its @size for an older, shorter structure), and
 * its value.
 */
void check_getsockopt(struct msock *s, int optname, const uint8_t *buf,
		      size_t at, size_t size, size_t want, socklen_t got)
{
	size_t i;

	if (got != want) {
		failf("%s: optlen %u returned, want %zu", opdesc, got, want);
		return;
	}
	for (i = 0; i < 256; i++)
		if ((i < at || i >= at + want) && buf[i] != 0xa5) {
			failf("%s: byte %zu outside the %zu-byte option written",
			      opdesc, i, want);
			return;
		}
	if (want < size || at)	/* older structure, or not read whole */
		return;
	if (optname == VJ_RING) {
		struct vj_ring_req q;

		memcpy(&q, buf, sizeof(q));
		if (memcmp(&q, &s->req, sizeof(q)))
			failf("%s: geometry {%u, %u}, want {%u, %u}", opdesc,
			      q.entries, q.buf_size, s->req.entries,
			      s->req.buf_size);
	} else if (optname == VJ_GROUP) {
		struct vj_group_req g;

		memcpy(&g, buf, sizeof(g));
		if (memcmp(&g, &s->group, sizeof(g)))
			failf("%s: group {%u, %u, %u}, want {%u, %u, 0}",
			      opdesc, g.id, g.spread, g.pad, s->group.id,
			      s->group.spread);
	} else if (optname == VJ_MMAP_OFFSETS) {
		struct vj_mmap_offsets o;

		memcpy(&o, buf, sizeof(o));
		check_offsets(s, &o);
	} else {
		struct vj_statistics st;

		memcpy(&st, buf, sizeof(st));
		check_stats(s, &st);
	}
}

/*
 * A SOL_SOCKET option read back: what a vjchan socket is; SO_PEERCRED of a
 * socket never connected: no pid, uid and gid -1.
 */
void check_sol_value(int name, const uint8_t *val, socklen_t len)
{
	struct ucred uc;
	int v;

	if (name == SO_PEERCRED) {
		memcpy(&uc, val, sizeof(uc));
		if (len != sizeof(uc) || uc.pid || uc.uid != (uid_t)-1 ||
		    uc.gid != (gid_t)-1)
			failf("%s: length %u, pid %d uid %d gid %d", opdesc,
			      len, uc.pid, (int)uc.uid, (int)uc.gid);
		return;
	}
	memcpy(&v, val, sizeof(v));
	if (len != sizeof(v) ||
	    (name == SO_TYPE && v != SOCK_DGRAM) ||
	    (name == SO_DOMAIN && v != AF_VJCHAN) ||
	    (name == SO_PROTOCOL && v != 0) ||
	    (name == SO_ACCEPTCONN && v != 0) ||
	    (name == SO_ERROR && v != 0) ||
	    (name == SO_RCVBUF && v <= 0))
		failf("%s: length %u, value %d", opdesc, len, v);
}

/* What getsockname() wrote: the bound flow, and nothing past it. */
void check_getsockname(const struct msock *s, const uint8_t *buf, int len,
		       socklen_t got)
{
	struct sockaddr_vj want = { .svj_family = AF_VJCHAN };
	int i;

	if (got != (socklen_t)SVJ_LEN) {
		failf("%s: length %u returned, want %d", opdesc, got, SVJ_LEN);
		return;
	}
	if (s->bound) {
		want.svj_flags = s->bind_flags;
		want.svj_flow = s->flow;
	}
	len = len < SVJ_LEN ? len : SVJ_LEN;
	if (memcmp(buf, &want, len))
		failf("%s: address differs from the bound flow %s", opdesc,
		      s->bound ? flow_str(&s->flow) : "(none)");
	for (i = len; i < 256; i++)
		if (buf[i] != 0xa5) {
			failf("%s: byte %d beyond the address written", opdesc, i);
			return;
		}
}

struct proc_seen {
	bool seen[MAX_SOCKS];
	int n;
};

static int proc_line(char *line, void *arg)
{
	struct proc_seen *ps = arg;
	struct proc_chan pc;
	int i;

	ps->n++;
	if (proc_chan_parse(line, &pc)) {
		failf("%s: bad line \"%s\"", opdesc, line);
		return 1;
	}
	for (i = 0; i < MAX_SOCKS; i++)
		if (socks[i].live && socks[i].bound && socks[i].ino == pc.ino)
			break;
	if (i == MAX_SOCKS) {
		failf("%s: inode %lu listed, no such bound socket", opdesc,
		      pc.ino);
		return 1;
	}
	ps->seen[i] = true;
	if (strcmp(pc.family, socks[i].flow.family == AF_INET ? "ipv4" : "ipv6") ||
	    pc.entries != socks[i].req.entries ||
	    pc.buf_size != socks[i].req.buf_size) {
		failf("%s: sock %u listed as %s %u x %u, is %s %u x %u",
		      opdesc, socks[i].id, pc.family, pc.entries, pc.buf_size,
		      flow_str(&socks[i].flow), socks[i].req.entries,
		      socks[i].req.buf_size);
		return 1;
	}
	return 0;
}

/* /proc/net/vjchan lists exactly the bound channels, with their geometry. */
void check_proc(void)
{
	struct proc_seen ps = { .n = 0 };
	long long live = -1;
	int r, want = 0, i;

	r = proc_chan_each(proc_line, &ps);
	if (r < 0) {
		failf("%s: %s", opdesc, r == -EBADMSG ? "no header line" :
		      errname(-r));
		return;
	}
	if (failed)
		return;
	for (i = 0; i < MAX_SOCKS; i++)
		if (socks[i].live && socks[i].bound) {
			want++;
			if (!ps.seen[i]) {
				failf("%s: bound sock %u (inode %lu) not listed",
				      opdesc, socks[i].id, socks[i].ino);
				return;
			}
		}
	if (ps.n != want) {
		failf("%s: %d lines, %d bound channels", opdesc, ps.n, want);
		return;
	}
	if (pool_read_key("channels_live", &live) || live < live_socks()) {
		failf("%s: channels_live %lld, %d sockets open", opdesc, live,
		      live_socks());
		return;
	}
	op_note("ok");
	op_ok();
}
