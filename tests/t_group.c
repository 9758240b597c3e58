// SPDX-License-Identifier: GPL-2.0
/*
 * Channel groups (VJ_GROUP): raw channels that share one flow id, and the
 * spread rules that choose a member for each packet (VJ_SPREAD_HASH, _CPU,
 * _CONSUMER).  Traffic is ordinary UDP over lo: a datagram sent by a task
 * pinned to CPU n is received, and classified, on CPU n (the loopback
 * device queues it on the sending CPU's backlog).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "t_udp.h"

#define LO		"127.0.0.1"
#define NFLOWS		32
#define SPORT0		4000

static int group_set(int fd, uint32_t id, uint16_t spread)
{
	struct vj_group_req g = { .id = id, .spread = spread };

	return setsockopt(fd, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g)) ? -errno : 0;
}

/* A bound member of group @id: bypass, UDP to @port, mapped. */
static void member_open(struct test_chan *c, uint16_t port, uint32_t id,
			uint16_t spread)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, port, 0);
	int err;

	chan_init(c, test_socket());
	err = group_set(c->fd, id, spread);
	if (err)
		fail("VJ_GROUP %u/%u: %s", id, spread, errname(-err));
	if (test_bind(c->fd, &f))
		fail("bind member of group %u: %s", id, errname(errno));
	chan_map(c);
}

/* Bind a channel with @id/@spread to @port's flow id: 0 or -errno. */
static int try_join(uint16_t port, uint32_t id, uint16_t spread,
		    uint16_t flags)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, port, 0);
	uint16_t saved = test_bind_flags;
	int fd = test_socket(), err;

	err = group_set(fd, id, spread);
	test_bind_flags = flags;
	if (!err && test_bind(fd, &f))
		err = -errno;
	test_bind_flags = saved;
	close(fd);
	return err;
}

/*
 * Takes every datagram queued in @c (the consumer being this task on its
 * current CPU: poll() notes it) and records in @where[seq - base] the
 * member @idx.  Returns how many it took.
 */
static int drain_into(struct test_chan *c, int idx, uint32_t base, int n,
		      int *where)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	struct test_pkt p;
	struct pkt_info pi;
	uint32_t seq;
	int got = 0;

	poll(&pfd, 1, 0);
	while (chan_try(c, &p)) {
		pkt_expect_udp(&p, &pi, &seq);
		CHECK(seq >= base && seq < base + (uint32_t)n,
		      "member %d got seq %#x, not one of ours", idx, seq);
		CHECK(where[seq - base] < 0, "seq %#x delivered twice", seq);
		where[seq - base] = idx;
		got++;
	}
	return got;
}

/* Waits until the members have counted @n datagrams in all. */
static void wait_counted(struct test_chan *c, int nm, uint64_t n)
{
	uint64_t end = now_ns() + 5000000000ull, sum;
	int i;

	do {
		for (sum = 0, i = 0; i < nm; i++)
			sum += vj_stat_total(c[i].fd);
		if (sum >= n)
			break;
		msleep(5);
	} while (now_ns() < end);
	CHECK(sum == n, "the members counted %llu of %llu datagrams",
	      (unsigned long long)sum, (unsigned long long)n);
}

