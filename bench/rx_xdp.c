// SPDX-License-Identifier: GPL-2.0
/*
 * vjrx: receive with XDP: an AF_XDP socket through libxdp (copy and
 * zero-copy), and the ceiling, XDP_DROP of the flow in the driver.  Both
 * load their programs from xdp_bench.bpf.o.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "rx.h"
#include "xdp_bench.h"

/* ---- XDP programs (xdp_bench.bpf.o), for AF_XDP and xdp-drop ------------- */

struct xdp_prog {
	struct bpf_object	*obj;
	int			ifindex;
	int			attached;
};

static int xdp_load(struct rx *rx, struct xdp_prog *x, const char *prog_name,
		    struct bpf_map **map, const char *map_name,
		    const struct xdp_bench_count *init)
{
	struct bpf_program *prog;
	__u32 key = 0;
	int e;

	x->ifindex = rx->ifindex;
	x->obj = bpf_object__open_file(rx->bpf_obj, NULL);
	e = libbpf_get_error(x->obj);
	if (e) {
		x->obj = NULL;
		set_why(rx, "open %s: %s", rx->bpf_obj, strerror(-e));
		return err(e);
	}
	e = bpf_object__load(x->obj);
	if (e) {
		set_why(rx, "load %s: %s", rx->bpf_obj, strerror(-e));
		return err(e);
	}
	prog = bpf_object__find_program_by_name(x->obj, prog_name);
	*map = bpf_object__find_map_by_name(x->obj, map_name);
	if (!prog || !*map) {
		set_why(rx, "%s: no %s or %s", rx->bpf_obj, prog_name, map_name);
		return -ENOENT;
	}
	if (init && bpf_map_update_elem(bpf_map__fd(*map), &key, init, 0)) {
		set_why(rx, "map update: %s", strerror(errno));
		return -errno;
	}
	/* Native (driver) mode: virtio_net runs the program in its NAPI. */
	e = bpf_xdp_attach(rx->ifindex, bpf_program__fd(prog),
			   XDP_FLAGS_DRV_MODE, NULL);
	if (e) {
		set_why(rx, "bpf_xdp_attach(XDP_FLAGS_DRV_MODE): %s", strerror(-e));
		return err(e);
	}
	x->attached = 1;
	return 0;
}

static void xdp_unload(struct xdp_prog *x)
{
	if (x->attached)
		bpf_xdp_detach(x->ifindex, XDP_FLAGS_DRV_MODE, NULL);
	x->attached = 0;
	if (x->obj)
		bpf_object__close(x->obj);
	x->obj = NULL;
}

/* ---- afxdp-copy, afxdp-zc: AF_XDP socket through libxdp ------------------ */

#define XSK_FRAMES	QUEUE_PKTS
#define XSK_FRAME_SIZE	2048

struct xsk_rx {
	struct xdp_prog		prog;
	struct xsk_umem		*umem;
	struct xsk_socket	*xsk;
	struct xsk_ring_prod	fq;
	struct xsk_ring_cons	cq;
	struct xsk_ring_cons	rxq;
	void			*area;
	size_t			area_len;
	int			fd;
	__u64			addrs[BATCH];
};

static int xsk_open(struct rx *rx)
{
	struct xsk_umem_config ucfg = {
		.fill_size = XSK_FRAMES,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_size = XSK_FRAME_SIZE,
		.frame_headroom = 0,
		.flags = 0,
	};
	struct xsk_socket_config cfg = {
		.rx_size = XSK_FRAMES / 2,
		.tx_size = 0,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = rx->mode->arg | XDP_USE_NEED_WAKEUP,
	};
	const char *how = rx->mode->arg & XDP_ZEROCOPY ? "XDP_ZEROCOPY" : "XDP_COPY";
	struct xsk_rx *x = calloc(1, sizeof(*x));
	struct bpf_map *map;
	__u32 idx, i;
	int e;

	if (!x)
		return -ENOMEM;
	rx->priv = x;
	x->area_len = (size_t)XSK_FRAMES * XSK_FRAME_SIZE;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		set_why(rx, "mmap: %s", strerror(errno));
		return -errno;
	}
	e = xsk_umem__create(&x->umem, x->area, x->area_len, &x->fq, &x->cq,
			     &ucfg);
	if (e) {
		x->umem = NULL;
		set_why(rx, "xsk_umem__create: %s", strerror(-e));
		return err(e);
	}
	e = xdp_load(rx, &x->prog, "xdp_flow_redirect", &map, "xsks_map", NULL);
	if (e)
		return e;
	e = xsk_socket__create(&x->xsk, rx->ifname, 0, x->umem, &x->rxq, NULL,
			       &cfg);
	if (e) {
		x->xsk = NULL;
		set_why(rx, "xsk_socket__create(%s): %s (%s)", how,
			errname(-e), strerror(-e));
		/* virtio_net in 6.12 has no zero-copy AF_XDP. */
		if (e == -EOPNOTSUPP && (rx->mode->arg & XDP_ZEROCOPY))
			rx->unsupported = 1;
		return err(e);
	}
	x->fd = xsk_socket__fd(x->xsk);
	e = xsk_socket__update_xskmap(x->xsk, bpf_map__fd(map));
	if (e) {
		set_why(rx, "xsk_socket__update_xskmap: %s", strerror(-e));
		return err(e);
	}
	if (xsk_ring_prod__reserve(&x->fq, XSK_FRAMES, &idx) != XSK_FRAMES) {
		set_why(rx, "fill ring: cannot reserve %u", XSK_FRAMES);
		return -ENOSPC;
	}
	for (i = 0; i < XSK_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&x->fq, idx + i) =
			(__u64)i * XSK_FRAME_SIZE;
	xsk_ring_prod__submit(&x->fq, XSK_FRAMES);
	return 0;
}

