/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: vjtest, the test driver of the driver API
 * (kernel/vjtest/vjtest.c).  Its debugfs inject file takes lines of KEY=VALUE
 * words; each line makes count frames and hands them to vj_netif_rx() or
 * vj_netif_rx_batch() on vjtest0.
 */
#ifndef _VJ_TL_VJTEST_H
#define _VJ_TL_VJTEST_H

#include <stddef.h>
#include <stdint.h>

#define VJT_INJECT	"/sys/kernel/debug/vjtest/inject"
#define VJT_STATS	"/sys/kernel/debug/vjtest/stats"

/* tests/run-guest.sh gives vjtest0 these; frames come from the peer. */
#define VJT_LOCAL4	"198.51.100.1"
#define VJT_PEER4	"198.51.100.2"
#define VJT_LOCAL6	"2001:db8:100::1"
#define VJT_PEER6	"2001:db8:100::2"

/* One line of the inject file; 0 leaves vjtest's default. */
struct vjt_req {
	uint32_t count, batch, len, seq;
	uint16_t sport, dport;
	const char *saddr, *daddr;	/* NULL: vjtest's default */
	/* Checksum offload as a device reports it (enum vj_rx_csum_state) */
	uint32_t offload;
	/* Its start and offset + 1 (0: vjtest's, the UDP checksum field) */
	uint32_t cstart1, coff1;
};

/* NULL if vjtest0 exists and the inject file is writable, or why not. */
const char *vjt_present(void);
/* vjt_present(), and vjtest0 up with VJT_LOCAL4. */
const char *vjt_ready(void);
int vjt_open(void);			/* the inject file: fd or -errno */
/* The line for r, newline included: its length. */
int vjt_format(const struct vjt_req *r, char *line, size_t size);
/* Writes one line: the bytes written or -errno (ENOBUFS: pool dry). */
long vjt_write(int fd, const char *line, size_t len);
/* A counter of the stats file ("injected", "no_buffer"). */
int vjt_stat_read(const char *key, long long *val);

#endif /* _VJ_TL_VJTEST_H */
