// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile user space: consumer indices that jump, rewind or run ahead,
 * scribbled producer, flags and descriptors, a thread writing garbage
 * into the ring while packets arrive, and mappings that outlive their
 * descriptors or vanish mid-receive.  The kernel must survive, count
 * what it rejects, and never let one channel's abuse touch another.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static struct test_pkt pkt;

struct rig {
	struct test_chan c;
	struct udp_tx tx;
	uint32_t seq;
};

static void rig_open(struct rig *r, uint16_t port, uint32_t entries)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", port, 0);

	chan_open(&r->c, &f, entries, 2048);
	tx_open(&r->tx, NULL, 0, "127.0.0.1", port);
	r->seq = 0;
}

static void rig_close(struct rig *r)
{
	tx_close(&r->tx);
	chan_close(&r->c);
}

/* Sends n and waits until they are all accounted for. */
static void rig_send(struct rig *r, int n)
{
	uint64_t want = vj_stat_total(r->c.fd) + n;
	int i;

	for (i = 0; i < n; i++)
		tx_send(&r->tx, r->seq++, 64);
	if (!vj_wait_total(r->c.fd, want, 5000))
		fail("only %llu of %llu packets accounted",
		     (unsigned long long)vj_stat_total(r->c.fd),
		     (unsigned long long)want);
}

static struct vj_statistics rig_expect(struct rig *r, uint64_t pkts,
				       uint64_t full, const char *what)
{
	struct vj_statistics s = test_get_stats(r->c.fd);

	CHECK(s.rx_packets == pkts && s.rx_ring_full == full,
	      "%s: rx_packets %llu rx_ring_full %llu, want %llu %llu", what,
	      (unsigned long long)s.rx_packets,
	      (unsigned long long)s.rx_ring_full,
	      (unsigned long long)pkts, (unsigned long long)full);
	CHECK(chan_producer(&r->c) == (uint32_t)pkts,
	      "%s: producer %u, want %llu", what, chan_producer(&r->c),
	      (unsigned long long)pkts);
	return s;
}

/* Reads slot idx and checks it holds seq. */
static void expect_slot(struct rig *r, uint32_t idx, uint32_t seq)
{
	struct pkt_info pi;
	uint32_t got;

	chan_peek_at(&r->c, idx, &pkt);
	pkt_expect_udp(&pkt, &pi, &got);
	CHECK(got == seq, "index %u holds seq %u, want %u", idx, got, seq);
}

/* Makes v the consumer index, both ours and the ring's. */
static void set_cons(struct rig *r, uint32_t v)
{
	r->c.head = v;
	chan_set_consumer(&r->c, v);
}

/*
 * A consumer ahead of the producer is invalid.  Ahead by 5 in a roomy
 * ring: delivery goes on, and a valid value later resumes normal use.
 * Ahead by more than the ring: the kernel acts as if the consumer had not
 * moved (the ring fills, rx_ring_full counts, rx_invalid_cons grows) and
 * a valid consumer restores delivery.
 */
static int t_cons_ahead(void)
{
	struct vj_statistics s;
	struct rig a, b;

	rig_open(&a, tport(0), 16);
	rig_send(&a, 2);
	set_cons(&a, 2 + 5);
	rig_send(&a, 3);
	rig_expect(&a, 5, 0, "consumer 5 ahead, ring not full");
	set_cons(&a, 5);
	rig_send(&a, 3);
	rig_expect(&a, 8, 0, "after restoring the consumer");
	expect_slot(&a, 5, 5);
	expect_slot(&a, 7, 7);
	rig_close(&a);

	rig_open(&b, tport(1), 16);
	rig_send(&b, 2);
	set_cons(&b, 2 + 17);
	rig_send(&b, 20);
	s = rig_expect(&b, 16, 6, "consumer beyond the ring");
	CHECK(s.rx_invalid_cons > 0, "rx_invalid_cons did not grow");
	set_cons(&b, 16);
	rig_send(&b, 3);
	rig_expect(&b, 19, 6, "after restoring the consumer");
	expect_slot(&b, 16, 22);
	expect_slot(&b, 18, 24);
	rig_close(&b);
	return 0;
}

/*
 * A consumer moved back behind the last valid one is invalid: the kernel
 * keeps the last valid value, so only the room that value left is used.
 */
