// SPDX-License-Identifier: GPL-2.0
/*
 * Shared test library: /proc/net/vjchan, /proc/net/vjchan_pool and the
 * stack's counters.  The only file of the library that uses libvjchan:
 * for vj_keyval_*(), and through this header alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vjchan.h"
#include "proc.h"
#include "util.h"

const char *const pool_keys[P_NR] = {
	"pool_buffers", "pool_free", "pool_empty", "driver_rx",
	"driver_claimed", "driver_dropped", "driver_bad", "default_rx",
	"default_to_stack", "default_nomem", "hook_claimed", "hook_dropped",
	"channels_created", "channels_destroyed", "bytes_pinned",
	"channels_live",
};

int text_read(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (n < size - 1) {
		r = read(fd, buf + n, size - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

int kv_file_get(const char *path, const char *key, long long *val)
{
	char buf[4096];
	int r = text_read(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	return vj_keyval_int(buf, key, val);
}

int pool_read_key(const char *key, long long *val)
{
	return kv_file_get(PROC_POOL, key, val);
}

int pool_read(long long v[P_NR])
{
	char buf[4096];
	int r = text_read(PROC_POOL, buf, sizeof(buf)), i;

	if (r < 0)
		return r;
	for (i = 0; i < P_NR; i++) {
		r = vj_keyval_int(buf, pool_keys[i], &v[i]);
		if (r)
			return r;
	}
	return 0;
}

int proc_chan_each(int (*fn)(char *line, void *arg), void *arg)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(PROC_CHANS, "re");

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "inode ", 6)) {
		fclose(f);
		return -EBADMSG;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (fn && fn(line, arg))
			break;
	}
	fclose(f);
	return n;
}

int proc_chan_parse(const char *line, struct proc_chan *pc)
{
	memset(pc, 0, sizeof(*pc));
	if (sscanf(line, "%lu %15s %15s %63s %15s %63s %15s %15s %u %u "
		   "%llu %llu %llu %llu %llu %llu", &pc->ino, pc->family,
		   pc->proto, pc->saddr, pc->sport, pc->daddr, pc->dport,
		   pc->ifindex, &pc->entries, &pc->buf_size, &pc->rx_packets,
		   &pc->rx_bytes, &pc->rx_ring_full, &pc->rx_invalid_cons,
		   &pc->rx_truncated, &pc->rx_driver) != 16)
		return -EBADMSG;
	return 0;
}

const char *vjchan_settled(int ms)
{
	static __thread char why[200];
	uint64_t end = now_ns() + (uint64_t)ms * MSEC;
	long long v[P_NR];
	int lines, r;

	for (;;) {
		lines = proc_chan_each(NULL, NULL);
		r = pool_read(v);
		if (r) {
			snprintf(why, sizeof(why), "%s: %s", PROC_POOL,
				 errname(-r));
			return why;
		}
		if (!v[P_LIVE] && v[P_FREE] == v[P_BUFFERS] && !v[P_PINNED] &&
		    !lines)
			return NULL;
		if (now_ns() > end)
			break;
		msleep(20);
	}
	snprintf(why, sizeof(why),
		 "channels_live %lld, pool_free %lld of %lld, bytes_pinned %lld, %d channels listed",
		 v[P_LIVE], v[P_FREE], v[P_BUFFERS], v[P_PINNED], lines);
	return why;
}

long long udp_snmp(const char *field)
{
	char buf[8192], name[64];
	long long v;

	snprintf(name, sizeof(name), "Udp:%s", field);
	if (text_read("/proc/net/snmp", buf, sizeof(buf)) < 0 ||
	    vj_keyval_int(buf, name, &v))
		return -1;
	return v;
}
