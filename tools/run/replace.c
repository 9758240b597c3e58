// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Replacing a program's UDP socket by a bound UDP channel on the same
 * descriptor:
 *
 *   1. socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_UDP4 or _UDP6), non-blocking
 *      if the program's descriptor is (O_NONBLOCK);
 *   2. the firewall mode: setsockopt(SOL_VJCHAN, VJ_BIND_FLAGS), the
 *      ring's geometry (VJ_RING) and the spread rule of the program's
 *      reuseport groups (VJ_GROUP) if they were given;
 *   3. the options the program set (options.c);
 *   4. bind() with the program's address;
 *   5. dup3() onto the program's descriptor, with O_CLOEXEC if it had
 *      FD_CLOEXEC, which closes the original socket; the temporary
 *      descriptor is closed.
 *
 * Steps 1 to 3 failing means no channel can be made (the module is not
 * loaded, the mode needs a privilege, an option is refused): that is
 * reported on standard error and, with VJCHAN_RUN_FALLBACK=1, the program's
 * own socket is bound instead; otherwise bind() fails with that step's
 * errno.  Step 4 failing is bind()'s own failure (EADDRINUSE, EACCES,
 * EADDRNOTAVAIL, ...), returned as UDP would return it, never fallen back
 * on; the program's socket stays as it was, unbound.  Other descriptor
 * state is not carried over: O_ASYNC, F_SETOWN and file locks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

static const char *hint(int err)
{
	switch (err) {
	case EAFNOSUPPORT:
		return " (is the vjchan module loaded?)";
	case EPROTONOSUPPORT:
	case ESOCKTNOSUPPORT:
		return " (does the loaded vjchan module have UDP channels?)";
	case EPERM:
	case EACCES:
		return " (the bypass mode needs CAP_NET_ADMIN)";
	default:
		return "";
	}
}

/*
 * Returns 0 once fd is a bound channel; -1 with errno set if bind() failed
 * and the program is to see that; 1 with errno set if no channel could be
 * made (the caller may then bind the ordinary socket).
 */
int vj_run_replace(const struct vj_run_config *cfg, int fd, int family,
		   const struct sockaddr *addr, socklen_t len,
		   int (*real_bind)(int, const struct sockaddr *, socklen_t))
{
	int proto = family == AF_INET ? VJ_PROTO_UDP4 : VJ_PROTO_UDP6;
	int type = SOCK_DGRAM | SOCK_CLOEXEC;
	const char *step, *what = "";
	uint32_t mode = cfg->mode;
	char a[64];
	int fl, fdfl, ch, err;

	fl = fcntl(fd, F_GETFL);
	fdfl = fcntl(fd, F_GETFD);
	if (fl < 0 || fdfl < 0)
		return -1;
	if (fl & O_NONBLOCK)
		type |= SOCK_NONBLOCK;

	step = "create a UDP channel socket";
	ch = socket(AF_VJCHAN, type, proto);
	if (ch < 0)
		goto no_channel;
	step = "set the firewall mode";
	what = vj_run_mode_name(mode);
	if (setsockopt(ch, SOL_VJCHAN, VJ_BIND_FLAGS, &mode, sizeof(mode)) < 0)
		goto close_channel;
	if (cfg->entries || cfg->buf_size) {
		struct vj_ring_req req = {
			.entries = cfg->entries ?: VJ_RING_DEF_ENTRIES,
			.buf_size = cfg->buf_size ?: VJ_BUF_DEF_SIZE,
		};

		step = "set the ring";
		what = "";
		if (setsockopt(ch, SOL_VJCHAN, VJ_RING, &req, sizeof(req)) < 0)
			goto close_channel;
	}
	if (cfg->spread >= 0) {
		struct vj_group_req g = { .spread = cfg->spread };

		step = "set the spread rule";
		what = vj_run_spread_name(cfg->spread);
		if (setsockopt(ch, SOL_VJCHAN, VJ_GROUP, &g, sizeof(g)) < 0)
			goto close_channel;
	}
	step = "carry over";
	if (vj_run_copy_options(fd, ch, family, &what) < 0)
		goto close_channel;

	if (real_bind(ch, addr, len) < 0) {
		err = errno;
		if (cfg->verbose)
			vj_run_log("fd %d: bind(%s) of the UDP channel: %s",
				   fd, vj_run_addr_str(addr, a, sizeof(a)),
				   strerror(err));
		close(ch);
		errno = err;
		return -1;
	}
	if (dup3(ch, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
		err = errno;
		vj_run_log("fd %d: cannot put the UDP channel on it: %s",
			   fd, strerror(err));
		close(ch);
		errno = err;
		return -1;
	}
	close(ch);
	if (cfg->verbose)
		vj_run_log("fd %d: %s is a UDP channel (%s)", fd,
			   vj_run_addr_str(addr, a, sizeof(a)),
			   vj_run_mode_name(mode));
	return 0;

close_channel:
	err = errno;
	close(ch);
	errno = err;
no_channel:
	err = errno;
	vj_run_log("fd %d: bind(%s): cannot %s%s%s: %s%s%s", fd,
		   vj_run_addr_str(addr, a, sizeof(a)), step, *what ? " " : "",
		   what, strerror(err), hint(err),
		   cfg->fallback ? "; binding an ordinary UDP socket" : "");
	errno = err;
	return 1;
}
