// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a seeded, time-bounded fuzzer for the PF_VJCHAN socket family.
 *
 *   fuzz [-s SEED] [-t SECONDS] [-j THREADS] [-n OPS] [-v]
 *
 * The main thread runs a random sequence of operations on a small set of
 * channels: socket() with good and bad arguments, bind() with random and
 * boundary flow ids and address lengths, setsockopt()/getsockopt() of every
 * option (and unknown ones) with boundary lengths and geometries,
 * getsockname(), mmap() with boundary lengths, offsets and flags, munmap()
 * of whole and partial mappings, mremap(), poll() and epoll with a zero
 * timeout, dup(), close(), fork() (the child touches the mappings), the
 * calls a channel refuses, UDP and malformed raw IP packets over lo, frames
 * through the driver API (vjtest's debugfs inject file), and reads of
 * /proc/net/vjchan (the generators: fuzz_gen_*.c).
 *
 * The fuzzer keeps a model of every socket (ring created or not, geometry,
 * bound flow, file references) and of what vjchan(7) allows each call in
 * that state (fuzz_model.c), and checks each result against it
 * (fuzz_check.c).  A call that succeeds where it must fail, or fails with
 * an errno not allowed for it, stops the run with "FAIL FUZZ: seed N op K:
 * ...".  Half of the sockets are "clean": nothing scribbles on their
 * rings, and every descriptor they receive is checked, as are their
 * counters and poll().
 *
 * With -j N > 0, N threads scribble random values on the dirty rings
 * (consumer, producer, flags, descriptors, buffers) while a sender thread
 * sends UDP to the fuzzed ports over lo and another injects frames through
 * the driver API.  Those threads make the run timing-dependent; the main
 * thread's operation sequence is still a function of the seed alone, and
 * -j 0 gives a fully reproducible run (replay a failure with -s N, and -n K
 * to stop at op K).
 *
 * At the end everything is closed and the module must settle within 5 s:
 * channels_live 0, every pool buffer free, bytes_pinned 0, no channel in
 * /proc/net/vjchan.  Prints "ok FUZZ" or "FAIL FUZZ: reason"; exit 0 or 1.
 * Runs only in the test guest, as root, with vjchan.ko (and for the driver
 * path vjtest.ko with vjtest0 up) loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/proc.h"
#include "lib/vjtest.h"

struct rng R;
uint64_t seed;
unsigned long opno;
static bool verbose;
char opdesc[1024];
static char failmsg[2048];
bool failed;
uint64_t t_start;
long pg;
static int nthreads = 2;
atomic_int stop_threads;
static char hist[HIST][300];

struct opstat ops[O_NR] = {
	[O_SOCKET] = { "socket" }, [O_SOCKET_BAD] = { "socket_bad" },
	[O_SETSOCKOPT] = { "setsockopt" }, [O_GETSOCKOPT] = { "getsockopt" },
	[O_SOLSOCKET] = { "sol_socket" }, [O_BIND] = { "bind" },
	[O_GETSOCKNAME] = { "getsockname" }, [O_MMAP] = { "mmap" },
	[O_MUNMAP] = { "munmap" }, [O_MREMAP] = { "mremap" },
	[O_POLL] = { "poll" }, [O_EPOLL] = { "epoll" },
	[O_CLOSE] = { "close" }, [O_DUP] = { "dup" }, [O_FORK] = { "fork" },
	[O_SEND] = { "udp" }, [O_RAW] = { "raw" }, [O_INJECT] = { "inject" },
	[O_CONSUME] = { "consume" }, [O_SCRIBBLE] = { "scribble" },
	[O_REFUSED] = { "refused" }, [O_PROC] = { "proc" },
};
static int cur_op;
unsigned long descs_checked, descs_classified;

int if_lo, if_vjt, if_eth0, if_eth1;
uint8_t *gbuf, *guard_end, *zbuf;
int udp4 = -1, udp6 = -1, raw4 = -1, raw6 = -1, injfd = -1, epfd = -1;
int thr_udp4 = -1, thr_udp6 = -1, thr_injfd = -1;

/* First failure wins; the op loop stops at it. */
void failf(const char *fmt, ...)
{
	char buf[1536];
	va_list ap;

	if (failed)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(failmsg, sizeof(failmsg), "seed %llu op %lu: %s",
		 (unsigned long long)seed, opno, buf);
	failed = true;
}

void op_begin(int op, const char *fmt, ...)
{
	va_list ap;

	cur_op = op;
	ops[op].n++;
	va_start(ap, fmt);
	vsnprintf(opdesc, sizeof(opdesc), fmt, ap);
	va_end(ap);
	snprintf(hist[opno % HIST], sizeof(hist[0]), "op %lu: %.250s", opno,
		 opdesc);
	if (verbose)
		fprintf(stderr, "op %lu: %s\n", opno, opdesc);
}

void op_note(const char *res)
{
	char *h = hist[opno % HIST];
	size_t l = strlen(h);

	snprintf(h + l, sizeof(hist[0]) - l, " -> %s", res);
	if (verbose)
		fprintf(stderr, "   -> %s\n", res);
}

void op_ok(void)
{
	ops[cur_op].ok++;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	char buf[1400];
	int n;

	(void)uc;
	if (sig == SIGALRM)
		n = snprintf(buf, sizeof(buf),
			     "FAIL FUZZ: seed %llu op %lu: watchdog: still in \"%s\"\n",
			     (unsigned long long)seed, opno, opdesc);
	else
		n = snprintf(buf, sizeof(buf),
			     "FAIL FUZZ: seed %llu op %lu: %s at %p during \"%s\"\n",
			     (unsigned long long)seed, opno, strsignal(sig),
			     si->si_addr, opdesc);
	if (write(1, buf, n) < 0)
		_exit(1);
	_exit(1);
}

static void setup_bufs(void)
{
	gbuf = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zbuf = mmap(NULL, ZBUF_LEN + pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gbuf == MAP_FAILED || zbuf == MAP_FAILED) {
		perror("fuzz: mmap");
		exit(2);
	}
	mprotect(gbuf + 2 * pg, pg, PROT_NONE);
	mprotect(zbuf + ZBUF_LEN, pg, PROT_NONE);
	guard_end = gbuf + 2 * pg;
}

static void setup_net(void)
{
	if_lo = if_nametoindex("lo");
	if_vjt = if_nametoindex("vjtest0");
	if_eth0 = if_nametoindex("eth0");
	if_eth1 = if_nametoindex("eth1");
	udp4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	udp6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	raw4 = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	raw6 = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	thr_udp4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	thr_udp6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (if_vjt) {
		injfd = vjt_open();
		thr_injfd = vjt_open();
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (udp4 < 0 || raw4 < 0 || epfd < 0) {
		perror("fuzz: sockets");
		exit(2);
	}
}

static int choose_op(void)
{
	static const struct { int op, w; } wt[] = {
		{ O_SOCKET, 55 }, { O_SOCKET_BAD, 12 }, { O_SETSOCKOPT, 90 },
		{ O_GETSOCKOPT, 80 }, { O_SOLSOCKET, 15 }, { O_BIND, 110 },
		{ O_GETSOCKNAME, 25 }, { O_MMAP, 80 }, { O_MUNMAP, 35 },
		{ O_MREMAP, 15 }, { O_POLL, 50 }, { O_EPOLL, 40 },
		{ O_CLOSE, 70 }, { O_DUP, 20 }, { O_FORK, 4 }, { O_SEND, 60 },
		{ O_RAW, 30 }, { O_INJECT, 30 }, { O_CONSUME, 90 },
		{ O_SCRIBBLE, 25 }, { O_REFUSED, 20 }, { O_PROC, 10 },
	};
	int total = 0, r, i;

	for (i = 0; i < (int)ARRAY_SIZE(wt); i++)
		total += wt[i].w;
	r = below(&R, total);
	for (i = 0; i < (int)ARRAY_SIZE(wt); i++) {
		if (r < wt[i].w)
			return wt[i].op;
		r -= wt[i].w;
	}
	return O_SOCKET;
}

static void run_op(int op)
{
	static void (*const fn[O_NR])(void) = {
		[O_SOCKET] = op_socket, [O_SOCKET_BAD] = op_socket_bad,
		[O_SETSOCKOPT] = op_setsockopt, [O_GETSOCKOPT] = op_getsockopt,
		[O_SOLSOCKET] = op_solsocket, [O_BIND] = op_bind,
		[O_GETSOCKNAME] = op_getsockname, [O_MMAP] = op_mmap,
		[O_MUNMAP] = op_munmap, [O_MREMAP] = op_mremap,
		[O_POLL] = op_poll, [O_EPOLL] = op_epoll, [O_CLOSE] = op_close,
		[O_DUP] = op_dup, [O_FORK] = op_fork, [O_SEND] = op_send,
		[O_RAW] = op_raw, [O_INJECT] = op_inject,
		[O_CONSUME] = op_consume, [O_SCRIBBLE] = op_scribble,
		[O_REFUSED] = op_refused, [O_PROC] = op_proc,
	};
	static const bool needs_fd[O_NR] = {
		[O_SETSOCKOPT] = true, [O_GETSOCKOPT] = true,
		[O_SOLSOCKET] = true, [O_BIND] = true, [O_GETSOCKNAME] = true,
		[O_MMAP] = true, [O_DUP] = true, [O_REFUSED] = true,
	};
	bool full = live_socks() >= MAX_SOCKS - 1 || live_fds() >= MAX_FDS - 4;
	bool mapped = pick_map(map_any) >= 0;

	/*
	 * Make progress from the state the model is in: no descriptor means
	 * a new socket, no room means closing or unmapping (a socket held
	 * only by a mapping goes when that does).
	 */
	if (needs_fd[op] && !live_fds())
		op = O_SOCKET;
	if (full && (op == O_SOCKET || op == O_DUP))
		op = mapped && (!live_fds() || chance(&R, 50)) ? O_MUNMAP :
		     O_CLOSE;
	if (op == O_INJECT && injfd < 0)
		op = O_SEND;
	fn[op]();
}

/* Closes and unmaps everything the model knows of. */
static void cleanup(void)
{
	int i;

	snprintf(opdesc, sizeof(opdesc), "cleanup");
	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live) {
			close(fds[i].fd);
			fd_forget(i);
		}
	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].live) {
			size_t p;

			for (p = 0; p < maps[i].npages; p++)
				if (maps[i].present[p])
					munmap(maps[i].addr + p * pg, pg);
			map_forget(i);
		}
	close(epfd);
}