static int t_cons_rewind(void)
{
	struct vj_statistics s;
	struct rig r;
	int i;

	rig_open(&r, tport(0), 16);
	rig_send(&r, 16);
	rig_expect(&r, 16, 0, "full ring");
	for (i = 0; i < 6; i++)
		CHECK(chan_try(&r.c, &pkt), "packet %d missing", i);
	/* The ring was full: this packet makes the kernel read 6. */
	rig_send(&r, 1);
	rig_expect(&r, 17, 0, "after consuming 6");
	set_cons(&r, 3);
	rig_send(&r, 10);
	s = rig_expect(&r, 22, 5, "consumer rewound to 3 (last valid 6)");
	CHECK(s.rx_invalid_cons > 0, "rx_invalid_cons did not grow");
	set_cons(&r, 22);
	rig_send(&r, 3);
	rig_expect(&r, 25, 5, "after a valid consumer");
	expect_slot(&r, 22, 27);
	expect_slot(&r, 24, 29);
	rig_close(&r);
	return 0;
}

/*
 * Consumer jumps that wrap-unaware arithmetic would accept: -1, +2^31,
 * 2^31 - 1, producer + 1, 0x10000.  Each is rejected and counted; the
 * full ring stays full; a valid consumer brings delivery back.
 */
static int t_cons_jump(void)
{
	static const uint32_t bad[] = { 0xffffffff, 0x80000000, 0x7fffffff,
					17, 0x10000, 0xfffffff0 };
	uint64_t inval = 0, full = 0;
	struct vj_statistics s;
	struct rig r;
	size_t i;

	rig_open(&r, tport(0), 16);
	rig_send(&r, 16);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[48];

		snprintf(what, sizeof(what), "consumer %#x", bad[i]);
		chan_set_consumer(&r.c, bad[i]);
		rig_send(&r, 2);
		full += 2;
		s = rig_expect(&r, 16, full, what);
		CHECK(s.rx_invalid_cons > inval,
		      "%s: rx_invalid_cons stayed %llu", what,
		      (unsigned long long)inval);
		inval = s.rx_invalid_cons;
	}
	set_cons(&r, 16);
	rig_send(&r, 1);
	rig_expect(&r, 17, full, "after a valid consumer");
	expect_slot(&r, 16, r.seq - 1);
	rig_close(&r);
	return 0;
}

/*
 * The producer index and the flags word are the kernel's: values user
 * space writes there are ignored and overwritten by the next packet,
 * which lands in the right slot.
 */
static int t_prod_scribble(void)
{
	static const uint32_t vals[] = { 0x7fffffff, 1, 0, 0xffffffff, 100 };
	struct rig r;
	size_t i;

	rig_open(&r, tport(0), 16);
	rig_send(&r, 3);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint32_t want = 3 + i + 1;

		atomic_store(r.c.prod, vals[i]);
		atomic_store(r.c.flags, 0xffffffff - i);
		rig_send(&r, 1);
		CHECK(chan_producer(&r.c) == want,
		      "after writing producer %#x: producer %u, want %u",
		      vals[i], chan_producer(&r.c), want);
		expect_slot(&r, want - 1, want - 1);
	}
	rig_expect(&r, 8, 0, "after scribbling the producer");
	rig_close(&r);
	return 0;
}

/*
 * Descriptors are written, never read, by the kernel: garbage in every
 * descriptor and buffer, before the first packet and after consuming,
 * does not change where or how packets land.
 */
static int t_desc_scribble(void)
{
	struct rig r;
	int pass, i;

	rig_open(&r, tport(0), 16);
	for (pass = 0; pass < 3; pass++) {
		uint32_t seen = 0;

		memset(r.c.desc, pass ? 0x80 * pass - 1 : 0xff,
		       16 * sizeof(struct vj_desc));
		memset(r.c.bufs, 0xee, 16 * 2048);
		rig_send(&r, 16);
		for (i = 0; i < 16; i++) {
			struct pkt_info pi;
			uint32_t seq;

			CHECK(chan_try(&r.c, &pkt), "pass %d: packet %d missing",
			      pass, i);
			CHECK(!(seen & (1u << pkt.d.buf)),
			      "pass %d: buffer %u used twice", pass, pkt.d.buf);
			seen |= 1u << pkt.d.buf;
			pkt_expect_udp(&pkt, &pi, &seq);
			CHECK(seq == (uint32_t)(pass * 16 + i),
			      "pass %d: seq %u", pass, seq);
		}
	}
	rig_expect(&r, 48, 0, "after scribbling descriptors");
	rig_close(&r);
	return 0;
}

