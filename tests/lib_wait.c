// SPDX-License-Identifier: GPL-2.0
/*
 * lib_wait: libvjchan's vj_wait() against a ring that dies between two of
 * its loads.  The ring words live in this program's memory; the page
 * holding the producer index is kept PROT_NONE, and every load from it
 * is single-stepped (SIGSEGV opens the page and sets the trap flag,
 * SIGTRAP closes it again).  Right after the Nth load of the producer,
 * the "kernel" publishes its final index and then sets VJ_RING_F_DEAD,
 * exactly as vj_ring_set_dead() orders (B) before (E).  Whatever N is,
 * vj_wait() must hand out the queued descriptors before it reports
 * -ENODEV.
 *
 *   lib_wait       prints "ok LIB_WAIT_DEAD_ORDER" or "FAIL ...: why"
 *
 * x86-64 only (the trap flag); elsewhere it prints "skip".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../lib/vjchan.h"

#define NAME		"LIB_WAIT_DEAD_ORDER"
#define FINAL_PROD	5u
#define MAX_LOADS	4

static volatile __u32 *prod_page;	/* PROT_NONE except while stepping */
static volatile __u32 *flags_page;
static long page_size;
static volatile int loads, die_at;

#if defined(__x86_64__)
static void on_segv(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	if ((char *)si->si_addr < (char *)prod_page ||
	    (char *)si->si_addr >= (char *)prod_page + page_size) {
		signal(SIGSEGV, SIG_DFL);
		return;		/* a real fault: crash on return */
	}
	mprotect((void *)prod_page, page_size, PROT_READ | PROT_WRITE);
	uc->uc_mcontext.gregs[REG_EFL] |= 0x100;	/* TF */
}

/* The load of the producer index has just completed. */
static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100L;
	if (++loads == die_at) {
		/* The kernel's last publish (B), then DEAD (E). */
		__atomic_store_n(prod_page, FINAL_PROD, __ATOMIC_RELEASE);
		__atomic_store_n(flags_page, VJ_RING_F_DEAD, __ATOMIC_RELEASE);
	}
	mprotect((void *)prod_page, page_size, PROT_NONE);
}

/* One run with the ring dying right after producer load @n. */
static const char *run(int n)
{
	static char why[160];
	struct vj_chan ch;
	__u32 cons = 0;
	int r, calls;

	memset(&ch, 0, sizeof(ch));
	mprotect((void *)prod_page, page_size, PROT_READ | PROT_WRITE);
	*prod_page = 0;
	*flags_page = 0;
	mprotect((void *)prod_page, page_size, PROT_NONE);
	loads = 0;
	die_at = n;
	ch.fd = eventfd(0, EFD_CLOEXEC);	/* never readable */
	if (ch.fd < 0)
		return "eventfd failed";
	ch.entries = 8;
	ch.mask = 7;
	ch.producer = (__u32 *)prod_page;
	ch.flags = (__u32 *)flags_page;
	ch.consumer = &cons;

	for (calls = 0; calls < 2 * MAX_LOADS; calls++) {
		r = vj_wait(&ch, 0);
		if (r == -ENODEV) {
			snprintf(why, sizeof(why),
				 "dying after producer load %d: -ENODEV with "
				 "%u descriptors still in the ring", n,
				 FINAL_PROD);
			close(ch.fd);
			return why;
		}
		if (r < 0) {
			snprintf(why, sizeof(why), "vj_wait: %s", strerror(-r));
			close(ch.fd);
			return why;
		}
		if (r > 0)
			break;
	}
	close(ch.fd);
	if (r != (int)FINAL_PROD) {
		snprintf(why, sizeof(why), "dying after producer load %d: "
			 "vj_wait returned %d, want %u", n, r, FINAL_PROD);
		return why;
	}
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	const char *why;
	void *p;
	int n;

	page_size = sysconf(_SC_PAGESIZE);
	p = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("FAIL " NAME ": mmap: %s\n", strerror(errno));
		return 1;
	}
	prod_page = p;
	flags_page = (__u32 *)((char *)p + page_size);
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_SIGINFO;
	sa.sa_sigaction = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	sa.sa_sigaction = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	alarm(20);

	for (n = 1; n <= MAX_LOADS; n++) {
		why = run(n);
		if (why) {
			printf("FAIL " NAME ": %s\n", why);
			return 1;
		}
	}
	printf("ok " NAME "\n");
	return 0;
}
#else
int main(void)
{
	printf("skip " NAME ": needs the x86-64 trap flag\n");
	return 0;
}
#endif
