// SPDX-License-Identifier: GPL-2.0
/*
 * vjrx: receive through a vjchan channel, with libvjchan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "vjchan.h"
#include "rx.h"
#include "rx_vjchan.h"

/* ---- vjchan-*: a vjchan channel through libvjchan ------------------------ */

#define SANCTION_MARK_PARAM	"/sys/module/vjchan/parameters/sanction_mark"
#define SANCTION_MARK		0x10000

static int read_param(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	return ok ? 0 : -EIO;
}

static int write_param(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int e = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		e = -EIO;
	if (fclose(f))
		e = -errno;
	return e;
}

/*
 * vjchan-sanctioned: the administrator's ruleset marks the bench flow's
 * conntrack entry at input, vjchan's sanction_mark names that mark, so the
 * flow's first packet is delivered by the filtered path and the rest by the
 * pre-routing hook.  The table exists only for this cell: a ct expression
 * loads conntrack into the namespace, which the other rows must not pay.
 */
static int sanction_setup(struct rx *rx, struct vj_rx *v)
{
	char mark[32], cmd[512];
	int e;

	e = read_param(SANCTION_MARK_PARAM, v->mark0, sizeof(v->mark0));
	if (e) {
		set_why(rx, "%s: %s", SANCTION_MARK_PARAM, strerror(-e));
		return e;
	}
	snprintf(mark, sizeof(mark), "%u\n", SANCTION_MARK);
	e = write_param(SANCTION_MARK_PARAM, mark);
	if (e) {
		set_why(rx, "writing %s: %s", SANCTION_MARK_PARAM, strerror(-e));
		return e;
	}
	v->ruleset = 1;
	snprintf(cmd, sizeof(cmd),
		 "nft delete table inet vjbench 2>/dev/null; nft -f - <<'NFT'\n"
		 "table inet vjbench {\n"
		 "  chain input {\n"
		 "    type filter hook input priority 0; policy accept;\n"
		 "    udp dport %d ct mark set ct mark or %#x\n"
		 "  }\n"
		 "}\n"
		 "NFT\n", BENCH_DPORT, SANCTION_MARK);
	if (system(cmd)) {
		set_why(rx, "nft could not load the sanctioning rule");
		return -EIO;
	}
	return 0;
}

static void sanction_teardown(struct vj_rx *v)
{
	if (!v->ruleset)
		return;
	if (system("nft delete table inet vjbench 2>/dev/null"))
		fprintf(stderr, "vjrx: nft delete table inet vjbench failed\n");
	write_param(SANCTION_MARK_PARAM, v->mark0);
	v->ruleset = 0;
}

static __u32 bind_mode(const struct rx *rx)
{
	switch (rx->mode->arg) {
	case VJ_PATH_FILTERED:
		return VJ_BIND_FW_FILTERED;
	case VJ_PATH_SANCTIONED:
		return VJ_BIND_FW_SANCTIONED;
	case VJ_PATH_DIRECT:
		return VJ_BIND_FW_BYPASS | VJ_BIND_F_DIRECT;
	default:
		return VJ_BIND_FW_BYPASS;
	}
}

/*
 * VJ_CROWD other bypass channels on other ports of the NIC, the smallest
 * rings, four flow-id shapes (masks) between them: the measured channel's
 * lookup must stay as cheap among them as alone.
 */
