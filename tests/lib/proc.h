/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: what the module and the stack say in /proc.
 *
 * Keys and values are read with libvjchan's vj_keyval_*(), the one parser
 * of such text in the project; nothing else is taken from libvjchan.
 * Functions return 0 or -errno (-ENOENT: no such key, -EBADMSG: the file
 * is not in the documented format) unless said otherwise.
 */
#ifndef _VJ_TL_PROC_H
#define _VJ_TL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROC_POOL	"/proc/net/vjchan_pool"
#define PROC_CHANS	"/proc/net/vjchan"

/* Reads a whole (small) file, NUL-terminated: its length or -errno. */
int text_read(const char *path, char *buf, size_t size);
/* The integer value of key in a file of keys and values. */
int kv_file_get(const char *path, const char *key, long long *val);

/* /proc/net/vjchan_pool, every line in the order of the kernel's file. */
enum pool_key {
	P_BUFFERS, P_FREE, P_EMPTY, P_DRX, P_DCLAIMED, P_DDROPPED, P_DBAD,
	P_DEFRX, P_DEFSTACK, P_DEFNOMEM, P_HCLAIMED, P_HDROPPED, P_CREATED,
	P_DESTROYED, P_PINNED, P_LIVE, P_NR
};
extern const char *const pool_keys[P_NR];

int pool_read_key(const char *key, long long *val);
/* Every key of enum pool_key, from one read of the file. */
int pool_read(long long v[P_NR]);

/* A line of /proc/net/vjchan. */
struct proc_chan {
	unsigned long ino;
	char family[16];
	char proto[16];
	char saddr[64];
	char sport[16];
	char daddr[64];
	char dport[16];
	char ifindex[16];
	unsigned int entries;
	unsigned int buf_size;
	unsigned long long rx_packets, rx_bytes, rx_ring_full;
	unsigned long long rx_invalid_cons, rx_truncated, rx_driver;
};

/*
 * Calls fn(line, arg) for each channel line of /proc/net/vjchan after
 * checking the header; stops early if fn returns nonzero.  fn may be NULL.
 * Returns the number of lines visited, -errno, or -EBADMSG without the
 * header line.
 */
int proc_chan_each(int (*fn)(char *line, void *arg), void *arg);
/* Parses a channel line: 0, or -EBADMSG if it has not every column. */
int proc_chan_parse(const char *line, struct proc_chan *pc);

/*
 * The module is at rest: no channel alive or listed, every pool buffer
 * free, no byte pinned; waits up to ms for it.  NULL, or what is not.
 */
const char *vjchan_settled(int ms);

/* A field of the "Udp:" table of /proc/net/snmp; -1 if unreadable. */
long long udp_snmp(const char *field);

#endif /* _VJ_TL_PROC_H */
