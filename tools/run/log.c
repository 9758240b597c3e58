// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Messages of libvjchan-run.so on standard error: one line each, written
 * with one write() so that lines of several processes do not mix, and
 * without stdio, whose buffers and locks belong to the program.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "run.h"

void vj_run_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, saved = errno;

	n = snprintf(line, sizeof(line), "vjchan-run[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		(void)0;	/* nowhere to report it */
	errno = saved;
}

/* "192.0.2.1:53" or "[2001:db8::1]:53" of an AF_INET or AF_INET6 address. */
const char *vj_run_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		snprintf(buf, len, "(family %u)", sa->sa_family);
	}
	return buf;
}