static int crowd_open(struct rx *rx, struct vj_rx *v)
{
	struct vj_chan_opts o = { .entries = VJ_RING_MIN_ENTRIES,
				  .buf_size = VJ_BUF_MIN_SIZE };
	struct rlimit rl = { VJ_CROWD + 256, VJ_CROWD + 256 };
	struct vj_flow flow;
	char spec[160];
	unsigned int i;
	int e;

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		set_why(rx, "RLIMIT_NOFILE %u: %s", VJ_CROWD + 256,
			strerror(errno));
		return -errno;
	}
	v->crowd = calloc(VJ_CROWD, sizeof(*v->crowd));
	if (!v->crowd)
		return -ENOMEM;
	for (i = 0; i < VJ_CROWD; i++) {
		unsigned int port = 20000 + i;

		switch (i % 4) {
		case 0:
			snprintf(spec, sizeof(spec), "udp4 dport %u", port);
			break;
		case 1:
			snprintf(spec, sizeof(spec), "udp4 dport %u daddr %s",
				 port, BENCH_DST_IP);
			break;
		case 2:
			snprintf(spec, sizeof(spec),
				 "udp4 dport %u daddr %s dev %s", port,
				 BENCH_DST_IP, rx->ifname);
			break;
		default:
			snprintf(spec, sizeof(spec), "udp4 sport %u dport %u",
				 port, port);
		}
		e = vj_flow_parse(spec, &flow);
		if (!e)
			e = vj_chan_open(&v->crowd[i], &o);
		if (!e) {
			v->ncrowd++;
			e = vj_chan_bind_flags(&v->crowd[i], &flow,
					       VJ_BIND_FW_BYPASS);
		}
		if (e) {
			set_why(rx, "crowd channel %u (%s): %s", i, spec,
				strerror(-e));
			return e;
		}
	}
	return 0;
}

int vjc_open(struct rx *rx)
{
	struct vj_chan_opts o = { .entries = QUEUE_PKTS, .buf_size = 2048 };
	struct vj_rx *v = calloc(1, sizeof(*v));
	struct vj_flow flow;
	char spec[128];
	int e;

	if (!v)
		return -ENOMEM;
	rx->priv = v;
	snprintf(spec, sizeof(spec), "udp4 dport %d daddr %s dev %s",
		 BENCH_DPORT, BENCH_DST_IP, rx->ifname);
	e = vj_flow_parse(spec, &flow);
	if (e) {
		set_why(rx, "vj_flow_parse(%s): %s", spec, strerror(-e));
		return e;
	}
	e = vj_chan_open(&v->ch, &o);
	if (e) {
		set_why(rx, "vj_chan_open: %s%s", strerror(-e),
			e == -EAFNOSUPPORT ? " (vjchan.ko not loaded)" : "");
		return e;
	}
	v->open = 1;
	if (rx->mode->arg == VJ_PATH_SANCTIONED) {
		e = sanction_setup(rx, v);
		if (e)
			return e;
	}
	if (rx->mode->arg == VJ_PATH_HOOK_CROWD) {
		e = crowd_open(rx, v);
		if (e)
			return e;
	}
	/*
	 * The fast paths serve bypass channels; the filtered path the rest.
	 * A direct channel owns the vjnet device's receive queue.
	 */
	e = vj_chan_bind_flags(&v->ch, &flow, bind_mode(rx));
	if (!e)
		e = vj_chan_map(&v->ch);
	if (e) {
		set_why(rx, "vj_chan_bind/map: %s", strerror(-e));
		return e;
	}
	rx->lat_clock = CLOCK_MONOTONIC;
	return 0;
}

int vjc_poll(struct rx *rx, int timeout_ms)
{
	struct vj_rx *v = rx->priv;
	unsigned int i, n;
	int64_t now;
	__u32 idx, len;

	n = vj_peek(&v->ch, BATCH, &idx);
	if (!n) {
		int r = vj_wait(&v->ch, timeout_ms);

		if (r <= 0)
			return r == -EINTR ? 0 : r;
		n = vj_peek(&v->ch, BATCH, &idx);
	}
	now = rx->lat ? clock_ns(CLOCK_MONOTONIC) : 0;
	for (i = 0; i < n; i++) {
		struct vj_desc d;
		const uint8_t *p;

		vj_desc_copy(vj_desc_at(&v->ch, idx + i), &d);
		p = vj_pkt(&v->ch, &d, &len);
		if (!p || d.l3_off > len || d.proto != htons(ETH_P_IP) ||
		    (d.flags & VJ_DESC_F_TRUNC)) {
			WR(rx->cnt.bad, rx->cnt.bad + 1);
			continue;
		}
		deliver_ipv4(rx, p + d.l3_off, len - d.l3_off,
			     rx->lat ? now - (int64_t)d.tstamp : -1);
	}
	vj_release(&v->ch, n);
	return n;
}

