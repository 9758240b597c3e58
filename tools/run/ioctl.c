// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Interface queries on a channel: the interposed ioctl().
 *
 * A UDP channel socket answers FIONREAD (SIOCINQ) itself and passes other
 * requests to its port holder, but programs ask their UDP socket about
 * network interfaces, which a channel may refuse: dnsmasq turns the arrival
 * interface index of IP_PKTINFO into a name with SIOCGIFNAME on the socket
 * the query came in on.  Such a request depends only on the socket's
 * network namespace, so when a channel refuses one of the requests below
 * it is asked again of a new UDP socket of the same address family, made
 * in the calling thread's namespace.  Every other request, and every
 * request on any other descriptor, is the C library's ioctl() alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "run.h"

static const unsigned long if_queries[] = {
	SIOCGIFNAME, SIOCGIFINDEX, SIOCGIFCONF, SIOCGIFFLAGS, SIOCGIFADDR,
	SIOCGIFDSTADDR, SIOCGIFBRDADDR, SIOCGIFNETMASK, SIOCGIFMTU,
	SIOCGIFHWADDR, SIOCGIFMETRIC, SIOCGIFTXQLEN, SIOCGIFMAP,
};

static bool if_query(unsigned long req)
{
	size_t i;

	for (i = 0; i < sizeof(if_queries) / sizeof(if_queries[0]); i++)
		if (if_queries[i] == req)
			return true;
	return false;
}

/* The IP family of a channel socket, or 0 if fd is none. */
static int channel_family(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(int);
	int domain;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 ||
	    domain != AF_VJCHAN)
		return 0;
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	return ss.ss_family == AF_INET6 ? AF_INET6 : AF_INET;
}

int vj_run_ioctl(int fd, unsigned long req, void *arg)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	int r, family, s, saved;

	if (!real_ioctl)
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	r = real_ioctl ? real_ioctl(fd, req, arg) :
			 syscall(SYS_ioctl, fd, req, arg);
	if (r >= 0 || errno != EOPNOTSUPP || !if_query(req))
		return r;
	saved = errno;
	family = channel_family(fd);
	if (!family) {
		errno = saved;
		return r;
	}
	s = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	r = syscall(SYS_ioctl, s, req, arg);
	saved = errno;
	close(s);
	errno = saved;
	return r;
}

__attribute__((visibility("default")))
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	return vj_run_ioctl(fd, req, arg);
}