struct scribbler {
	pthread_t th;
	struct test_chan *c;
	_Atomic int stop;
	unsigned long writes;
};

static void *scribble(void *arg)
{
	struct scribbler *s = arg;
	unsigned int seed = 42;
	uint32_t *words = (uint32_t *)s->c->desc;
	size_t nwords = s->c->off.entries * sizeof(struct vj_desc) / 4;

	while (!atomic_load(&s->stop)) {
		uint32_t v = rand_r(&seed) * 2654435761u;

		switch (rand_r(&seed) % 6) {
		case 0:
			atomic_store_explicit(s->c->cons, v,
					      memory_order_release);
			break;
		case 1:
			atomic_store_explicit(s->c->cons,
					      atomic_load(s->c->prod) +
					      rand_r(&seed) % 64 - 32,
					      memory_order_release);
			break;
		case 2:
			atomic_store(s->c->prod, v);
			break;
		case 3:
			atomic_store(s->c->flags, v);
			break;
		case 4:
			words[rand_r(&seed) % nwords] = v;
			break;
		case 5:
			s->c->bufs[rand_r(&seed) % (s->c->off.entries *
						     s->c->off.buf_size)] = v;
			break;
		}
		s->writes++;
	}
	return NULL;
}

/*
 * A thread writes random values into one channel's indices, flags,
 * descriptors and buffers for 2 s while packets arrive for it and for a
 * second channel.  The second channel receives every packet intact and
 * in order; the abused one still accounts for every packet, and once
 * the abuse stops, a valid consumer restores intact delivery.
 */
static int t_scribble_thread(void)
{
	struct scribbler sc = { 0 };
	uint32_t got_b = 0, sent_a = 0, seq, prod;
	uint64_t end, placed;
	struct rig a, b;
	int i;

	rig_open(&a, tport(0), 16);
	rig_open(&b, tport(1), 256);
	sc.c = &a.c;
	pthread_create(&sc.th, NULL, scribble, &sc);
	end = now_ns() + 2000000000ull;
	while (now_ns() < end) {
		for (i = 0; i < 8; i++) {
			tx_send(&a.tx, a.seq++, 64 + i * 100);
			sent_a++;
			tx_send(&b.tx, b.seq++, 64 + i * 100);
		}
		while (chan_recv(&b.c, &pkt, 2)) {
			struct pkt_info pi;

			pkt_expect_udp(&pkt, &pi, &seq);
			CHECK(seq == got_b, "channel B: seq %u, want %u", seq,
			      got_b);
			got_b++;
		}
	}
	atomic_store(&sc.stop, 1);
	pthread_join(sc.th, NULL);
	while (got_b < b.seq) {
		struct pkt_info pi;

		CHECK(chan_recv(&b.c, &pkt, 3000),
		      "channel B: %u of %u received", got_b, b.seq);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == got_b, "channel B: seq %u, want %u", seq, got_b);
		got_b++;
	}
	CHECK(!test_get_stats(b.c.fd).rx_ring_full &&
	      !test_get_stats(b.c.fd).rx_invalid_cons,
	      "channel B lost packets or saw invalid consumers");
	CHECK(vj_wait_total(a.c.fd, sent_a, 3000),
	      "channel A accounts %llu of %u", (unsigned long long)
	      vj_stat_total(a.c.fd), sent_a);
	CHECK(vj_stat_total(a.c.fd) == sent_a, "channel A accounts %llu of %u",
	      (unsigned long long)vj_stat_total(a.c.fd), sent_a);
	diag("SCRIBBLE: %lu writes; A: %llu placed %llu full %llu invalid",
	     sc.writes, (unsigned long long)test_get_stats(a.c.fd).rx_packets,
	     (unsigned long long)test_get_stats(a.c.fd).rx_ring_full,
	     (unsigned long long)test_get_stats(a.c.fd).rx_invalid_cons);

	/* The producer is rx_packets; consuming up to it is always valid. */
	placed = test_get_stats(a.c.fd).rx_packets;
	prod = (uint32_t)placed;
	set_cons(&a, prod);
	rig_send(&a, 3);
	CHECK(test_get_stats(a.c.fd).rx_packets == placed + 3,
	      "channel A did not recover: rx_packets %llu, want %llu",
	      (unsigned long long)test_get_stats(a.c.fd).rx_packets,
	      (unsigned long long)placed + 3);
	CHECK(chan_producer(&a.c) == prod + 3, "producer %u, want %u",
	      chan_producer(&a.c), prod + 3);
	for (i = 0; i < 3; i++)
		expect_slot(&a, prod + i, a.seq - 3 + i);
	rig_close(&a);
	rig_close(&b);
	return 0;
}