static void report(void)
{
	int i;

	printf("fuzz: %lu ops in %.1f s with %d scribbler thread(s)%s; successes/calls:",
	       opno, (now_ns() - t_start) / 1e9, nthreads,
	       nthreads ? " plus a UDP sender and a driver injector (timing-dependent; -j 0 is reproducible)" :
	       " (reproducible)");
	for (i = 0; i < O_NR; i++)
		if (ops[i].n)
			printf(" %s %lu/%lu", ops[i].name, ops[i].ok, ops[i].n);
	printf("; %lu descriptors of clean rings checked, %lu packets classified\n",
	       descs_checked, descs_classified);
	if (!failed)
		return;
	fprintf(stderr, "fuzz: last operations:\n");
	for (i = 1; i <= HIST; i++) {
		const char *h = hist[(opno + i) % HIST];

		if (*h)
			fprintf(stderr, "  %s\n", h);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz [-s SEED] [-t SECONDS] [-j THREADS] [-n OPS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_fatal,
				.sa_flags = SA_SIGINFO };
	unsigned int secs = 20;
	unsigned long maxops = 0;
	bool have_seed = false;
	pthread_t th[16];
	int nth = 0, c, i;
	const char *why;
	long long live;
	uint64_t end;
	struct timespec ts;

	while ((c = getopt(argc, argv, "s:t:j:n:v")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); have_seed = true; break;
		case 't': secs = strtoul(optarg, NULL, 0); break;
		case 'j': nthreads = atoi(optarg); break;
		case 'n': maxops = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	if (nthreads < 0 || nthreads > 8 || !secs)
		usage();
	if (!have_seed) {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((uint64_t)ts.tv_sec * NSEC + ts.tv_nsec) ^
		       ((uint64_t)getpid() << 32);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("fuzz: seed %llu\n", (unsigned long long)seed);
	R.s = seed;
	pg = sysconf(_SC_PAGESIZE);

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* The whole run, cleanup and settling included, or the watchdog. */
	alarm(secs + 30);

	setup_bufs();
	setup_net();
	if (pool_read_key("channels_live", &live)) {
		printf("FAIL FUZZ: /proc/net/vjchan_pool missing (vjchan.ko not loaded?)\n");
		return 1;
	}
	why = vjchan_settled(5000);
	if (why) {
		printf("FAIL FUZZ: seed %llu: not settled before the start: %s\n",
		       (unsigned long long)seed, why);
		return 1;
	}
	if (injfd < 0)
		printf("fuzz: no %s: driver API not fuzzed\n", VJT_INJECT);
	t_start = now_ns();
	end = t_start + (uint64_t)secs * NSEC;

	for (i = 0; i < nthreads; i++)
		pthread_create(&th[nth++], NULL, scribbler,
			       (void *)(uintptr_t)i);
	if (nthreads) {
		pthread_create(&th[nth++], NULL, sender, NULL);
		if (thr_injfd >= 0)
			pthread_create(&th[nth++], NULL, injector, NULL);
	}

	while (!failed && now_ns() < end && (!maxops || opno < maxops)) {
		opno++;
		run_op(choose_op());
	}

	atomic_store(&stop_threads, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	cleanup();
	why = vjchan_settled(5000);
	if (why && !failed) {
		snprintf(failmsg, sizeof(failmsg),
			 "seed %llu: after closing everything: %s",
			 (unsigned long long)seed, why);
		failed = true;
	}
	report();
	if (failed) {
		printf("FAIL FUZZ: %s\n", failmsg);
		return 1;
	}
	printf("ok FUZZ\n");
	return 0;
}
