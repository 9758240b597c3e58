// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: generators of the file calls.  close() (of ours and of descriptors
 * never opened), dup(), poll() and epoll with a zero timeout, fork() (the
 * child touches the mappings), and reads of /proc/net/vjchan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

void ep_register(int fi)
{
	struct mfd *f = &fds[fi];
	struct msock *s = &socks[f->sock];
	struct epoll_event ev = {
		.events = EPOLLIN | (chance(&R, 30) ? EPOLLET : 0),
		.data.u64 = (uint64_t)s->id << 32 | (uint32_t)f->fd,
	};
	struct expect x;
	int r;

	op_begin(O_EPOLL, "epoll_ctl(ADD, fd %d sock %u)", f->fd, s->id);
	expect_epoll_ctl(&x, EPOLL_CTL_ADD, epkey_find(s->id, f->fd));
	r = epoll_ctl(epfd, EPOLL_CTL_ADD, f->fd, &ev);
	if (check(r, errno, &x) && !r)
		epkey_add(s->id, f->fd);
}

void op_close(void)
{
	int fi = pick_fd(), r, fd;
	struct expect x;

	if (fi < 0 || chance(&R, 4)) {
		fd = 900 + below(&R, 50);
		op_begin(O_CLOSE, "close(%d) never opened", fd);
		expect_simple(&x, X_CLOSE_BAD);
		r = close(fd);
		check(r, errno, &x);
		return;
	}
	op_begin(O_CLOSE, "close(fd %d sock %u, %d fds %d maps)", fds[fi].fd,
		 socks[fds[fi].sock].id, socks[fds[fi].sock].nfds,
		 socks[fds[fi].sock].nmaps);
	expect_simple(&x, X_ANY);
	r = close(fds[fi].fd);
	if (check(r, errno, &x))
		fd_forget(fi);
}

void op_dup(void)
{
	int fi = pick_fd(), fd, ni;
	struct expect x;

	if (fi < 0 || live_fds() >= MAX_FDS)
		return;
	op_begin(O_DUP, "dup(fd %d sock %u)", fds[fi].fd,
		 socks[fds[fi].sock].id);
	expect_simple(&x, X_DUP);
	fd = chance(&R, 50) ? dup(fds[fi].fd) :
	     fcntl(fds[fi].fd, F_DUPFD_CLOEXEC, 3 + below(&R, 100));
	if (!check(fd, errno, &x) || fd < 0)
		return;
	ni = fd_add(fd, fds[fi].sock);
	if (ni < 0) {
		close(fd);
		return;
	}
	if (chance(&R, 30))
		ep_register(ni);
}

void op_poll(void)
{
	struct pollfd pfd[8];
	int fi[8], n = 1 + below(&R, 6), i, r, mi[8];
	uint32_t before[8];
	struct expect x;

	for (i = 0; i < n; i++) {
		fi[i] = pick_fd();
		mi[i] = -1;
		if (fi[i] < 0 || chance(&R, 5)) {
			fi[i] = -1;
			pfd[i].fd = 900 + below(&R, 50);	/* never open */
		} else {
			pfd[i].fd = fds[fi[i]].fd;
			if (socks[fds[fi[i]].sock].clean)
				mi[i] = clean_map_of(fds[fi[i]].sock, false);
		}
		pfd[i].events = POLLIN | POLLRDNORM | (chance(&R, 30) ? POLLOUT : 0) |
				(chance(&R, 20) ? POLLPRI | POLLRDHUP : 0);
		pfd[i].revents = 0;
	}
	op_begin(O_POLL, "poll(%d fds, 0)", n);
	for (i = 0; i < n; i++)
		if (mi[i] >= 0)
			before[i] = load_acq(&maps[mi[i]], maps[mi[i]].off.producer);
	expect_simple(&x, X_POLL);
	r = poll(pfd, n, 0);
	if (!check(r, errno, &x) || r < 0)
		return;
	for (i = 0; i < n && !failed; i++) {
		if (fi[i] < 0) {
			if (pfd[i].revents != POLLNVAL)
				failf("%s: fd %d never opened: revents %#x",
				      opdesc, pfd[i].fd, pfd[i].revents);
			continue;
		}
		check_poll(&socks[fds[fi[i]].sock], pfd[i].fd, pfd[i].revents,
			   mi[i] >= 0 ? &maps[mi[i]] : NULL,
			   mi[i] >= 0 ? before[i] : 0);
	}
}