static int xsk_poll(struct rx *rx, int timeout_ms)
{
	struct xsk_rx *x = rx->priv;
	__u32 idx, fidx, i, n;

	n = xsk_ring_cons__peek(&x->rxq, BATCH, &idx);
	if (!n) {
		struct pollfd pfd = { .fd = x->fd, .events = POLLIN };

		if (xsk_ring_prod__needs_wakeup(&x->fq))
			recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		if (poll(&pfd, 1, timeout_ms) < 0)
			return errno == EINTR ? 0 : -errno;
		n = xsk_ring_cons__peek(&x->rxq, BATCH, &idx);
		if (!n)
			return 0;
	}
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rxq, idx + i);
		__u64 addr = xsk_umem__add_offset_to_addr(d->addr);

		/* AF_XDP carries no receive time stamp. */
		deliver_eth(rx, xsk_umem__get_data(x->area, addr), d->len, -1);
		x->addrs[i] = xsk_umem__extract_addr(d->addr);
	}
	xsk_ring_cons__release(&x->rxq, n);
	/* Hand the frames back; the fill ring has room for all of UMEM. */
	while (xsk_ring_prod__reserve(&x->fq, n, &fidx) != n)
		;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fq, fidx + i) = x->addrs[i];
	xsk_ring_prod__submit(&x->fq, n);
	return n;
}

static void xsk_drops(struct rx *rx)
{
	struct xsk_rx *x = rx->priv;
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	if (x->xsk && !getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &len))
		snprintf(rx->drops, sizeof(rx->drops),
			 "rx_dropped=%llu rx_ring_full=%llu fill_empty=%llu",
			 (unsigned long long)st.rx_dropped,
			 (unsigned long long)st.rx_ring_full,
			 (unsigned long long)st.rx_fill_ring_empty_descs);
}

static void xsk_close(struct rx *rx)
{
	struct xsk_rx *x = rx->priv;

	if (!x)
		return;
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	xdp_unload(&x->prog);
	if (x->area)
		munmap(x->area, x->area_len);
	free(x);
}

/* ---- xdp-drop: the ceiling, XDP_DROP of the flow in the driver ----------- */

struct drop_rx {
	struct xdp_prog	prog;
	struct bpf_map	*map;
};

static int drop_open(struct rx *rx)
{
	struct xdp_bench_count init = { .tag = rx->tag };
	struct drop_rx *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	rx->priv = d;
	return xdp_load(rx, &d->prog, "xdp_flow_drop", &d->map, "counts", &init);
}

static void drop_counts(struct rx *rx)
{
	struct drop_rx *d = rx->priv;
	struct xdp_bench_count c;
	__u32 key = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(d->map), &key, &c))
		return;
	rx->cnt.pkts = c.pkts;
	rx->cnt.bytes = c.bytes;
	rx->cnt.max_ctr = c.max_ctr;
	rx->cnt.stale = c.stale;
	rx->cnt.bad = c.bad;
}

/* Nothing to receive: wait, and watch for the first frame. */
static int drop_poll(struct rx *rx, int timeout_ms)
{
	struct timespec ts = { 0, (rx->started ? timeout_ms : 10) * 1000000L };

	nanosleep(&ts, NULL);
	if (!rx->started) {
		drop_counts(rx);
		if (rx->cnt.pkts) {
			rx->started = 1;
			sem_post(&rx->first);
		}
	}
	return 0;
}

static void drop_drops(struct rx *rx)
{
	snprintf(rx->drops, sizeof(rx->drops), "xdp_drop=all");
}

static void drop_close(struct rx *rx)
{
	struct drop_rx *d = rx->priv;

	if (!d)
		return;
	xdp_unload(&d->prog);
	free(d);
}

const struct rx_mode rx_afxdp_copy = {
	"afxdp-copy", NULL,
	xsk_open, xsk_poll, NULL, xsk_drops, xsk_close, XDP_COPY, 0
};

const struct rx_mode rx_afxdp_zc = {
	"afxdp-zc", NULL,
	xsk_open, xsk_poll, NULL, xsk_drops, xsk_close, XDP_ZEROCOPY, 0
};

const struct rx_mode rx_xdp_drop = {
	"xdp-drop", NULL,
	drop_open, drop_poll, drop_counts, drop_drops, drop_close, 0, 0
};
