// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: generators of the memory calls.  mmap() with boundary lengths,
 * offsets, protections and flags, munmap() of whole and partial mappings,
 * mremap() that grows, shrinks and moves them; a consumer that reads the
 * clean rings as a correct one would (every descriptor it takes is
 * checked), and a scribbler of junk into the dirty ones: consumer,
 * producer, flags, descriptors, buffers.  With -j N, N threads scribble
 * too, all the time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

void op_mmap(void)
{
	struct vj_mmap_offsets o;
	socklen_t ol = sizeof(o);
	int fi = pick_fd(), prot, flags, mi, r;
	size_t len;
	off_t off = 0;
	struct expect x;
	struct msock *s;
	struct mfd *f;
	uint8_t *p;

	if (fi < 0)
		return;
	f = &fds[fi];
	s = &socks[f->sock];
	for (mi = 0; mi < MAX_MAPS; mi++)
		if (!maps[mi].live)
			break;
	if (mi == MAX_MAPS)
		return;
	budget_guard(f);
	if (failed)
		return;
	op_begin(O_GETSOCKOPT, "getsockopt(fd %d sock %u, VJ_MMAP_OFFSETS) before mmap",
		 f->fd, s->id);
	expect_simple(&x, X_ANY);
	r = getsockopt(f->fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, &o, &ol);
	if (!check(r, errno, &x))
		return;
	check_offsets(s, &o);
	if (failed)
		return;

	switch (below(&R, 14)) {
	case 0: len = o.size - pg; break;
	case 1: len = o.size + pg; break;
	case 2: len = o.size - 1; break;	/* rounds up to size */
	case 3: len = chance(&R, 50) ? 0 : pg; break;
	case 4: len = 2 * o.size; break;
	case 5: len = o.bufs; break;		/* the part before the buffers */
	case 6: len = o.size - o.bufs; break;	/* the buffers */
	default: len = o.size; break;
	}
	switch (below(&R, 15)) {
	case 0: off = pg; break;
	case 1: off = 1; break;
	case 2: off = (off_t)1 << 40; break;
	case 3: off = (off_t)(((uint64_t)1 << 63) - pg); break;
	case 4: off = (off_t)o.bufs; break;	/* the buffers */
	default: off = 0; break;
	}
	r = below(&R, 100);
	prot = r < 70 ? PROT_READ | PROT_WRITE : r < 95 ? PROT_READ : PROT_NONE;
	r = below(&R, 100);
	flags = r < 88 ? MAP_SHARED : r < 94 ? MAP_PRIVATE :
		MAP_SHARED | MAP_POPULATE;
	op_begin(O_MMAP, "mmap(fd %d sock %u ring %s size %llu, len %zu, prot %d, flags %#x, off %#llx)",
		 f->fd, s->id, ring_names[s->ring],
		 (unsigned long long)o.size, len, prot, flags,
		 (unsigned long long)off);
	expect_mmap(&x, &o, len, off, flags);
	p = mmap(NULL, len, prot, flags, f->fd, off);
	r = errno;
	if (!check(p == MAP_FAILED ? -1 : 0, r, &x))
		return;
	if (p == MAP_FAILED) {
		if (r == ENOMEM && s->ring == RING_NO)
			ring_set(s, RING_MAYBE);
		return;
	}
	if (off || ((len + pg - 1) & ~(size_t)(pg - 1)) != o.size) {
		/* A part of the area: checked, then not kept. */
		ring_set(s, RING_YES);
		munmap(p, len);
		return;
	}
	map_add(mi, f->sock, p, prot, &o);
}

void op_munmap(void)
{
	int mi = pick_map(map_any), r;
	size_t a, b, i;
	struct mmapping *m;
	struct expect x;
	bool any = false;

	if (mi < 0)
		return;
	m = &maps[mi];
	if (chance(&R, 50)) {
		a = 0;
		b = m->npages;
	} else {
		a = below(&R, m->npages);
		b = a + 1 + below(&R, m->npages - a);
	}
	op_begin(O_MUNMAP, "munmap(map %d sock %u, pages %zu..%zu of %zu)", mi,
		 socks[m->sock].id, a, b, m->npages);
	expect_simple(&x, X_ANY);
	/*
	 * Only the pages still mapped: the address space of the others may
	 * belong to a newer mapping by now.
	 */
	pthread_rwlock_wrlock(&map_lock);
	for (r = 0, i = a; i < b && !r; i++) {
		size_t j = i;

		if (!m->present[i])
			continue;
		while (j < b && m->present[j])
			j++;
		r = munmap(m->addr + i * pg, (j - i) * pg);
		if (!r)
			memset(m->present + i, 0, j - i);
		i = j;
	}
	pthread_rwlock_unlock(&map_lock);
	if (!check(r, errno, &x))
		return;
	for (i = 0; i < m->npages; i++)
		any |= m->present[i];
	if (!any)
		map_forget(mi);
}

