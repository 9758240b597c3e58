// SPDX-License-Identifier: GPL-2.0
/*
 * vjchan_test: in-guest test suite for the PF_VJCHAN socket family.
 *
 *   vjchan_test            run every case
 *   vjchan_test -l         list the cases
 *   vjchan_test -t NAME    run one case (may be given several times)
 *
 * Prints one line per case: "ok NAME", "FAIL NAME: reason" or
 * "skip NAME: reason".  Exits 1 if any case failed.  Each case runs in a
 * forked child in its own process group, so a crash or a hang is one
 * failure; a case that does not end within its timeout is killed.
 * Must run as root in the initial network namespace, with vjchan.ko and
 * (for the driver cases) vjtest.ko loaded.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define DEFAULT_TIMEOUT	30

static const struct vj_case *const groups[] = {
	abi_cases,
	bind_cases,
	mmap_cases,
	match_cases,
	match2_cases,
	group_cases,
	ring_cases,
	driver_cases,
	hostile_cases,
	udp_cases,
	udp2_cases,
	udp3_cases,
	udp_deliver_cases,
	udp_group_cases,
	udp_large_cases,
	lifecycle_cases,
	firewall_cases,
	trust_cases,
};

#define MAX_CASES	256

static const struct vj_case *cases[MAX_CASES];
static int ncases;

static void collect(void)
{
	const struct vj_case *c;
	size_t g;

	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (c = groups[g]; c->name; c++) {
			if (ncases == MAX_CASES) {
				fprintf(stderr, "too many cases\n");
				exit(2);
			}
			cases[ncases++] = c;
		}
}

/* Reaps whatever the case left behind (we are the subreaper). */
static void reap_orphans(pid_t pgrp)
{
	uint64_t end = now_ns() + 3000000000ull;

	kill(-pgrp, SIGKILL);
	while (now_ns() < end) {
		pid_t p = waitpid(-1, NULL, WNOHANG);

		if (p < 0)
			return;		/* ECHILD: nothing left */
		if (!p)
			msleep(10);
	}
}

/* Marks the start of a case in the kernel log, to tie splats to cases. */
static void kmsg_mark(const char *name)
{
	char line[128];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(line, sizeof(line), "<6>vjchan_test: case %s\n", name);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		/* best effort: the mark only helps reading the log */
	}
	close(fd);
}

/* Returns 0 ok, 1 failed, 2 skipped. */
static int run_case(int idx)
{
	const struct vj_case *c = cases[idx];
	unsigned int tmo = c->timeout ? c->timeout : DEFAULT_TIMEOUT;
	uint64_t deadline;
	pid_t pid, r;
	int st = 0;

	vj_reason_clear();
	kmsg_mark(c->name);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("FAIL %s: fork: %s\n", c->name, errname(errno));
		return 1;
	}
	if (!pid) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_IGN);
		vj_case_index = idx;
		alarm(tmo);
		if (c->fn())
			fail("case returned an error");
		fflush(stdout);
		fflush(stderr);
		_exit(0);
	}
	setpgid(pid, pid);
	deadline = now_ns() + (tmo + 10) * 1000000000ull;
	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			printf("FAIL %s: waitpid: %s\n", c->name,
			       errname(errno));
			return 1;
		}
		if (now_ns() > deadline) {
			kill(-pid, SIGKILL);
			msleep(2000);
			if (waitpid(pid, &st, WNOHANG) == pid) {
				printf("FAIL %s: timeout after %us, killed "
				       "(at: %s)\n", c->name, tmo,
				       vj_step_text());
			} else {
				printf("FAIL %s: hung and unkillable after "
				       "%us (at: %s)\n", c->name, tmo,
				       vj_step_text());
			}
			fflush(stdout);
			return 1;
		}
		msleep(10);
	}
	reap_orphans(pid);

	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		printf("ok %s\n", c->name);
		fflush(stdout);
		return 0;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_SKIP) {
		printf("skip %s: %s\n", c->name, vj_reason_text());
		fflush(stdout);
		return 2;
	}
	if (WIFEXITED(st))
		printf("FAIL %s: %s\n", c->name, vj_reason_text()[0] ?
		       vj_reason_text() : "exited with an error");
	else if (WTERMSIG(st) == SIGALRM)
		printf("FAIL %s: timeout after %us (at: %s)\n", c->name, tmo,
		       vj_step_text()[0] ? vj_step_text() : "?");
	else
		printf("FAIL %s: killed by signal %d (%s) (at: %s)\n", c->name,
		       WTERMSIG(st), strsignal(WTERMSIG(st)),
		       vj_step_text()[0] ? vj_step_text() : "?");
	fflush(stdout);
	return 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: vjchan_test [-l] [-t NAME]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *only[MAX_CASES];
	int nonly = 0, list = 0, opt, i, j;
	int passed = 0, failed = 0, skipped = 0;

	while ((opt = getopt(argc, argv, "lt:h")) != -1) {
		switch (opt) {
		case 'l':
			list = 1;
			break;
		case 't':
			if (nonly < MAX_CASES)
				only[nonly++] = optarg;
			break;
		default:
			usage();
		}
	}
	collect();
	if (list) {
		for (i = 0; i < ncases; i++)
			printf("%s\n", cases[i]->name);
		return 0;
	}
	for (j = 0; j < nonly; j++) {
		for (i = 0; i < ncases; i++)
			if (!strcmp(cases[i]->name, only[j]))
				break;
		if (i == ncases) {
			fprintf(stderr, "no case named %s\n", only[j]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	vj_reason_setup();
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	for (i = 0; i < ncases; i++) {
		int rc;

		if (nonly) {
			for (j = 0; j < nonly; j++)
				if (!strcmp(cases[i]->name, only[j]))
					break;
			if (j == nonly)
				continue;
		}
		rc = run_case(i);
		if (rc == 0)
			passed++;
		else if (rc == 1)
			failed++;
		else
			skipped++;
	}
	fprintf(stderr, "# vjchan_test totals: ok %d, FAIL %d, skip %d\n",
		passed, failed, skipped);
	return failed ? 1 : 0;
}