void vjc_drops(struct rx *rx)
{
	struct vj_rx *v = rx->priv;
	struct vj_statistics st;
	__u64 path;

	if (!v->open || vj_chan_stats(&v->ch, &st))
		return;
	snprintf(rx->drops, sizeof(rx->drops),
		 "rx_ring_full=%llu rx_driver=%llu rx_direct=%llu rx_filtered=%llu rx_invalid_cons=%llu",
		 (unsigned long long)st.rx_ring_full,
		 (unsigned long long)st.rx_driver,
		 (unsigned long long)st.rx_direct,
		 (unsigned long long)st.rx_filtered,
		 (unsigned long long)st.rx_invalid_cons);
	/* The mode names the path: make sure the packets took it. */
	switch (rx->mode->arg) {
	case VJ_PATH_HOOK:
	case VJ_PATH_HOOK_CROWD:
		path = st.rx_hook;
		break;
	case VJ_PATH_DRIVER:
		path = st.rx_driver;
		break;
	case VJ_PATH_DIRECT:
		path = st.rx_direct;
		break;
	case VJ_PATH_FILTERED:
		path = st.rx_filtered;
		break;
	case VJ_PATH_SANCTIONED:
		/* The filtered path only until the sanction is noted. */
		path = st.rx_hook + st.rx_filtered;
		if (st.rx_packets && !st.rx_hook)
			set_why(rx, "no packet took the hook: the flow was not sanctioned");
		break;
	default:
		path = st.rx_xdp;
	}
	rx_check_path(rx, path, st.rx_packets);
}

void vjc_close(struct rx *rx)
{
	struct vj_rx *v = rx->priv;

	if (!v)
		return;
	if (v->open)
		vj_chan_close(&v->ch);
	while (v->ncrowd)
		vj_chan_close(&v->crowd[--v->ncrowd]);
	free(v->crowd);
	sanction_teardown(v);
	free(v);
}

const struct rx_mode rx_vjchan_hook = {
	"vjchan-hook", "vj_desc.tstamp: CLOCK_MONOTONIC in the hook",
	vjc_open, vjc_poll, NULL, vjc_drops, vjc_close, VJ_PATH_HOOK, 0
};

/* vjchan-hook with VJ_CROWD other channels bound (many channels). */
const struct rx_mode rx_vjchan_hook_crowd = {
	"vjchan-hook-10k", "vj_desc.tstamp: CLOCK_MONOTONIC in the hook",
	vjc_open, vjc_poll, NULL, vjc_drops, vjc_close, VJ_PATH_HOOK_CROWD, 0
};

/* The same bypass channel on a vjnet device: the driver API feeds it. */
const struct rx_mode rx_vjchan_driver = {
	"vjchan-driver", "vj_desc.tstamp: CLOCK_MONOTONIC in the driver's NAPI poll",
	vjc_open, vjc_poll, NULL, vjc_drops, vjc_close, VJ_PATH_DRIVER, 0
};

/*
 * The bypass channel owning the vjnet device's receive queue: the device
 * writes into the ring, no copy (VJ_BIND_F_DIRECT).
 */
const struct rx_mode rx_vjchan_direct = {
	"vjchan-direct", "vj_desc.tstamp: CLOCK_MONOTONIC in the driver's NAPI poll",
	vjc_open, vjc_poll, NULL, vjc_drops, vjc_close, VJ_PATH_DIRECT, 0
};

/* The same channel in the default firewall mode: after the input hooks. */
const struct rx_mode rx_vjchan_filtered = {
	"vjchan-filtered", "vj_desc.tstamp: CLOCK_MONOTONIC at LOCAL_IN",
	vjc_open, vjc_poll, NULL, vjc_drops, vjc_close, VJ_PATH_FILTERED, 0
};

/* The same channel, sanctioned: the ruleset lets the flow skip later hooks. */
const struct rx_mode rx_vjchan_sanctioned = {
	"vjchan-sanctioned",
	"vj_desc.tstamp: CLOCK_MONOTONIC in the hook (the first packet at LOCAL_IN)",
	vjc_open, vjc_poll, NULL, vjc_drops, vjc_close, VJ_PATH_SANCTIONED, 0
};
