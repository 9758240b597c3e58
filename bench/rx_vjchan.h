/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vjrx: the vjchan channel receiver (rx_vjchan.c), which the XDP-fed
 * variant (rx_vjxdp.c) wraps.
 */
#ifndef VJ_BENCH_RX_VJCHAN_H
#define VJ_BENCH_RX_VJCHAN_H

#include "vjchan.h"
#include "rx.h"

/* Which path the packets must have taken (rx_mode.arg), checked in drops. */
enum {
	VJ_PATH_HOOK, VJ_PATH_DRIVER, VJ_PATH_FILTERED, VJ_PATH_XDP,
	VJ_PATH_SANCTIONED,	/* first packet filtered, the rest the hook */
	VJ_PATH_DIRECT,		/* zero copy: a vjnet queue owned by the channel */
	VJ_PATH_HOOK_CROWD,	/* the hook, VJ_CROWD other channels bound */
};

/* Channels bound beside the measured one in vjchan-hook-10k. */
#define VJ_CROWD	10000

struct vj_rx {
	struct vj_chan	ch;
	int		open;
	int		ruleset;	/* the sanctioning nft table is loaded */
	char		mark0[32];	/* sanction_mark before the cell */
	struct vj_chan	*crowd;		/* VJ_PATH_HOOK_CROWD's others */
	unsigned int	ncrowd;
};

int vjc_open(struct rx *rx);
int vjc_poll(struct rx *rx, int timeout_ms);
void vjc_drops(struct rx *rx);
void vjc_close(struct rx *rx);

#endif /* VJ_BENCH_RX_VJCHAN_H */
