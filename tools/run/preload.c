// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libvjchan-run.so: the interposed bind() and which sockets it replaces.
 *
 * bind(fd, addr, len) replaces fd by a UDP channel (replace.c) when all of
 * these hold, and otherwise is the C library's bind():
 *   - fd is an AF_INET or AF_INET6 socket of type SOCK_DGRAM and protocol
 *     IPPROTO_UDP (not UDP-Lite, not ICMP "ping" sockets);
 *   - addr is of the socket's family and long enough (else the kernel
 *     gives its error);
 *   - its port is selected (VJCHAN_RUN_PORTS; port 0 only if listed or if
 *     no list was given);
 *   - fd is not bound yet (a second bind() fails with EINVAL as on UDP);
 *   - for AF_INET6: the address is not IPv4-mapped, and unless
 *     IPV6_V6ONLY is on, not the wildcard "::": such a socket receives
 *     IPv4 too, which an IPv6 UDP channel never does, so it is left an
 *     ordinary socket and that is reported on standard error.
 * Only bind() is interposed: sockets the kernel binds implicitly (sendto()
 * or connect() on an unbound socket) stay ordinary UDP sockets, and so do
 * binds the C library makes internally.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run.h"

static struct vj_run_config cfg;
static int (*real_bind)(int, const struct sockaddr *, socklen_t);

static int sys_bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return syscall(SYS_bind, fd, addr, len);
}

__attribute__((constructor)) static void vj_run_init(void)
{
	real_bind = dlsym(RTLD_NEXT, "bind");
	if (!real_bind)
		real_bind = sys_bind;
	/* An invalid configuration is reported by each bind() it fails. */
	vj_run_config_load(&cfg);
}

static int sockopt_int(int fd, int level, int name, int *v)
{
	socklen_t len = sizeof(*v);

	return getsockopt(fd, level, name, v, &len);
}

/* The port fd is bound to, 0 if none (or if that cannot be told). */
static unsigned int bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

/*
 * Whether a dual-stack or IPv4-mapped socket must stay ordinary; logs why.
 */
static bool keep_ipv6(int fd, const struct sockaddr_in6 *s6)
{
	char a[64];
	int v6only = 0;

	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		vj_run_log("fd %d: %s is IPv4-mapped: left an ordinary UDP socket",
			   fd, vj_run_addr_str((const void *)s6, a, sizeof(a)));
		return true;
	}
	if (!IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr))
		return false;
	if (sockopt_int(fd, SOL_IPV6, IPV6_V6ONLY, &v6only) < 0 || v6only)
		return false;
	vj_run_log("fd %d: %s with IPV6_V6ONLY off also receives IPv4, which UDP channels do not: left an ordinary UDP socket",
		   fd, vj_run_addr_str((const void *)s6, a, sizeof(a)));
	return true;
}

__attribute__((visibility("default")))
int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	int family, type, proto, r;
	unsigned int port;
	char a[64];

	if (!real_bind)
		real_bind = sys_bind;
	if (!addr || len < sizeof(sa_family_t) ||
	    sockopt_int(fd, SOL_SOCKET, SO_DOMAIN, &family) < 0 ||
	    (family != AF_INET && family != AF_INET6) ||
	    sockopt_int(fd, SOL_SOCKET, SO_TYPE, &type) < 0 ||
	    type != SOCK_DGRAM ||
	    sockopt_int(fd, SOL_SOCKET, SO_PROTOCOL, &proto) < 0 ||
	    proto != IPPROTO_UDP)
		return real_bind(fd, addr, len);

	if (cfg.error[0]) {
		vj_run_log("fd %d: %s; bind() of a UDP socket fails with EINVAL",
			   fd, cfg.error);
		errno = EINVAL;
		return -1;
	}
	if (addr->sa_family != family ||
	    len < (family == AF_INET ? sizeof(struct sockaddr_in) :
				       offsetof(struct sockaddr_in6, sin6_scope_id)))
		return real_bind(fd, addr, len);

	port = ntohs(family == AF_INET ?
		     ((const struct sockaddr_in *)addr)->sin_port :
		     ((const struct sockaddr_in6 *)addr)->sin6_port);
	if (!vj_run_port_selected(&cfg.ports, port)) {
		if (cfg.verbose)
			vj_run_log("fd %d: %s: port not selected, an ordinary UDP socket",
				   fd, vj_run_addr_str(addr, a, sizeof(a)));
		return real_bind(fd, addr, len);
	}
	if (bound_port(fd))
		return real_bind(fd, addr, len);
	if (family == AF_INET6 && keep_ipv6(fd, (const void *)addr))
		return real_bind(fd, addr, len);

	r = vj_run_replace(&cfg, fd, family, addr, len, real_bind);
	if (r == 1) {
		if (!cfg.fallback)
			return -1;
		return real_bind(fd, addr, len);
	}
	return r;
}
