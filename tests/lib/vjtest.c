// SPDX-License-Identifier: GPL-2.0
/*
 * Shared test library: the vjtest driver.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"
#include "vjtest.h"

const char *vjt_present(void)
{
	if (!if_nametoindex("vjtest0"))
		return "vjtest0 not present (vjtest.ko not loaded)";
	if (access(VJT_INJECT, W_OK))
		return "no " VJT_INJECT;
	return NULL;
}

const char *vjt_ready(void)
{
	static __thread char why[96];
	const char *bad = vjt_present();
	struct ifaddrs *ifa, *i;
	bool up = false, addr = false;
	struct in_addr local;

	if (bad)
		return bad;
	if (getifaddrs(&ifa)) {
		snprintf(why, sizeof(why), "getifaddrs: %s", errname(errno));
		return why;
	}
	inet_pton(AF_INET, VJT_LOCAL4, &local);
	for (i = ifa; i; i = i->ifa_next) {
		if (strcmp(i->ifa_name, "vjtest0"))
			continue;
		up |= i->ifa_flags & IFF_UP;
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
		    local.s_addr)
			addr = true;
	}
	freeifaddrs(ifa);
	if (!up || !addr)
		return "vjtest0 is not up with " VJT_LOCAL4 "/24";
	return NULL;
}

int vjt_open(void)
{
	int fd = open(VJT_INJECT, O_WRONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int vjt_format(const struct vjt_req *r, char *line, size_t size)
{
	size_t n = 0;

#define ADD(...) do {							\
	int __l = snprintf(line + n, n < size ? size - n : 0, __VA_ARGS__); \
	n += __l > 0 ? __l : 0;						\
} while (0)
	if (r->count)
		ADD("count=%u ", r->count);
	if (r->batch)
		ADD("batch=%u ", r->batch);
	ADD("len=%u seq=%u ", r->len, r->seq);
	if (r->sport)
		ADD("sport=%u ", r->sport);
	if (r->dport)
		ADD("dport=%u ", r->dport);
	if (r->saddr)
		ADD("saddr=%s ", r->saddr);
	if (r->daddr)
		ADD("daddr=%s ", r->daddr);
	if (r->offload)
		ADD("offload=%u ", r->offload);
	if (r->cstart1)
		ADD("cstart=%u ", r->cstart1 - 1);
	if (r->coff1)
		ADD("coff=%u ", r->coff1 - 1);
#undef ADD
	if (n && n <= size)
		line[n - 1] = '\n';
	return n;
}

long vjt_write(int fd, const char *line, size_t len)
{
	ssize_t n = write(fd, line, len);

	return n < 0 ? -errno : n;
}

int vjt_stat_read(const char *key, long long *val)
{
	return kv_file_get(VJT_STATS, key, val);
}