static int ncpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* VJ_GROUP: what it takes, what it refuses, what it returns. */
static int t_group_opt(void)
{
	struct vj_group_req g = { .id = 7, .spread = VJ_SPREAD_CPU }, r;
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	uint8_t big[sizeof(g) + 8] = { 0 };
	int fd = test_socket(), ufd;
	socklen_t len;

	step("defaults");
	CHECK(!test_getopt(fd, VJ_GROUP, &r, sizeof(r), &len) &&
	      len == sizeof(r) && !r.id && r.spread == VJ_SPREAD_HASH,
	      "default group: id %u spread %u len %u", r.id, r.spread, len);
	step("bad values");
	r = (struct vj_group_req){ .id = 1, .spread = VJ_SPREAD_CONSUMER + 1 };
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_GROUP, &r, sizeof(r)), EINVAL,
		   "unknown spread rule");
	g.pad = 1;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g)), EINVAL,
		   "nonzero pad");
	g.pad = 0;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g) - 1),
		   EINVAL, "short optlen");
	memcpy(big, &g, sizeof(g));
	big[sizeof(g)] = 1;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_GROUP, big, sizeof(big)),
		   E2BIG, "nonzero bytes past the struct");
	big[sizeof(g)] = 0;
	EXPECT_OK(setsockopt(fd, SOL_VJCHAN, VJ_GROUP, big, sizeof(big)),
		  "zero bytes past the struct");
	step("read back");
	CHECK(!test_getopt(fd, VJ_GROUP, &r, sizeof(r), &len) &&
	      r.id == 7 && r.spread == VJ_SPREAD_CPU,
	      "got id %u spread %u", r.id, r.spread);
	step("fixed once bound");
	EXPECT_OK(test_bind(fd, &f), "bind");
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g)), EBUSY,
		   "VJ_GROUP after bind");
	close(fd);

	step("UDP channel socket: the rule only");
	ufd = udp_chan(AF_INET);
	EXPECT_ERR(setsockopt(ufd, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g)), EINVAL,
		   "a group id on a UDP channel socket");
	g.id = 0;
	EXPECT_OK(setsockopt(ufd, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g)),
		  "a spread rule on a UDP channel socket");
	close(ufd);
	return 0;
}

/* Who may share a flow id: same id, rule, mode and kind; never direct. */
static int t_group_join(void)
{
	uint16_t port = tport(0);
	struct test_chan a, b;
	int err;

	member_open(&a, port, 5, VJ_SPREAD_HASH);
	member_open(&b, port, 5, VJ_SPREAD_HASH);
	err = try_join(port, 6, VJ_SPREAD_HASH, VJ_BIND_FW_BYPASS);
	CHECK(err == -EADDRINUSE, "another group id: %s", errname(-err));
	err = try_join(port, 5, VJ_SPREAD_CPU, VJ_BIND_FW_BYPASS);
	CHECK(err == -EADDRINUSE, "another spread rule: %s", errname(-err));
	err = try_join(port, 0, VJ_SPREAD_HASH, VJ_BIND_FW_BYPASS);
	CHECK(err == -EADDRINUSE, "no group: %s", errname(-err));
	err = try_join(port, 5, VJ_SPREAD_HASH, VJ_BIND_FW_FILTERED);
	CHECK(err == -EADDRINUSE, "another firewall mode: %s", errname(-err));
	err = try_join(port, 5, VJ_SPREAD_HASH, VJ_BIND_FW_BYPASS);
	CHECK(!err, "a third member: %s", errname(-err));
	/* A direct channel owns its queue alone: refused before the device. */
	err = try_join(tport(1), 5, VJ_SPREAD_HASH,
		       VJ_BIND_FW_BYPASS | VJ_BIND_F_DIRECT);
	CHECK(err == -EINVAL, "a direct member: %s", errname(-err));
	chan_close(&a);
	chan_close(&b);
	return 0;
}

/*
 * Sends one datagram of each of NFLOWS flows (source ports) to @port from
 * this CPU, then per flow @per more, and maps seq -> member.
 */
static void send_flows(uint16_t port, uint32_t base, int per)
{
	int flow, i;

	for (i = 0; i < per; i++)
		for (flow = 0; flow < NFLOWS; flow++)
			udp_send(LO, SPORT0 + flow, LO, port,
				 base + (uint32_t)(i * NFLOWS + flow), 64);
}

/*
 * VJ_SPREAD_HASH: every flow to one member, the members sharing the
 * flows; a member that leaves with datagrams queued hands its flows to
 * the others and its buffers back.
 */
