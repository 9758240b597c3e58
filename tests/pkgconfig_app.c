// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A program outside the tree, built against an installed libvjchan with
 * nothing but `pkg-config --cflags --libs libvjchan` (tests/install.sh,
 * tests/dkms-guest.sh).
 *
 *   pkgconfig_app              flow text and payload helpers (no module)
 *   pkgconfig_app PORT COUNT   receive COUNT test datagrams on udp4 PORT
 *
 * Prints "app ok ..." and exits 0, or prints what failed and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vjchan.h>

static int offline(void)
{
	const char *spec = "udp6 sport 5000 dport 9000 daddr 2001:db8::1";
	unsigned char payload[64];
	char text[VJ_FLOW_STRLEN];
	struct vj_flow flow;
	uint32_t seq = 0;
	int err;

	err = vj_flow_parse(spec, &flow);
	if (err || vj_flow_format(&flow, text, sizeof(text)) < 0 ||
	    strcmp(text, spec)) {
		printf("app: flow \"%s\" came back as \"%s\" (%d)\n", spec,
		       err ? "" : text, err);
		return 1;
	}
	vj_pattern_fill(payload, sizeof(payload), 4242);
	if (vj_pattern_check(payload, sizeof(payload), &seq) || seq != 4242) {
		printf("app: pattern check failed (seq %u)\n", seq);
		return 1;
	}
	payload[20] ^= 1;
	if (vj_pattern_check(payload, sizeof(payload), &seq) != -EBADMSG) {
		printf("app: a damaged payload passed the check\n");
		return 1;
	}
	printf("app ok %s\n", text);
	return 0;
}

static int receive(const char *port, unsigned long count)
{
	char spec[64];
	struct vj_chan ch;
	struct vj_flow flow;
	unsigned long got = 0, bad = 0;
	__u32 idx, len, plen;
	uint32_t seq;
	int err;

	snprintf(spec, sizeof(spec), "udp4 dport %s", port);
	err = vj_flow_parse(spec, &flow);
	if (!err)
		err = vj_chan_open(&ch, NULL);
	if (!err) {
		err = vj_chan_bind(&ch, &flow);
		if (!err)
			err = vj_chan_map(&ch);
		if (err)
			vj_chan_close(&ch);
	}
	if (err) {
		printf("app: channel for %s: %s\n", spec, strerror(-err));
		return 1;
	}
	printf("app: bound %s\n", spec);
	fflush(stdout);
	while (got < count && vj_wait(&ch, 10000) > 0) {
		unsigned int i, n = vj_peek(&ch, 64, &idx);

		for (i = 0; i < n; i++) {
			const struct vj_desc *d = vj_desc_at(&ch, idx + i);
			const void *pkt = vj_pkt(&ch, d, &len);
			const void *data = pkt ?
				vj_udp_payload(d, pkt, len, &plen) : NULL;

			if (!data || vj_pattern_check(data, plen, &seq) ||
			    seq != got)
				bad++;
			got++;
		}
		vj_release(&ch, n);
	}
	vj_chan_close(&ch);
	if (got != count || bad) {
		printf("app: received %lu of %lu, %lu bad\n", got, count, bad);
		return 1;
	}
	printf("app ok received %lu\n", got);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return offline();
	if (argc == 3)
		return receive(argv[1], strtoul(argv[2], NULL, 10));
	fprintf(stderr, "usage: pkgconfig_app [PORT COUNT]\n");
	return 2;
}