static void fork_child(struct test_chan *c, int rd)
{
	char ch;
	int i;

	close(c->fd);		/* only the mapping remains */
	if (read(rd, &ch, 1) != 1)
		fail("child: sync read");
	for (i = 0; i < 3; i++) {
		struct pkt_info pi;
		uint32_t seq;

		CHECK(chan_try(c, &pkt), "child: packet %d missing", i);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == (uint32_t)i, "child: seq %u", seq);
	}
	munmap(c->map, c->off.size);
	_exit(0);
}

/*
 * A forked child shares the mapping: after the parent closed its fd and
 * unmapped, and the child closed its copy of the fd, the child still
 * reads the ring; when it exits the channel goes away.
 */
static int t_fork_with_mapping(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	long long live0 = live_baseline();
	struct test_chan c;
	unsigned long ino;
	int p[2], st, fd;
	pid_t pid;
	char fl[20][64];

	chan_open(&c, &f, 8, 2048);
	ino = sock_ino(c.fd);
	for (st = 0; st < 3; st++)
		udp_send(NULL, 0, "127.0.0.1", tport(0), st, 100);
	CHECK(WAIT_FOR(chan_pending(&c) == 3, 3000), "packets missing");
	if (pipe(p))
		fail("pipe");
	pid = fork();
	if (!pid) {
		close(p[1]);
		fork_child(&c, p[0]);
	}
	close(p[0]);
	chan_close(&c);
	CHECK(proc_chan_find(ino, fl, 20) > 0,
	      "channel gone while the child still maps it");
	if (write(p[1], "x", 1) != 1)
		fail("sync write");
	close(p[1]);
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	if (WIFSIGNALED(st))
		fail("child killed by signal %d", WTERMSIG(st));
	if (WEXITSTATUS(st))
		fail_inherit();
	CHECK(WAIT_FOR(!proc_chan_find(ino, fl, 20), 3000),
	      "channel still listed after the last mapping went away");
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 3000),
	      "channels_live %lld, want %lld", pool_get("channels_live"),
	      live0);
	fd = test_socket();
	EXPECT_OK(test_bind(fd, &f), "rebinding the flow");
	close(fd);
	return 0;
}

struct blaster {
	pthread_t th;
	struct udp_tx tx;
	_Atomic int stop;
	uint32_t sent;
};

static void *blast(void *arg)
{
	struct blaster *b = arg;

	while (!atomic_load(&b->stop)) {
		tx_send(&b->tx, b->sent++, 200);
		if (!(b->sent % 32))
			usleep(200);
	}
	return NULL;
}

/*
 * Unmapping and remapping over and over while packets arrive: the kernel
 * keeps writing the ring (not the user mapping), nothing crashes and the
 * accounting still balances.
 */
static int t_munmap_while_rx(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	struct blaster bl = { 0 };
	struct test_chan c;
	int i;

	chan_open(&c, &f, 32, 2048);
	tx_open(&bl.tx, NULL, 0, "127.0.0.1", tport(0));
	pthread_create(&bl.th, NULL, blast, &bl);
	for (i = 0; i < 100; i++) {
		step("remap %d", i);
		while (chan_try(&c, &pkt))
			;
		chan_unmap(&c);
		usleep(1000);
		chan_map(&c);
		c.head = atomic_load(c.cons);
	}
	atomic_store(&bl.stop, 1);
	pthread_join(bl.th, NULL);
	CHECK(vj_wait_total(c.fd, bl.sent, 5000), "accounted %llu of %u",
	      (unsigned long long)vj_stat_total(c.fd), bl.sent);
	tx_close(&bl.tx);
	chan_close(&c);
	return 0;
}

/*
 * The mapping cannot grow past the ring (mremap fails), and unmapping it
 * piecemeal while packets arrive is harmless: the kernel writes through
 * its own mapping of the ring.
 */
