// SPDX-License-Identifier: GPL-2.0
/*
 * vj_scribble: a hostile owner of a direct channel, for tests/vjnet.sh.
 *
 *   vj_scribble IFINDEX DPORT SECONDS READY_FILE STOP_FILE [FRAMES]
 *
 * First the mapping rules of a direct channel (vjchan(7), "Direct
 * receive"): a ring mapped whole and writable before bind() cannot be
 * bound direct (EBUSY); one mapped in two parts, the buffers read-only,
 * can.  Once bound, every way to get write access to the buffers fails: a
 * mapping with PROT_WRITE (EACCES), mprotect() (EACCES), a store (SIGSEGV),
 * /proc/self/mem (FOLL_FORCE), process_vm_writev(), read() into them, a
 * forked child's store, a store through a mapping moved with mremap().
 *
 * Then it binds that direct bypass channel for udp4 DPORT on IFINDEX,
 * creates READY_FILE and for SECONDS, and until the device has written
 * FRAMES frames into the channel (at most 120 s), writes random values into
 * the consumer index and the descriptors, and tries to write random bytes
 * anywhere in the buffers (the ones posted to the device too), now and then
 * handing slots back properly so that the device keeps getting buffers.
 * (With FRAMES the scribbling overlaps the channel's traffic however slowly
 * the sender starts.)  After
 * that it only hands slots back, until STOP_FILE exists (at most 120 s):
 * the caller creates it once its traffic has stopped, so that the counters
 * read next are final.
 *
 * Prints the channel's counters, "rx_packets N", "rx_driver N",
 * "rx_direct N", "rx_ring_full N", "rx_invalid_cons N", then
 * "buf_writes N" (stores into the buffers that did not fault) and one
 * "bad: WHY" line per rule broken; exits 0, or 1 if it could not run.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/vjchan.h>

#include "lib/ring.h"
#include "lib/util.h"

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t faults;

static void on_fault(int sig)
{
	(void)sig;
	faults++;
	siglongjmp(fault_jmp, 1);
}

static int die(const char *what, const char *why)
{
	fprintf(stderr, "vj_scribble: %s: %s\n", what, why);
	return 1;
}

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;

	printf("bad: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Store @n bytes of @v at @p; true if it did not fault. */
static bool try_store(uint8_t *p, int v, size_t n)
{
	if (sigsetjmp(fault_jmp, 1))
		return false;
	memset(p, v, n);
	return true;
}

/* A result that must be -1 with errno @want. */
static void expect_err(long r, int want, const char *what)
{
	if (r != -1)
		bad("%s succeeded, want %s", what, errname(want));
	else if (errno != want)
		bad("%s: %s, want %s", what, errname(errno), errname(want));
}

static int chan_socket(void)
{
	return socket(AF_VJCHAN, SOCK_DGRAM, 0);
}

static void flow_init(struct vj_flow *flow, const char *ifindex,
		      const char *dport)
{
	memset(flow, 0, sizeof(*flow));
	flow->family = AF_INET;
	flow->proto = IPPROTO_UDP;
	flow->dport = htons(atoi(dport));
	flow->ifindex = atoi(ifindex);
}

/* Mapped whole and writable before bind(): the bind must fail, EBUSY. */
static void map_then_bind_whole(const struct vj_flow *flow)
{
	struct test_chan c;
	const char *why;
	int fd = chan_socket();

	if (fd < 0) {
		bad("socket: %s", errname(errno));
		return;
	}
	chan_init(&c, fd);
	why = ring_map_whole(&c, PROT_READ | PROT_WRITE);
	if (why)
		bad("whole mapping before bind: %s", why);
	else
		expect_err(test_bind(fd, flow), EBUSY,
			   "bind direct of a ring mapped writable");
	ring_unmap(&c);
	close(fd);	/* gives the queue back if the bind was wrongly let by */
}