void op_mremap(void)
{
	int mi = pick_map(map_whole), kind = below(&R, 3);
	struct mmapping *m;
	struct expect x;
	size_t nlen;
	void *p, *target = NULL;

	if (mi < 0)
		return;
	m = &maps[mi];
	pthread_rwlock_wrlock(&map_lock);
	if (kind == 0) {
		int fl = chance(&R, 50) ? MREMAP_MAYMOVE : 0;

		nlen = m->len + pg * (1 + below(&R, 4));
		op_begin(O_MREMAP, "mremap(map %d sock %u, %zu -> %zu, %#x) grow",
			 mi, socks[m->sock].id, m->len, nlen, fl);
		expect_simple(&x, X_MREMAP_GROW);
		p = mremap(m->addr, m->len, nlen, fl);
		check(p == MAP_FAILED ? -1 : 0, errno, &x);
	} else if (kind == 1 && m->npages > 1) {
		nlen = (1 + below(&R, m->npages - 1)) * pg;
		op_begin(O_MREMAP, "mremap(map %d sock %u, %zu -> %zu) shrink",
			 mi, socks[m->sock].id, m->len, nlen);
		expect_simple(&x, X_MREMAP_SHRINK);
		p = mremap(m->addr, m->len, nlen, 0);
		if (check(p == MAP_FAILED ? -1 : 0, errno, &x) &&
		    p != MAP_FAILED) {
			if (p != m->addr)
				failf("%s: moved to %p from %p without MAYMOVE",
				      opdesc, p, m->addr);
			memset(m->present + nlen / pg, 0,
			       m->npages - nlen / pg);
		}
	} else {
		target = mmap(NULL, m->len, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		op_begin(O_MREMAP, "mremap(map %d sock %u, %zu, MAYMOVE|FIXED to %p) move",
			 mi, socks[m->sock].id, m->len, target);
		/* Without a place to go, the move is not tried. */
		expect_simple(&x, target == MAP_FAILED ? X_MMAP_ANON :
				  X_MREMAP_MOVE);
		p = target == MAP_FAILED ? MAP_FAILED :
		    mremap(m->addr, m->len, m->len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, target);
		if (check(p == MAP_FAILED ? -1 : 0, errno, &x) &&
		    p != MAP_FAILED) {
			if (p != target)
				failf("%s: landed at %p", opdesc, p);
			m->addr = p;
		} else if (target != MAP_FAILED) {
			munmap(target, m->len);
		}
	}
	pthread_rwlock_unlock(&map_lock);
}

/* Read a clean ring as a correct consumer would, and check every packet. */
void op_consume(void)
{
	int mi = pick_map(map_clean_rw), fd = -1, i;
	struct mmapping *m;
	struct msock *s;
	uint32_t prod, n, k, flags;

	if (mi < 0)
		return;
	m = &maps[mi];
	s = &socks[m->sock];
	/* Driver frames enter the ring at poll(), when there is an fd. */
	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live && fds[i].sock == m->sock)
			fd = fds[i].fd;
	op_begin(O_CONSUME, "consume(map %d sock %u fd %d flow %s)", mi, s->id,
		 fd, s->bound ? flow_str(&s->flow) : "(unbound)");
	if (fd >= 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 0);
	}
	/* (C), matches (B); then (D), matches (A), below. */
	prod = load_acq(m, m->off.producer);
	flags = load_acq(m, m->off.flags);
	check_ring_state(s, prod, flags, m->off.entries);
	if (failed)
		return;
	n = prod - s->cons;
	if (chance(&R, 20))
		n = below(&R, n + 1);
	for (k = 0; k < n && !failed; k++)
		check_desc(m->sock, m, s->cons + k);
	s->cons += n;
	__atomic_store_n((uint32_t *)(m->addr + m->off.consumer), s->cons,
			 __ATOMIC_RELEASE);
	op_note("ok");
	op_ok();
}

/* One junk store into a dirty ring; the caller holds map_lock. */
void scribble_one(struct rng *r, struct mmapping *m)
{
	const struct vj_mmap_offsets *o = &m->off;
	uint64_t off;
	uint32_t v = (uint32_t)rnd64(r), prod;

	switch (below(r, 6)) {
	case 0:
	case 1:
		off = o->consumer;
		if (page_ok(m, o->producer, 4) && chance(r, 70)) {
			static const int32_t d[] = { 0, 1, -1, 2, 7, 8, 9,
						     255, 256, 257, -256 };

			prod = __atomic_load_n((uint32_t *)(m->addr + o->producer),
					       __ATOMIC_ACQUIRE);
			v = prod + (chance(r, 50) ? PICK(r, d) :
				    (int32_t)o->entries * PICK(r, d));
		}
		break;
	case 2:
		off = chance(r, 50) ? o->producer : o->flags;
		break;
	case 3:
		off = o->desc + 4 * below(r, o->entries * sizeof(struct vj_desc) / 4);
		break;
	default:
		off = o->bufs + 4 * below(r, (o->size - o->bufs) / 4);
		break;
	}
	if (page_ok(m, off, 4))
		__atomic_store_n((uint32_t *)(m->addr + off), v,
				 __ATOMIC_RELEASE);
}

void op_scribble(void)
{
	int mi = pick_map(map_dirty_rw), n = 1 + below(&R, 8);

	if (mi < 0)
		return;
	op_begin(O_SCRIBBLE, "scribble(map %d sock %u, %d stores)", mi,
		 socks[maps[mi].sock].id, n);
	pthread_rwlock_rdlock(&map_lock);
	while (n--)
		scribble_one(&R, &maps[mi]);
	pthread_rwlock_unlock(&map_lock);
	op_note("ok");
	op_ok();
}

void *scribbler(void *arg)
{
	struct rng r = { seed ^ (0x5c0ffee0ull + (uintptr_t)arg) };

	while (!atomic_load(&stop_threads)) {
		int idx[MAX_MAPS], n = 0, i, k;

		pthread_rwlock_rdlock(&map_lock);
		for (i = 0; i < MAX_MAPS; i++)
			if (maps[i].live && map_dirty_rw(&maps[i]))
				idx[n++] = i;
		if (n) {
			struct mmapping *m = &maps[idx[below(&r, n)]];

			for (k = 1 + below(&r, 16); k; k--)
				scribble_one(&r, m);
		}
		pthread_rwlock_unlock(&map_lock);
		usleep(n ? 50 + below(&r, 200) : 2000);
	}
	return NULL;
}
