/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A minimal pcapng writer: one section header, interface descriptions and
 * enhanced packet blocks, in the host's byte order (readers look at the
 * section's byte-order magic).  Format: draft-ietf-opsawg-pcapng.
 */
#ifndef VJ_PCAPNG_H
#define VJ_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

/* Link types (www.tcpdump.org/linktypes.html) that vjchan-recv writes. */
#define PCAPNG_LINKTYPE_ETHERNET	1
#define PCAPNG_LINKTYPE_RAW		101	/* IPv4 or IPv6, no link header */

/* epb_flags: direction (bits 0-1) and reception type (bits 2-4). */
#define PCAPNG_EPB_INBOUND		0x1
#define PCAPNG_EPB_UNICAST		(1 << 2)
#define PCAPNG_EPB_MULTICAST		(2 << 2)
#define PCAPNG_EPB_BROADCAST		(3 << 2)

/**
 * struct pcapng - a pcapng stream being written
 * @f: where the blocks go
 * @nifs: interface descriptions written so far; the next gets this id
 * @err: the first write error as -errno, then every call fails with it
 */
struct pcapng {
	FILE		*f;
	uint32_t	nifs;
	int		err;
};

/**
 * pcapng_start() - write the section header block
 * @w: writer to set up
 * @f: open stream; it stays the caller's
 * @appl: shb_userappl, or NULL
 * @os: shb_os, or NULL
 *
 * Return: 0 or -errno.
 */
int pcapng_start(struct pcapng *w, FILE *f, const char *appl, const char *os);

/**
 * pcapng_add_if() - write an interface description block
 * @w: writer
 * @linktype: PCAPNG_LINKTYPE_*
 * @snaplen: the most bytes any packet of the interface is cut to, 0 for
 *	no limit
 * @name: if_name, or NULL
 * @desc: if_description, or NULL
 *
 * Time stamps of the interface are in nanoseconds (if_tsresol 9).
 *
 * Return: the interface id (0, 1, ...) that pcapng_packet() takes, or
 * -errno.
 */
int pcapng_add_if(struct pcapng *w, uint16_t linktype, uint32_t snaplen,
		  const char *name, const char *desc);

/**
 * pcapng_packet() - write an enhanced packet block
 * @w: writer
 * @ifid: from pcapng_add_if()
 * @ts_ns: time stamp, nanoseconds since the epoch
 * @data: the captured bytes
 * @caplen: how many
 * @origlen: the packet's length on the wire, at least @caplen
 * @flags: epb_flags, 0 for none
 *
 * Return: 0 or -errno (-EINVAL for @origlen < @caplen or an unknown @ifid).
 */
int pcapng_packet(struct pcapng *w, uint32_t ifid, uint64_t ts_ns,
		  const void *data, uint32_t caplen, uint32_t origlen,
		  uint32_t flags);

/**
 * pcapng_flush() - push buffered blocks to the file
 * @w: writer
 *
 * Return: 0 or -errno of the first failed write.
 */
int pcapng_flush(struct pcapng *w);

#endif /* VJ_PCAPNG_H */