/* Every way to write the buffers of @c (bound direct) must fail. */
static void check_buffers_readonly(struct test_chan *c)
{
	const struct vj_mmap_offsets *o = &c->off;
	size_t blen = o->size - o->bufs;
	uint8_t junk[16], *p, *q;
	struct iovec lv = { junk, sizeof(junk) }, rv = { c->bufs, sizeof(junk) };
	int fd, st;
	long r;
	pid_t pid;

	memset(junk, 0xa5, sizeof(junk));
	p = mmap(NULL, o->size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	expect_err(p == MAP_FAILED ? -1 : 0, EACCES,
		   "mmap of the whole area with PROT_WRITE");
	if (p != MAP_FAILED)
		munmap(p, o->size);
	p = mmap(NULL, blen, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
		 (off_t)o->bufs);
	expect_err(p == MAP_FAILED ? -1 : 0, EACCES,
		   "mmap of the buffers with PROT_WRITE");
	if (p != MAP_FAILED)
		munmap(p, blen);
	p = mmap(NULL, o->size, PROT_READ, MAP_SHARED, c->fd, 0);
	if (p == MAP_FAILED) {
		bad("read-only mmap of the whole area: %s", errname(errno));
	} else {
		expect_err(mprotect(p, o->size, PROT_READ | PROT_WRITE), EACCES,
			   "mprotect(PROT_WRITE) of a read-only whole mapping");
		munmap(p, o->size);
	}

	expect_err(mprotect(c->bufs, blen, PROT_READ | PROT_WRITE), EACCES,
		   "mprotect(PROT_WRITE) of the buffers");
	if (try_store(c->bufs + o->buf_size / 2, 0x5a, 1))
		bad("a store into a buffer did not fault");
	fd = open("/proc/self/mem", O_RDWR);
	if (fd < 0) {
		bad("open /proc/self/mem: %s", errname(errno));
	} else {
		if (pwrite(fd, junk, sizeof(junk), (off_t)(uintptr_t)c->bufs) >= 0)
			bad("/proc/self/mem wrote into a buffer");
		close(fd);
	}
	/* ENOSYS: a kernel without CONFIG_CROSS_MEMORY_ATTACH. */
	r = process_vm_writev(getpid(), &lv, 1, &rv, 1, 0);
	if (r != -1 || errno != ENOSYS)
		expect_err(r, EFAULT, "process_vm_writev into a buffer");
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		bad("open /dev/zero: %s", errname(errno));
	} else {
		expect_err(read(fd, c->bufs, 16), EFAULT,
			   "read() into a buffer");
		close(fd);
	}

	pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		if (!mprotect(c->bufs, blen, PROT_READ | PROT_WRITE))
			_exit(2);
		*(volatile uint8_t *)c->bufs = 1;
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		bad("fork: %s", errname(errno));
	else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
		bad("a forked child %s", WIFEXITED(st) && WEXITSTATUS(st) == 2 ?
		    "made the buffers writable" : "wrote into a buffer");

	/* A second read-only mapping of the buffers, moved elsewhere. */
	p = mmap(NULL, blen, PROT_READ, MAP_SHARED, c->fd, (off_t)o->bufs);
	if (p == MAP_FAILED) {
		bad("read-only mmap of the buffers: %s", errname(errno));
		return;
	}
	q = mremap(p, blen, blen, MREMAP_MAYMOVE);
	if (q == MAP_FAILED) {
		bad("mremap: %s", errname(errno));
		munmap(p, blen);
		return;
	}
	if (try_store(q, 0x5a, 1))
		bad("a store through a moved mapping did not fault");
	expect_err(mprotect(q, blen, PROT_READ | PROT_WRITE), EACCES,
		   "mprotect(PROT_WRITE) of a moved mapping");
	munmap(q, blen);
}

int main(int argc, char **argv)
{
	struct rng rng = { .s = (uint64_t)getpid() };
	struct sigaction sa = { .sa_handler = on_fault };
	unsigned long n = 0, buf_writes = 0;
	struct vj_statistics st;
	struct vj_flow flow;
	struct test_chan c;
	const char *why;
	socklen_t len;
	uint64_t end, cap;
	uint32_t frames = 0;
	int fd, e;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: vj_scribble IFINDEX DPORT SECONDS READY_FILE STOP_FILE [FRAMES]\n");
		return 2;
	}
	if (argc == 7)
		frames = (uint32_t)strtoul(argv[6], NULL, 10);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		return die("sigaction", errname(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	flow_init(&flow, argv[1], argv[2]);
	test_bind_flags = VJ_BIND_FW_BYPASS | VJ_BIND_F_DIRECT;

	map_then_bind_whole(&flow);

	/* Mapped in two parts, the buffers read-only, before bind(). */
	fd = chan_socket();
	if (fd < 0)
		return die("socket", errname(errno));
	chan_init(&c, fd);
	why = ring_map_parts(&c, PROT_READ);
	if (why)
		bad("mapping in parts before bind: %s", why);
	if (test_bind(fd, &flow))
		return die("bind", errname(errno));
	if (why) {
		/* Go on with what this kernel allows, to test the rest. */
		why = ring_map_whole(&c, PROT_READ | PROT_WRITE);
		if (why)
			return die("map", why);
	}
	check_buffers_readonly(&c);
	if (close(open(argv[4], O_CREAT | O_WRONLY, 0644)))
		return die(argv[4], errname(errno));

	end = now_ns() + (uint64_t)atoi(argv[3]) * NSEC;
	cap = now_ns() + 120 * NSEC;
	/* The producer index counts the frames published since the bind. */
	while (now_ns() < cap &&
	       (now_ns() < end || chan_producer(&c) < frames)) {
		uint32_t i = below(&rng, c.off.entries);
		uint8_t *buf = c.bufs + (size_t)i * c.off.buf_size;

		switch (below(&rng, 4)) {
		case 0:		/* any consumer index at all */
			chan_set_consumer(&c, (uint32_t)rnd64(&rng));
			break;
		case 1:		/* a descriptor */
			memset(&c.desc[i], (int)rnd64(&rng), sizeof(c.desc[i]));
			break;
		case 2:		/* any bytes of a buffer, posted or not */
			buf_writes += try_store(buf + below(&rng, c.off.buf_size - 64),
						(int)rnd64(&rng), 64);
			break;
		default:	/* hand everything back, properly */
			chan_set_consumer(&c, chan_producer(&c));
			break;
		}
		/* Room for the traffic's senders and receivers on a slow guest. */
		if (!(++n % 16))
			usleep(1000);
	}
	end = now_ns() + 120 * NSEC;
	do {
		chan_set_consumer(&c, chan_producer(&c));
		usleep(1000);
	} while (access(argv[5], F_OK) && now_ns() < end);
	chan_set_consumer(&c, chan_producer(&c));
	e = test_getopt(fd, VJ_STATISTICS, &st, sizeof(st), &len);
	if (e)
		return die("VJ_STATISTICS", errname(-e));
	printf("rx_packets %llu\nrx_driver %llu\nrx_direct %llu\n"
	       "rx_ring_full %llu\nrx_invalid_cons %llu\nbuf_writes %lu\n",
	       (unsigned long long)st.rx_packets,
	       (unsigned long long)st.rx_driver,
	       (unsigned long long)st.rx_direct,
	       (unsigned long long)st.rx_ring_full,
	       (unsigned long long)st.rx_invalid_cons, buf_writes);
	if (buf_writes)
		bad("%lu stores into buffers did not fault", buf_writes);
	return 0;
}
