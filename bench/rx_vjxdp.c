// SPDX-License-Identifier: GPL-2.0
/*
 * vjchan-xdp: a bypass channel fed by the XDP path.  The same channel and
 * consumer as vjchan-hook (vjc_open/vjc_poll in rx_vjchan.c), plus
 * vjchan's XDP program (xdp/vjchan.bpf.o, or $VJ_XDP_OBJ) attached in
 * native mode through libxdp, so frames go from virtio_net's NAPI straight
 * into the ring by the kfunc vj_xdp_deliver().  vjxdp_attach() and
 * vjxdp_detach() attach the same program for udp-vjchan-xdp (rx_socket.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <xdp/libxdp.h>

#include "rx_vjchan.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC	0xcafe4a11
#endif

struct vjxdp_rx {
	struct vj_rx		*chan;		/* vjc_open()'s state */
	struct xdp_program	*prog;		/* attached, or NULL */
};

int vjxdp_attach(struct rx *rx, struct xdp_program **progp)
{
	const char *obj = getenv("VJ_XDP_OBJ") ?: "xdp/vjchan.bpf.o";
	struct xdp_program *prog;
	struct statfs fs;
	long e;

	/* libxdp pins its dispatcher in bpffs. */
	if ((statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC) &&
	    mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL)) {
		set_why(rx, "mount bpffs: %s", strerror(errno));
		return -errno;
	}
	prog = xdp_program__open_file(obj, NULL, NULL);
	e = libxdp_get_error(prog);
	if (e) {
		set_why(rx, "open %s: %s", obj, strerror((int)-e));
		return (int)e;
	}
	/* It is SEC("xdp.frags"), which libxdp does not learn by itself. */
	e = xdp_program__set_xdp_frags_support(prog, true);
	if (!e)
		e = xdp_program__attach(prog, rx->ifindex, XDP_MODE_NATIVE, 0);
	if (e) {
		set_why(rx, "attach %s (native): %s", obj, strerror((int)-e));
		xdp_program__close(prog);
		return (int)e;
	}
	*progp = prog;
	return 0;
}

void vjxdp_detach(struct rx *rx, struct xdp_program *prog)
{
	if (!prog)
		return;
	xdp_program__detach(prog, rx->ifindex, XDP_MODE_NATIVE, 0);
	xdp_program__close(prog);
}

static int vjxdp_open(struct rx *rx)
{
	struct vjxdp_rx *x;
	int e;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	rx->priv = NULL;
	e = vjc_open(rx);	/* sets rx->priv to the channel's state */
	x->chan = rx->priv;
	rx->priv = x;
	if (e)
		return e;
	return vjxdp_attach(rx, &x->prog);
}

/* vjc_poll() and vjc_drops() work on the channel's state. */
static int vjxdp_poll(struct rx *rx, int timeout_ms)
{
	struct vjxdp_rx *x = rx->priv;
	int n;

	rx->priv = x->chan;
	n = vjc_poll(rx, timeout_ms);
	rx->priv = x;
	return n;
}

static void vjxdp_drops(struct rx *rx)
{
	struct vjxdp_rx *x = rx->priv;

	if (!x->chan)
		return;
	rx->priv = x->chan;
	vjc_drops(rx);	/* checks rx_xdp == rx_packets (VJ_PATH_XDP) */
	rx->priv = x;
}

static void vjxdp_close(struct rx *rx)
{
	struct vjxdp_rx *x = rx->priv;

	if (!x)
		return;
	vjxdp_detach(rx, x->prog);
	rx->priv = x->chan;
	vjc_close(rx);	/* copes with NULL */
	rx->priv = NULL;
	free(x);
}

const struct rx_mode rx_vjchan_xdp = {
	"vjchan-xdp", "vj_desc.tstamp: CLOCK_MONOTONIC in the XDP kfunc",
	vjxdp_open, vjxdp_poll, NULL, vjxdp_drops, vjxdp_close, VJ_PATH_XDP, 0
};