static void group_hash(uint16_t fw)
{
	uint16_t port = tport(0), saved = test_bind_flags;
	int where[NFLOWS * 2], i, m, got, per_member[3] = { 0 };
	struct test_chan c[3];
	uint32_t base = SEQ_BASE;

	test_bind_flags = fw;
	for (m = 0; m < 3; m++)
		member_open(&c[m], port, 9, VJ_SPREAD_HASH);
	test_bind_flags = saved;
	memset(where, -1, sizeof(where));
	send_flows(port, base, 2);
	wait_counted(c, 3, NFLOWS * 2);
	for (got = 0, m = 0; m < 3; m++)
		got += drain_into(&c[m], m, base, NFLOWS * 2, where);
	CHECK(got == NFLOWS * 2, "took %d of %d", got, NFLOWS * 2);
	for (i = 0; i < NFLOWS; i++) {
		CHECK(where[i] == where[i + NFLOWS],
		      "flow %d went to members %d and %d", i, where[i],
		      where[i + NFLOWS]);
		per_member[where[i]]++;
	}
	for (m = 0; m < 3; m++)
		CHECK(per_member[m], "member %d got none of %d flows", m,
		      NFLOWS);
	diag("flows per member: %d %d %d", per_member[0], per_member[1],
	     per_member[2]);

	step("a member leaves with datagrams queued");
	base += 0x1000;
	send_flows(port, base, 1);
	wait_counted(c, 3, NFLOWS * 3);
	chan_close(&c[1]);
	memset(where, -1, sizeof(where));
	got = drain_into(&c[0], 0, base, NFLOWS, where) +
	      drain_into(&c[2], 2, base, NFLOWS, where);
	CHECK(got == NFLOWS - per_member[1],
	      "the two left held %d of their %d flows' datagrams", got,
	      NFLOWS - per_member[1]);
	memset(where, -1, sizeof(where));
	base += 0x1000;
	send_flows(port, base, 1);
	{
		uint64_t end = now_ns() + 5000000000ull;

		got = 0;
		while (got < NFLOWS && now_ns() < end) {
			got += drain_into(&c[0], 0, base, NFLOWS, where);
			got += drain_into(&c[2], 2, base, NFLOWS, where);
			if (got < NFLOWS)
				msleep(5);
		}
	}
	CHECK(got == NFLOWS, "the two left took %d of %d", got, NFLOWS);
	chan_close(&c[0]);
	chan_close(&c[2]);
	CHECK(pool_settled(3000), "pool buffers not all back after the closes");
}

static int t_group_hash(void)
{
	group_hash(VJ_BIND_FW_BYPASS);
	return 0;
}

/* The filtered path spreads a raw group as the fast paths do. */
static int t_group_hash_filtered(void)
{
	group_hash(VJ_BIND_FW_FILTERED);
	return 0;
}

/* VJ_SPREAD_CPU: what CPU n receives goes to member n modulo members. */
static int t_group_cpu(void)
{
	uint16_t port = tport(0);
	int where[2 * NFLOWS], cpu, i;
	struct test_chan c[2];

	if (ncpus_online() < 2)
		skip("one CPU online");
	member_open(&c[0], port, 3, VJ_SPREAD_CPU);
	member_open(&c[1], port, 3, VJ_SPREAD_CPU);
	memset(where, -1, sizeof(where));
	for (cpu = 0; cpu < 2; cpu++) {
		pin_cpu(cpu);
		send_flows(port, SEQ_BASE + cpu * NFLOWS, 1);
	}
	wait_counted(c, 2, 2 * NFLOWS);
	drain_into(&c[0], 0, SEQ_BASE, 2 * NFLOWS, where);
	drain_into(&c[1], 1, SEQ_BASE, 2 * NFLOWS, where);
	for (cpu = 0; cpu < 2; cpu++)
		for (i = 0; i < NFLOWS; i++)
			CHECK(where[cpu * NFLOWS + i] ==
			      where[cpu * NFLOWS],
			      "CPU %d's datagrams went to members %d and %d",
			      cpu, where[cpu * NFLOWS],
			      where[cpu * NFLOWS + i]);
	CHECK(where[0] != where[NFLOWS],
	      "both CPUs' datagrams went to member %d", where[0]);
	chan_close(&c[0]);
	chan_close(&c[1]);
	return 0;
}

/*
 * VJ_SPREAD_CONSUMER: a CPU's datagrams go to the member whose consumer
 * last polled there; when the consumers move, the datagrams follow; with
 * no consumer on the CPU, the flow hash decides.
 */
