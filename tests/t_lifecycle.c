// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle cases: devices and network namespaces that go away under
 * bound channels, and the final audit that every channel created was
 * destroyed.  These use ip(8) for device and namespace setup.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static struct test_pkt pkt;

struct poller {
	pthread_t th;
	int fd;
	int ret;
	short revents;
	uint64_t woke;
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	p->ret = poll(&pfd, 1, 10000);
	p->revents = pfd.revents;
	p->woke = now_ns();
	return NULL;
}

static int so_error(int fd)
{
	socklen_t len = sizeof(int);
	int v = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len))
		fail("SO_ERROR: %s", errname(errno));
	return v;
}

/*
 * Deleting the device a channel is bound to: a consumer asleep in poll()
 * wakes with POLLERR, SO_ERROR reports ENODEV once, the ring's flags get
 * VJ_RING_F_DEAD; an unmapped channel on the device gets ENODEV too;
 * channels not bound to the device are untouched; all close cleanly.
 */
static int t_dev_unregister_while_bound(void)
{
	long long live0 = live_baseline();
	struct test_chan c, o;
	struct poller p = { 0 };
	unsigned int ifi;
	uint64_t t0;
	int u;

	sh("ip link del vjdum0 >/dev/null 2>&1");
	if (sh("ip link add vjdum0 type dummy 2>/dev/null") &&
	    sh("ip link add vjdum0 type veth peer name vjdum1"))
		fail("cannot create a dummy or veth device");
	ifi = ifindex_of("vjdum0");
	sh("ip link set vjdum0 up");

	struct vj_flow fc = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), ifi);
	struct vj_flow fu = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(1), ifi);
	struct vj_flow fo = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				  tport(2), 0);

	chan_open(&c, &fc, 8, 2048);
	chan_open(&o, &fo, 8, 2048);
	u = test_socket();
	EXPECT_OK(test_bind(u, &fu), "bind unmapped channel");
	CHECK(atomic_load(c.flags) == 0, "flags %#x before unregister",
	      atomic_load(c.flags));

	p.fd = c.fd;
	pthread_create(&p.th, NULL, poll_thread, &p);
	msleep(300);
	t0 = now_ns();
	step("deleting vjdum0");
	if (sh("ip link del vjdum0"))
		fail("ip link del vjdum0 failed");
	pthread_join(p.th, NULL);
	CHECK(p.ret == 1 && (p.revents & POLLERR),
	      "sleeping poll returned %d revents %#x", p.ret, p.revents);
	CHECK(p.woke - t0 < 5000000000ull, "poll woke %llu ms after the delete",
	      (unsigned long long)(p.woke - t0) / 1000000);
	CHECK(atomic_load(c.flags) & VJ_RING_F_DEAD,
	      "ring flags %#x lack VJ_RING_F_DEAD", atomic_load(c.flags));
	CHECK(so_error(c.fd) == ENODEV, "SO_ERROR %d, want ENODEV",
	      so_error(c.fd));
	CHECK(so_error(c.fd) == 0, "SO_ERROR not cleared after reading");
	CHECK(so_error(u) == ENODEV, "unmapped channel: SO_ERROR %d", so_error(u));

	CHECK(atomic_load(o.flags) == 0, "unrelated channel got flags %#x",
	      atomic_load(o.flags));
	CHECK(so_error(o.fd) == 0, "unrelated channel got an error");
	udp_send(NULL, 0, "127.0.0.1", tport(2), 1, 64);
	CHECK(chan_recv(&o, &pkt, 3000), "unrelated channel stopped receiving");

	chan_close(&c);
	chan_close(&o);
	close(u);
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 3000),
	      "channels_live %lld, want %lld", pool_get("channels_live"),
	      live0);
	return 0;
}

/*
 * A channel in a namespace that `ip netns del` removed stays usable
 * (statistics, poll, traffic inside it through a kept namespace fd) and
 * closes cleanly; channels_live comes back.
 */