void op_epoll(void)
{
	struct epoll_event ev[16];
	struct expect x;
	int fi, r;

	if (chance(&R, 40) && (fi = pick_fd()) >= 0) {
		struct mfd *f = &fds[fi];
		struct msock *s = &socks[f->sock];
		struct epkey *k = epkey_find(s->id, f->fd);
		struct epoll_event e = { .events = EPOLLIN,
			.data.u64 = (uint64_t)s->id << 32 | (uint32_t)f->fd };
		int what = below(&R, 3);

		if (what == 0) {
			ep_register(fi);
			return;
		}
		op_begin(O_EPOLL, "epoll_ctl(%s, fd %d sock %u)",
			 what == 1 ? "MOD" : "DEL", f->fd, s->id);
		expect_epoll_ctl(&x, what == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL,
				 k);
		r = epoll_ctl(epfd, what == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL,
			      f->fd, &e);
		if (check(r, errno, &x) && !r && what == 2)
			k->live = false;
		return;
	}
	op_begin(O_EPOLL, "epoll_wait(0)");
	expect_simple(&x, X_ANY);
	r = epoll_wait(epfd, ev, ARRAY_SIZE(ev), 0);
	if (check(r, errno, &x))
		check_epoll_events(ev, r);
}

/*
 * The child shares the mappings: it reads them, stores junk into the
 * dirty ones, polls and closes its copies of the descriptors.  It runs
 * only async-signal-safe code (the parent is multithreaded).
 */
static void child_touch(uint64_t cseed)
{
	struct rng r = { cseed };
	volatile uint8_t sink = 0;
	int i;

	signal(SIGALRM, SIG_DFL);
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	alarm(10);
	for (i = 0; i < MAX_MAPS; i++) {
		struct mmapping *m = &maps[i];
		size_t p;

		if (!m->live || !m->readable)
			continue;
		for (p = 0; p < m->npages; p += 1 + below(&r, 8))
			if (m->present[p])
				sink += m->addr[p * pg + below(&r, pg)];
		if (!m->clean && m->writable && page_ok(m, m->off.consumer, 4))
			__atomic_store_n((uint32_t *)(m->addr + m->off.consumer),
					 (uint32_t)rnd64(&r), __ATOMIC_RELEASE);
	}
	for (i = 0; i < MAX_FDS; i++) {
		struct pollfd pfd = { .fd = fds[i].fd, .events = POLLIN };

		if (!fds[i].live)
			continue;
		if (socks[fds[i].sock].clean)
			continue;	/* its poll would publish for the parent */
		poll(&pfd, 1, 0);
		if (chance(&r, 50))
			close(fds[i].fd);
	}
	(void)sink;
	_exit(0);
}

void op_fork(void)
{
	uint64_t cseed = rnd64(&R);
	struct expect x;
	pid_t pid;
	int st;

	op_begin(O_FORK, "fork()");
	expect_simple(&x, X_FORK);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		child_touch(cseed);
	if (!check(pid, errno, &x) || pid < 0)
		return;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			failf("%s: waitpid: %s", opdesc, errname(errno));
			return;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		failf("%s: child %s %d touching the mappings", opdesc,
		      WIFEXITED(st) ? "exited" : "killed by signal",
		      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

void op_proc(void)
{
	op_begin(O_PROC, "read /proc/net/vjchan");
	check_proc();
}