static int t_group_consumer(void)
{
	uint16_t port = tport(0);
	int where[2 * NFLOWS], cpu, i, m;
	struct test_chan c[2];
	uint32_t base = SEQ_BASE;
	int round;

	if (ncpus_online() < 2)
		skip("one CPU online");
	member_open(&c[0], port, 4, VJ_SPREAD_CONSUMER);
	member_open(&c[1], port, 4, VJ_SPREAD_CONSUMER);
	/* Round 0: member m's consumer on CPU m; round 1: swapped. */
	for (round = 0; round < 2; round++) {
		step("round %d", round);
		memset(where, -1, sizeof(where));
		for (m = 0; m < 2; m++) {
			pin_cpu(m ^ round);
			drain_into(&c[m], m, 0, 0, where);
		}
		for (cpu = 0; cpu < 2; cpu++) {
			pin_cpu(cpu);
			send_flows(port, base + cpu * NFLOWS, 1);
		}
		wait_counted(c, 2, (round + 1) * 2 * NFLOWS);
		for (m = 0; m < 2; m++) {
			pin_cpu(m ^ round);
			drain_into(&c[m], m, base, 2 * NFLOWS, where);
		}
		for (cpu = 0; cpu < 2; cpu++)
			for (i = 0; i < NFLOWS; i++)
				CHECK(where[cpu * NFLOWS + i] == (cpu ^ round),
				      "round %d: a datagram from CPU %d went to member %d, whose consumer is on CPU %d",
				      round, cpu, where[cpu * NFLOWS + i],
				      where[cpu * NFLOWS + i] ^ round);
		base += 0x1000;
	}

	step("no consumer on the receiving CPU: by flow");
	memset(where, -1, sizeof(where));
	pin_cpu(0);
	drain_into(&c[0], 0, 0, 0, where);
	drain_into(&c[1], 1, 0, 0, where);
	pin_cpu(1);
	send_flows(port, base, 2);
	wait_counted(c, 2, 6 * NFLOWS);
	pin_cpu(0);
	drain_into(&c[0], 0, base, 2 * NFLOWS, where);
	drain_into(&c[1], 1, base, 2 * NFLOWS, where);
	for (i = 0; i < NFLOWS; i++)
		CHECK(where[i] >= 0 && where[i] == where[i + NFLOWS],
		      "flow %d went to members %d and %d", i, where[i],
		      where[i + NFLOWS]);
	chan_close(&c[0]);
	chan_close(&c[1]);
	return 0;
}

/* An unbound bypass UDP channel with SO_REUSEPORT and rule @spread. */
static int udp_member(uint16_t spread)
{
	struct vj_group_req g = { .spread = spread };
	uint32_t mode = VJ_BIND_FW_BYPASS;
	int fd = udp_chan(AF_INET), one = 1;

	EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)),
		  "SO_REUSEPORT");
	EXPECT_OK(setsockopt(fd, SOL_VJCHAN, VJ_BIND_FLAGS, &mode,
			     sizeof(mode)), "VJ_BIND_FLAGS");
	EXPECT_OK(setsockopt(fd, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g)),
		  "VJ_GROUP");
	return fd;
}

/*
 * A UDP channel socket's rule: bypass members of one SO_REUSEPORT group
 * with VJ_SPREAD_CPU take what their CPU receives; a member with another
 * rule cannot join.
 */