static int t_netns_delete_with_open_channel(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	long long live0 = live_baseline();
	struct pollfd pfd = { .events = POLLIN };
	int self = netns_fd_self(), nsfd;
	struct test_chan c;

	sh("ip netns del vjt-del >/dev/null 2>&1");
	if (sh("ip netns add vjt-del"))
		fail("ip netns add failed");
	nsfd = open("/run/netns/vjt-del", O_RDONLY | O_CLOEXEC);
	CHECK(nsfd >= 0, "open /run/netns/vjt-del: %s", errname(errno));
	EXPECT_OK(setns(nsfd, CLONE_NEWNET), "setns into vjt-del");
	if_up("lo");
	chan_open(&c, &f, 8, 2048);
	EXPECT_OK(setns(self, CLONE_NEWNET), "setns back");
	CHECK(!sh("ip netns del vjt-del"), "ip netns del failed");

	test_get_stats(c.fd);
	pfd.fd = c.fd;
	CHECK(poll(&pfd, 1, 0) == 0, "poll on the deleted ns's channel");
	EXPECT_OK(setns(nsfd, CLONE_NEWNET), "setns into the deleted ns");
	udp_send(NULL, 0, "127.0.0.1", tport(0), 3, 64);
	EXPECT_OK(setns(self, CLONE_NEWNET), "setns back");
	CHECK(chan_recv(&c, &pkt, 3000),
	      "no packet inside the deleted namespace");
	close(nsfd);		/* now only the socket holds the namespace */
	CHECK(test_get_stats(c.fd).rx_packets == 1, "statistics");
	chan_close(&c);
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 5000),
	      "channels_live %lld, want %lld", pool_get("channels_live"),
	      live0);
	close(self);
	return 0;
}

static void exit_with_mapping(void *arg)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 *(uint16_t *)arg, 0);
	struct test_chan c;

	netns_new();
	chan_open(&c, &f, 8, 2048);
	udp_send(NULL, 0, "127.0.0.1", *(uint16_t *)arg, 1, 64);
	CHECK(WAIT_FOR(chan_producer(&c) == 1, 3000), "no packet");
	close(c.fd);
	/* exit with only the mapping holding channel and namespace */
}

static void send_fd_out(void *arg)
{
	int *sv = arg;
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", 9, 0);
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { "x", 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int fd;

	netns_new();
	fd = test_socket();
	EXPECT_OK(test_bind(fd, &f), "bind in the child ns");
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sv[1], &mh, 0) != 1)
		fail("sendmsg SCM_RIGHTS: %s", errname(errno));
}

/*
 * Namespaces that die around channels: a process exits with only a
 * mapping of a channel in its private namespace; a channel fd sent out
 * of a namespace whose last process exited still works and closes; both
 * give channels_live back.
 */
static int t_netns_exit_with_channel(void)
{
	long long live0 = live_baseline();
	uint16_t port = tport(0);
	char cbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	struct test_chan c;
	int sv[2], fd;

	in_child(exit_with_mapping, &port);
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 5000),
	      "after exit with a mapping: channels_live %lld, want %lld",
	      pool_get("channels_live"), live0);

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		fail("socketpair");
	in_child(send_fd_out, sv);
	if (recvmsg(sv[0], &mh, MSG_DONTWAIT) != 1)
		fail("recvmsg: %s", errname(errno));
	cm = CMSG_FIRSTHDR(&mh);
	CHECK(cm && cm->cmsg_type == SCM_RIGHTS, "no fd passed");
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	close(sv[0]);
	close(sv[1]);
	chan_init(&c, fd);
	chan_map(&c);
	test_get_stats(fd);
	CHECK(pool_get("channels_live") == live0 + 1,
	      "channels_live %lld with the passed channel, want %lld",
	      pool_get("channels_live"), live0 + 1);
	chan_close(&c);
	CHECK(WAIT_FOR(pool_get("channels_live") == live0, 5000),
	      "after closing the passed fd: channels_live %lld, want %lld",
	      pool_get("channels_live"), live0);
	return 0;
}

/*
 * Final audit: no channel is left, created - destroyed == live == 0,
 * /proc/net/vjchan is empty and every pool buffer is free.
 */
static int t_objects_balanced(void)
{
	long long cr, de;

	CHECK(WAIT_FOR(pool_get("channels_live") == 0, 5000),
	      "channels_live %lld at the end", pool_get("channels_live"));
	cr = pool_get("channels_created");
	de = pool_get("channels_destroyed");
	CHECK(cr - de == 0, "channels_created %lld - channels_destroyed %lld "
	      "= %lld, want 0", cr, de, cr - de);
	CHECK(cr > 0, "channels_created is 0 after the whole suite");
	CHECK(proc_chan_lines() == 0, "/proc/net/vjchan lists %d channels",
	      proc_chan_lines());
	CHECK(pool_settled(3000), "pool_free %lld of %lld",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	return 0;
}

const struct vj_case lifecycle_cases[] = {
	VJ_CASE("DEV_UNREGISTER_WHILE_BOUND", t_dev_unregister_while_bound),
	VJ_CASE("NETNS_DELETE_WITH_OPEN_CHANNEL",
		t_netns_delete_with_open_channel),
	VJ_CASE("NETNS_EXIT_WITH_CHANNEL", t_netns_exit_with_channel),
	VJ_CASE("OBJECTS_BALANCED", t_objects_balanced),
	{ NULL }
};