static int t_mremap_munmap_partial(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	long pg = sysconf(_SC_PAGESIZE);
	struct blaster bl = { 0 };
	struct test_chan c;
	size_t size, off;
	void *p;

	chan_open(&c, &f, 16, 2048);
	size = c.off.size;
	p = mremap(c.map, size, size + pg, 0);
	CHECK(p == MAP_FAILED, "mremap grew the ring mapping in place");
	p = mremap(c.map, size, size + pg, MREMAP_MAYMOVE);
	CHECK(p == MAP_FAILED, "mremap moved and grew the ring mapping");

	tx_open(&bl.tx, NULL, 0, "127.0.0.1", tport(0));
	pthread_create(&bl.th, NULL, blast, &bl);
	msleep(100);
	for (off = 0; off < size; off += pg) {
		EXPECT_OK(munmap(c.map + off, pg), "munmap page %zu", off / pg);
		if (!(off / pg % 4))
			msleep(5);
	}
	c.map = MAP_FAILED;
	msleep(100);
	atomic_store(&bl.stop, 1);
	pthread_join(bl.th, NULL);
	CHECK(vj_wait_total(c.fd, bl.sent, 5000), "accounted %llu of %u",
	      (unsigned long long)vj_stat_total(c.fd), bl.sent);
	tx_close(&bl.tx);
	/* A fresh mapping still shows the ring. */
	chan_map(&c);
	CHECK(chan_producer(&c) == (uint32_t)test_get_stats(c.fd).rx_packets,
	      "remapped producer %u, rx_packets %llu", chan_producer(&c),
	      (unsigned long long)test_get_stats(c.fd).rx_packets);
	chan_close(&c);
	return 0;
}

/*
 * Closing a channel with a full ring, pending driver frames and packets
 * still arriving frees everything: channels_live and bytes_pinned return
 * to their values and every pool buffer is free.
 */
static int t_close_with_packets_in_flight(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	long long live0 = live_baseline();
	long long pin0 = pool_get("bytes_pinned");
	bool vjt = access("/sys/kernel/debug/vjtest/inject", W_OK) == 0;
	struct blaster bl = { 0 };
	struct test_chan c;
	int i;

	chan_open(&c, &f, 8, 2048);
	for (i = 0; i < 20; i++)
		udp_send(NULL, 0, "127.0.0.1", tport(0), i, 100);
	CHECK(vj_wait_total(c.fd, 20, 3000), "packets not accounted");
	if (vjt)
		CHECK(!vjt_inject("count=10 saddr=%s daddr=%s sport=1000 "
				  "dport=%u len=64", VJT_PEER4, VJT_LOCAL4,
				  tport(0)), "inject");
	chan_close(&c);
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 3000),
	      "channels_live %lld, want %lld", pool_get("channels_live"),
	      live0);
	CHECK(pool_settled(3000), "pool_free %lld of %lld",
	      pool_get("pool_free"), pool_get("pool_buffers"));

	/* Now with traffic racing every close. */
	tx_open(&bl.tx, NULL, 0, "127.0.0.1", tport(0));
	pthread_create(&bl.th, NULL, blast, &bl);
	for (i = 0; i < 50; i++) {
		step("racing close %d", i);
		chan_open(&c, &f, 8, 2048);
		if (vjt && i % 5 == 0)
			vjt_inject("count=16 batch=8 saddr=%s daddr=%s "
				   "sport=1000 dport=%u len=64", VJT_PEER4,
				   VJT_LOCAL4, tport(0));
		usleep(2000);
		if (i % 2) {
			close(c.fd);
			chan_unmap(&c);
		} else {
			chan_close(&c);
		}
	}
	atomic_store(&bl.stop, 1);
	pthread_join(bl.th, NULL);
	tx_close(&bl.tx);
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 3000),
	      "after racing closes: channels_live %lld, want %lld",
	      pool_get("channels_live"), live0);
	CHECK(pool_settled(3000), "after racing closes: pool_free %lld of %lld",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	CHECK(WAIT_FOR(pool_get("bytes_pinned") == pin0, 3000),
	      "bytes_pinned %lld, was %lld before", pool_get("bytes_pinned"),
	      pin0);
	return 0;
}

/*
 * close() of a mapped channel: the socket lives until munmap and
 * /proc/net/vjchan lists it until then; after munmap it is gone,
 * channels_live is back and the flow can be bound again.
 */