static int t_group_udp_cpu(void)
{
	uint16_t port = tport(0);
	int fd[3], i, cpu, got[2] = { 0 }, first[2] = { -1, -1 };
	uint32_t seq, len;

	if (ncpus_online() < 2)
		skip("one CPU online");
	for (i = 0; i < 3; i++)
		fd[i] = udp_member(i == 2 ? VJ_SPREAD_HASH : VJ_SPREAD_CPU);
	EXPECT_OK(udp_bind_to(fd[0], "0.0.0.0", port), "bind member 0");
	EXPECT_OK(udp_bind_to(fd[1], "0.0.0.0", port), "bind member 1");
	EXPECT_ERR(udp_bind_to(fd[2], "0.0.0.0", port), EADDRINUSE,
		   "a member with another rule");
	close(fd[2]);
	for (cpu = 0; cpu < 2; cpu++) {
		pin_cpu(cpu);
		send_flows(port, SEQ_BASE + cpu * NFLOWS, 1);
	}
	for (i = 0; i < 2; i++)
		while (udp_recv_seq(fd[i], 200, &seq, &len)) {
			cpu = (seq - SEQ_BASE) / NFLOWS;
			CHECK(cpu < 2, "member %d got seq %#x", i, seq);
			if (first[cpu] < 0)
				first[cpu] = i;
			CHECK(first[cpu] == i,
			      "CPU %d's datagrams went to members %d and %d",
			      cpu, first[cpu], i);
			got[cpu]++;
		}
	CHECK(got[0] == NFLOWS && got[1] == NFLOWS,
	      "received %d from CPU 0 and %d from CPU 1 of %d each", got[0],
	      got[1], NFLOWS);
	CHECK(first[0] != first[1], "both CPUs' datagrams went to member %d",
	      first[0]);
	close(fd[0]);
	close(fd[1]);
	return 0;
}

/*
 * VJ_SPREAD_CONSUMER on UDP channel sockets: a receiving call notes its
 * CPU as poll() does, so with member m reading on CPU m ^ round, what CPU
 * n receives goes to member n ^ round, in both rounds.
 */
static int t_group_udp_consumer(void)
{
	uint32_t seq, len, base = SEQ_BASE;
	uint16_t port = tport(0);
	int fd[2], i, cpu, round, got;
	char buf[16];

	if (ncpus_online() < 2)
		skip("one CPU online");
	for (i = 0; i < 2; i++) {
		fd[i] = udp_member(VJ_SPREAD_CONSUMER);
		EXPECT_OK(udp_bind_to(fd[i], "0.0.0.0", port), "bind member");
	}
	for (round = 0; round < 2; round++) {
		step("round %d", round);
		/* An empty receive is a receiving call: it notes the CPU. */
		for (i = 0; i < 2; i++) {
			pin_cpu(i ^ round);
			CHECK(recv(fd[i], buf, sizeof(buf), MSG_DONTWAIT) < 0 &&
			      errno == EAGAIN, "member %d: not empty", i);
		}
		for (cpu = 0; cpu < 2; cpu++) {
			pin_cpu(cpu);
			send_flows(port, base + cpu * NFLOWS, 1);
		}
		/* All is sent: reading (on CPU 1) moves nothing this round. */
		for (i = 0; i < 2; i++) {
			got = 0;
			while (udp_recv_seq(fd[i], 200, &seq, &len)) {
				cpu = (seq - base) / NFLOWS;
				CHECK(seq >= base && cpu < 2,
				      "member %d got seq %#x", i, seq);
				CHECK(cpu == (i ^ round),
				      "round %d: a datagram from CPU %d went to member %d, whose consumer is on CPU %d",
				      round, cpu, i, i ^ round);
				got++;
			}
			CHECK(got == NFLOWS, "round %d: member %d got %d of %d",
			      round, i, got, NFLOWS);
		}
		base += 0x1000;
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}

#define CHURN_MS	1500
#define CHURN_MEMBERS	3

struct churn_tx {
	pthread_t th;
	int cpu;
	uint16_t port;
	atomic_bool *stop;
	uint64_t sent;
};

/* Sends to @port from @cpu, 8 flows in turn, until told to stop. */
static void *churn_send(void *arg)
{
	struct churn_tx *t = arg;
	struct sockaddr_storage dst;
	uint8_t buf[64] = { 0 };
	socklen_t dlen;
	int fd[8], i;
	uint32_t n = 0;

	pin_cpu(t->cpu);
	parse_addr(LO, t->port, &dst, &dlen);
	for (i = 0; i < 8; i++)
		fd[i] = udp_listen(LO, SPORT0 + 100 + t->cpu * 8 + i);
	while (!atomic_load(t->stop)) {
		memcpy(buf, &n, sizeof(n));
		if (sendto(fd[n % 8], buf, sizeof(buf), 0,
			   (struct sockaddr *)&dst, dlen) == sizeof(buf))
			t->sent++;
		if (!(++n % 64))
			usleep(1000);
	}
	for (i = 0; i < 8; i++)
		close(fd[i]);
	return NULL;
}

/* Takes what @c holds, the consumer noted on this CPU. */
static void churn_drain(struct test_chan *c)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	struct test_pkt p;

	poll(&pfd, 1, 0);
	while (chan_try(c, &p))
		;
}

