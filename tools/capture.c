// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vjchan-recv -w: the packets of a channel as a pcapng file (capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/utsname.h>

#include "capture.h"

#define ETH_HLEN	14
#define IP6_HLEN	40

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC in ns: of a few readings, the one with
 * the shortest bracketing pair of monotonic reads.
 */
static int64_t clock_offset(void)
{
	int64_t best = 0, gap, best_gap = INT64_MAX, m0, m1, r;
	struct timespec a, b, c;
	int i;

	for (i = 0; i < 5; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &b);
		clock_gettime(CLOCK_MONOTONIC, &c);
		m0 = a.tv_sec * 1000000000LL + a.tv_nsec;
		m1 = c.tv_sec * 1000000000LL + c.tv_nsec;
		r = b.tv_sec * 1000000000LL + b.tv_nsec;
		gap = m1 - m0;
		if (gap < best_gap) {
			best_gap = gap;
			best = r - (m0 + gap / 2);
		}
	}
	return best;
}

int capture_open(struct capture *c, const char *path, uint32_t snaplen,
		 const char *flow)
{
	char os[2 * sizeof(((struct utsname *)0)->release) + 2] = "";
	struct utsname u;
	int fd, err;

	memset(c, 0, sizeof(*c));
	c->snaplen = snaplen;
	snprintf(c->flow, sizeof(c->flow), "%s", flow);
	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO))
			return -ENOTTY;
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
		fflush(stdout);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			err = -errno;
			close(fd);
			return err;
		}
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
	}
	c->f = fdopen(fd, "w");
	if (!c->f) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!uname(&u))
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
	c->mono_to_real = clock_offset();
	err = pcapng_start(&c->w, c->f, "vjchan-recv", os);
	if (err) {
		fclose(c->f);
		c->f = NULL;
	}
	return err;
}

/* The interface id for @ifindex and @linktype, described on first use. */
static int capture_if(struct capture *c, uint32_t ifindex, uint16_t linktype)
{
	char name[IF_NAMESIZE + 16], desc[VJ_FLOW_STRLEN + 64];
	struct capture_if *ifs;
	unsigned int i;
	int id;

	for (i = 0; i < c->nifs; i++)
		if (c->ifs[i].ifindex == ifindex &&
		    c->ifs[i].linktype == linktype)
			return c->ifs[i].id;
	ifs = realloc(c->ifs, (c->nifs + 1) * sizeof(*ifs));
	if (!ifs)
		return -ENOMEM;
	c->ifs = ifs;
	if (!if_indextoname(ifindex, name))
		snprintf(name, sizeof(name), "ifindex%u", ifindex);
	snprintf(desc, sizeof(desc), "ifindex %u, vjchan channel %s",
		 ifindex, c->flow);
	id = pcapng_add_if(&c->w, linktype, c->snaplen, name, desc);
	if (id < 0)
		return id;
	c->ifs[c->nifs++] = (struct capture_if){ ifindex, linktype, id };
	return id;
}

static uint32_t get16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/*
 * Length of the packet before it was cut to the buffer: the network
 * header's offset plus the IP length, if the IP header is there and says
 * more than @len; else @len.
 */
static uint32_t orig_len(const unsigned char *ip, uint32_t l3_off,
			 uint32_t len)
{
	uint32_t n = 0;

	if (len < l3_off + 6)
		return len;
	if (ip[0] >> 4 == 4)
		n = get16(ip + 2);
	else if (ip[0] >> 4 == 6)
		n = IP6_HLEN + get16(ip + 4);
	return l3_off + n > len ? l3_off + n : len;
}

/* epb_flags for an Ethernet frame: inbound, and how it was addressed. */
static uint32_t eth_flags(const unsigned char *eth)
{
	static const unsigned char bcast[6] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};

	if (!memcmp(eth, bcast, sizeof(bcast)))
		return PCAPNG_EPB_INBOUND | PCAPNG_EPB_BROADCAST;
	if (eth[0] & 1)
		return PCAPNG_EPB_INBOUND | PCAPNG_EPB_MULTICAST;
	return PCAPNG_EPB_INBOUND | PCAPNG_EPB_UNICAST;
}

int capture_packet(struct capture *c, const struct vj_desc *d,
		   const void *pkt, uint32_t len)
{
	const unsigned char *p = pkt;
	uint32_t l3 = d->l3_off, orig, flags = PCAPNG_EPB_INBOUND, cap;
	uint16_t linktype;
	uint64_t ts;
	int id;

	if (l3 > len)
		l3 = len;
	orig = d->flags & VJ_DESC_F_TRUNC ? orig_len(p + l3, l3, len) : len;
	if ((d->flags & VJ_DESC_F_L2) && l3 >= ETH_HLEN) {
		linktype = PCAPNG_LINKTYPE_ETHERNET;
		flags = eth_flags(p);
	} else {
		/* No usable link header: from the network header on. */
		linktype = PCAPNG_LINKTYPE_RAW;
		p += l3;
		len -= l3;
		orig -= l3;
	}
	id = capture_if(c, d->ifindex, linktype);
	if (id < 0)
		return id;
	cap = len < c->snaplen ? len : c->snaplen;
	ts = d->tstamp + c->mono_to_real;
	c->packets++;
	return pcapng_packet(&c->w, id, ts, p, cap, orig, flags);
}

int capture_flush(struct capture *c)
{
	return pcapng_flush(&c->w);
}

int capture_close(struct capture *c)
{
	int err;

	if (!c->f)
		return 0;
	err = pcapng_flush(&c->w);
	if (fclose(c->f) && !err)
		err = -errno;
	c->f = NULL;
	free(c->ifs);
	c->ifs = NULL;
	c->nifs = 0;
	return err;
}