static int t_close_mapped(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	long long live0 = live_baseline();
	struct test_chan c;
	unsigned long ino;
	char fl[20][64];
	int fd;

	chan_open(&c, &f, 8, 2048);
	ino = sock_ino(c.fd);
	close(c.fd);
	c.fd = -1;
	msleep(100);
	CHECK(proc_chan_find(ino, fl, 20) > 0,
	      "closed but mapped channel not listed in /proc/net/vjchan");
	CHECK(pool_get("channels_live") == live0 + 1,
	      "channels_live %lld, want %lld while mapped",
	      pool_get("channels_live"), live0 + 1);
	CHECK(atomic_load(c.prod) == 0, "ring readable");
	chan_unmap(&c);
	CHECK(WAIT_FOR(!proc_chan_find(ino, fl, 20), 3000),
	      "channel still listed after munmap");
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 3000),
	      "channels_live %lld, want %lld after munmap",
	      pool_get("channels_live"), live0);
	fd = test_socket();
	EXPECT_OK(test_bind(fd, &f), "rebinding the flow after munmap");
	close(fd);
	return 0;
}

/*
 * The socket a mapping keeps alive is still bound: packets of its flow
 * keep landing in the ring after close(fd), until munmap.
 */
static int t_close_mapped_still_receives(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	struct test_chan c;

	chan_open(&c, &f, 8, 2048);
	close(c.fd);
	c.fd = -1;
	udp_send(NULL, 0, "127.0.0.1", tport(0), 5, 100);
	CHECK(WAIT_FOR(chan_producer(&c) == 1, 3000),
	      "no packet in the ring of a closed, still mapped channel");
	CHECK(chan_try(&c, &pkt), "packet");
	chan_unmap(&c);
	return 0;
}

/*
 * Create, use and destroy 200 channels in every order (close before or
 * after munmap, with and without traffic): nothing leaks.
 */
static int t_teardown_loop(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	long long live0 = live_baseline();
	long long cr0 = pool_get("channels_created");
	long long de0 = pool_get("channels_destroyed");
	int i;

	for (i = 0; i < 200; i++) {
		struct test_chan c;

		step("iteration %d", i);
		chan_open(&c, &f, 8, 2048);
		if (i % 3 == 0) {
			udp_send(NULL, 0, "127.0.0.1", tport(0), i, 64);
			CHECK(chan_recv(&c, &pkt, 3000), "iteration %d: no "
			      "packet", i);
		}
		if (i % 2) {
			close(c.fd);
			chan_unmap(&c);
		} else {
			chan_close(&c);
		}
	}
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 3000),
	      "channels_live %lld, want %lld", pool_get("channels_live"),
	      live0);
	CHECK(pool_get("channels_created") - cr0 == 200 &&
	      pool_get("channels_destroyed") - de0 == 200,
	      "created +%lld destroyed +%lld, want +200 +200",
	      pool_get("channels_created") - cr0,
	      pool_get("channels_destroyed") - de0);
	return 0;
}

const struct vj_case hostile_cases[] = {
	VJ_CASE("CONS_AHEAD", t_cons_ahead),
	VJ_CASE("CONS_REWIND", t_cons_rewind),
	VJ_CASE("CONS_JUMP", t_cons_jump),
	VJ_CASE("PROD_SCRIBBLE", t_prod_scribble),
	VJ_CASE("DESC_SCRIBBLE", t_desc_scribble),
	VJ_CASE_T("SCRIBBLE_THREAD", t_scribble_thread, 60),
	VJ_CASE("FORK_WITH_MAPPING", t_fork_with_mapping),
	VJ_CASE_T("MUNMAP_WHILE_RX", t_munmap_while_rx, 60),
	VJ_CASE("MREMAP_MUNMAP_PARTIAL", t_mremap_munmap_partial),
	VJ_CASE_T("CLOSE_WITH_PACKETS_IN_FLIGHT",
		  t_close_with_packets_in_flight, 60),
	VJ_CASE("CLOSE_MAPPED", t_close_mapped),
	VJ_CASE("CLOSE_MAPPED_STILL_RECEIVES", t_close_mapped_still_receives),
	VJ_CASE_T("TEARDOWN_LOOP", t_teardown_loop, 90),
	{ NULL }
};