/*
 * Members join and leave a group while both CPUs send to it: one member
 * stays, up to CHURN_MEMBERS more are bound, polled from either CPU
 * (VJ_SPREAD_CONSUMER follows them) and closed, often with datagrams
 * queued.  Every datagram sent is claimed by some member or dropped on a
 * full ring, by the hook (hook_claimed + hook_dropped), none reaches the
 * stack, and every buffer comes back.
 */
static int t_group_churn(void)
{
	uint16_t port = tport(0);
	struct test_chan stay, m[CHURN_MEMBERS];
	bool open[CHURN_MEMBERS] = { false };
	struct churn_tx tx[2];
	atomic_bool stop = false;
	long long claimed0, dropped0, got = 0;
	uint64_t sent, end, joins = 0;
	int ncpu = ncpus_online() < 2 ? 1 : 2, i, k;

	claimed0 = pool_get("hook_claimed");
	dropped0 = pool_get("hook_dropped");
	member_open(&stay, port, 11, VJ_SPREAD_CONSUMER);
	for (i = 0; i < ncpu; i++) {
		tx[i] = (struct churn_tx){ .cpu = i, .port = port,
					   .stop = &stop };
		CHECK(!pthread_create(&tx[i].th, NULL, churn_send, &tx[i]),
		      "pthread_create");
	}
	end = now_ns() + CHURN_MS * 1000000ull;
	for (k = 0; now_ns() < end; k++) {
		i = k % CHURN_MEMBERS;
		pin_cpu((k / CHURN_MEMBERS) % ncpu);
		if (open[i]) {
			if (k % 2)
				churn_drain(&m[i]);
			chan_close(&m[i]);	/* often with datagrams queued */
			open[i] = false;
		} else {
			member_open(&m[i], port, 11, VJ_SPREAD_CONSUMER);
			churn_drain(&m[i]);
			open[i] = true;
			joins++;
		}
		churn_drain(&stay);
		usleep(2000);
	}
	atomic_store(&stop, true);
	for (i = 0; i < ncpu; i++)
		pthread_join(tx[i].th, NULL);
	for (sent = 0, i = 0; i < ncpu; i++)
		sent += tx[i].sent;
	/* The input backlogs may still hold some: a debug kernel is slow. */
	end = now_ns() + 60000000000ull;
	do {
		got = pool_get("hook_claimed") - claimed0 +
		      pool_get("hook_dropped") - dropped0;
		if (got >= (long long)sent)
			break;
		msleep(20);
	} while (now_ns() < end);
	diag("%llu datagrams sent from %d CPU(s), %llu joins",
	     (unsigned long long)sent, ncpu, (unsigned long long)joins);
	CHECK(got == (long long)sent,
	      "the hook claimed or dropped %lld of %llu datagrams sent", got,
	      (unsigned long long)sent);
	for (i = 0; i < CHURN_MEMBERS; i++)
		if (open[i])
			chan_close(&m[i]);
	chan_close(&stay);
	CHECK(pool_settled(3000), "pool buffers not all back after the closes");
	return 0;
}

const struct vj_case group_cases[] = {
	VJ_CASE("GROUP_OPT", t_group_opt),
	VJ_CASE("GROUP_JOIN", t_group_join),
	VJ_CASE("GROUP_HASH", t_group_hash),
	VJ_CASE("GROUP_HASH_FILTERED", t_group_hash_filtered),
	VJ_CASE("GROUP_CPU", t_group_cpu),
	VJ_CASE("GROUP_CONSUMER", t_group_consumer),
	VJ_CASE("GROUP_UDP_CPU", t_group_udp_cpu),
	VJ_CASE("GROUP_UDP_CONSUMER", t_group_udp_consumer),
	VJ_CASE("GROUP_CHURN", t_group_churn),
	{ NULL }
};
