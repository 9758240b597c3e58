/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vjchan-recv -w: the packets of a channel as a pcapng file.
 */
#ifndef VJ_CAPTURE_H
#define VJ_CAPTURE_H

#include <stdint.h>

#include "pcapng.h"
#include "vjchan.h"

/* One interface description per (ifindex, link type) seen. */
struct capture_if {
	uint32_t	ifindex;
	uint16_t	linktype;
	uint32_t	id;
};

/**
 * struct capture - a capture being written
 * @w: the pcapng stream
 * @f: its file
 * @snaplen: bytes kept of each packet
 * @mono_to_real: ns to add to CLOCK_MONOTONIC to get CLOCK_REALTIME
 * @flow: the channel's flow id as text, for the interface descriptions
 * @ifs: interfaces described so far
 * @nifs: how many
 * @packets: packets written
 */
struct capture {
	struct pcapng		w;
	FILE			*f;
	uint32_t		snaplen;
	int64_t			mono_to_real;
	char			flow[VJ_FLOW_STRLEN];
	struct capture_if	*ifs;
	unsigned int		nifs;
	unsigned long long	packets;
};

/**
 * capture_open() - create the file and write its section header
 * @c: capture to set up
 * @path: file to create (truncated if it exists), or "-" for standard
 *	output; then the process's standard output is pointed at standard
 *	error, so that nothing else can write into the pcapng stream
 * @snaplen: bytes to keep of each packet, at most the buffer size
 * @flow: text of the channel's flow id
 *
 * Return: 0 or -errno (-ENOTTY: "-" while standard output is a terminal).
 */
int capture_open(struct capture *c, const char *path, uint32_t snaplen,
		 const char *flow);

/**
 * capture_packet() - write one received packet
 * @c: capture
 * @d: the packet's descriptor (a private copy)
 * @pkt: the packet, from vj_pkt()
 * @len: its length in the buffer
 *
 * A packet with the link header (VJ_DESC_F_L2, l3_off >= 14) is written as
 * Ethernet, any other from its network header as raw IP.  The time stamp
 * is the kernel's (vj_desc.tstamp, CLOCK_MONOTONIC) moved to the epoch by
 * the clock offset taken at capture_open().  The original length of a
 * truncated packet (VJ_DESC_F_TRUNC) comes from its IP header.
 *
 * Return: 0 or -errno.
 */
int capture_packet(struct capture *c, const struct vj_desc *d,
		   const void *pkt, uint32_t len);

/**
 * capture_flush() - push what was written so far to the file
 * @c: capture
 *
 * Return: 0, or -errno of the first write that failed.
 */
int capture_flush(struct capture *c);

/**
 * capture_close() - flush and close the file
 * @c: capture
 *
 * Return: 0, or -errno of the first write that failed.
 */
int capture_close(struct capture *c);

#endif /* VJ_CAPTURE_H */
