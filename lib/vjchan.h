/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvjchan: user-space side of vjchan, Van Jacobson network channels.
 *
 * A channel is a PF_VJCHAN socket bound to a flow id; the kernel puts the
 * packets of that flow into buffers that are mapped into this process and
 * announces them through a single-producer/single-consumer descriptor ring.
 * See vjchan(7) for the socket interface and include/uapi/linux/vjchan.h for
 * the ABI.
 *
 * Unless documented otherwise, functions return 0 (or a count) on success
 * and a negative errno value on failure; they do not rely on errno.
 *
 * Typical use:
 *
 *	struct vj_chan ch;
 *	struct vj_flow flow;
 *	__u32 idx, len;
 *	unsigned i, n;
 *
 *	vj_flow_parse("udp4 dport 9000", &flow);
 *	vj_chan_open(&ch, NULL);
 *	vj_chan_bind(&ch, &flow);
 *	vj_chan_map(&ch);
 *	while (vj_wait(&ch, -1) > 0) {
 *		n = vj_peek(&ch, 64, &idx);
 *		for (i = 0; i < n; i++) {
 *			const void *p = vj_pkt(&ch, vj_desc_at(&ch, idx + i),
 *					       &len);
 *			if (p)
 *				handle(p, len);
 *		}
 *		vj_release(&ch, n);
 *	}
 *	vj_chan_close(&ch);
 *
 * Memory ordering.  The kernel produces, this process consumes; each side
 * writes only its own index and the pairing is:
 *
 *   kernel (producer)                         user (consumer)
 *   (A) cons = load_acquire(&consumer)        (C) prod = load_acquire(&producer)
 *       write buffer + descriptor                 read descriptor + buffer
 *   (B) store_release(&producer, prod + n)    (D) store_release(&consumer, cons + n)
 *   (A) pairs with (D): the kernel reuses a buffer only after user space is done with it.
 *   (B) pairs with (C): user space sees the descriptor and data the kernel wrote.
 *
 *   (E) store_release(&flags, DEAD)           (F) flags = load_acquire(&flags)
 *   (E) pairs with (F): after seeing DEAD, a load of producer gives the last one.
 *
 * Only one thread may consume from a channel at a time.
 */
#ifndef LIBVJCHAN_H
#define LIBVJCHAN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vjchan.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct vj_chan - an open channel
 * @bad_desc: descriptors rejected by vj_pkt(); may be read by the caller
 *
 * All other members are private: do not access them directly.
 */
struct vj_chan {
	__u64		bad_desc;
	int		fd;
	__u32		entries;
	__u32		mask;
	__u32		buf_size;
	__u32		cached_prod;
	__u32		cached_cons;
	__u32		*producer;
	__u32		*consumer;
	__u32		*flags;
	struct vj_desc	*desc;
	unsigned char	*bufs;
	void		*map;
	size_t		map_size;
};

/**
 * struct vj_chan_opts - ring geometry for vj_chan_open()
 * @entries: descriptors in the ring, 0 for VJ_RING_DEF_ENTRIES
 * @buf_size: bytes per buffer, 0 for VJ_BUF_DEF_SIZE
 */
struct vj_chan_opts {
	__u32	entries;
	__u32	buf_size;
};

/**
 * vj_chan_open() - create a channel socket
 * @ch: channel to initialise
 * @opts: ring geometry, or NULL for the kernel defaults
 *
 * Creates the PF_VJCHAN socket (close-on-exec) and, if @opts asks for a
 * geometry, sets VJ_RING.  Nothing else is done: bind and map next.  On
 * failure @ch is left closed, so vj_chan_close() on it is harmless.
 *
 * Return: 0, or -errno of socket() (EAFNOSUPPORT if vjchan is not loaded,
 * EPERM without CAP_NET_RAW) or of setsockopt(VJ_RING) (EINVAL).
 */
int vj_chan_open(struct vj_chan *ch, const struct vj_chan_opts *opts);

/**
 * vj_chan_bind() - bind the channel to a flow id
 * @ch: open channel
 * @flow: flow id; pad and unused address bytes must be zero
 *
 * Creates the ring if vj_chan_map() has not done so already.
 *
 * Return: 0, or -errno of bind(): EADDRINUSE, ENODEV, EINVAL,
 * EAFNOSUPPORT, ENOMEM, ENOBUFS (see vjchan(7)).
 */
int vj_chan_bind(struct vj_chan *ch, const struct vj_flow *flow);

/**
 * vj_chan_bind_flags() - bind the channel to a flow id with svj_flags
 * @ch: open channel
 * @flow: flow id
 * @flags: the firewall mode (VJ_BIND_FW_*) and VJ_BIND_F_* bits
 *
 * vj_chan_bind() is this with VJ_BIND_FW_FILTERED.
 *
 * Return: as vj_chan_bind(); also EPERM without CAP_NET_ADMIN, EOPNOTSUPP
 * for a mode the kernel does not implement.
 */
int vj_chan_bind_flags(struct vj_chan *ch, const struct vj_flow *flow,
		       __u16 flags);

/**
 * vj_bind_flags_parse() - parse svj_flags written as words
 * @s: comma-separated words: at most one mode of "filtered",
 *	"sanctioned", "bypass", and optionally "transit"; "" is filtered
 * @flags: set on success
 *
 * Return: 0, or -EINVAL for an unknown or repeated word.
 */
int vj_bind_flags_parse(const char *s, __u16 *flags);

/**
 * vj_chan_map() - map the ring and the buffers
 * @ch: open channel, bound or not
 *
 * Reads VJ_MMAP_OFFSETS, maps exactly the size it gives at offset 0 with
 * MAP_SHARED and derives every ring pointer from the offsets.  Must be done
 * before the fast-path functions below are used.  A channel bound with
 * VJ_BIND_F_DIRECT is mapped in two parts at the same places: the buffers
 * read-only (at offset bufs), the rest read-write; so bind a direct
 * channel before mapping it (mapped before, the bind fails with EBUSY).
 *
 * Return: 0, -EBUSY if already mapped, -EPROTO if the kernel reports a layout
 * that does not fit its own size, or -errno of getsockopt() or mmap().
 */
int vj_chan_map(struct vj_chan *ch);

/**
 * vj_chan_close() - unmap and close the channel
 * @ch: channel; may be one whose vj_chan_open() failed
 *
 * Packets still in the ring are dropped with the channel.
 */
void vj_chan_close(struct vj_chan *ch);

/**
 * vj_chan_fd() - the channel's socket
 * @ch: open channel
 *
 * For epoll and the like.  After epoll reports the socket readable, use
 * vj_peek(); when the ring is empty, waiting must go through poll, epoll or
 * select on this descriptor (or vj_wait()), which also moves packets that
 * arrived through the driver API into the ring.
 *
 * Return: the file descriptor, or -1 if the channel is closed.
 */
static inline int vj_chan_fd(const struct vj_chan *ch)
{
	return ch->fd;
}

/**
 * vj_chan_stats() - read the kernel's counters for the channel
 * @ch: open channel
 * @st: filled with VJ_STATISTICS
 *
 * Return: 0, or -errno of getsockopt().
 */
int vj_chan_stats(struct vj_chan *ch, struct vj_statistics *st);

/**
 * vj_chan_getflow() - the flow id the channel is bound to
 * @ch: open channel
 * @flow: filled from getsockname(); all zero if the channel is unbound
 *
 * Return: 0, -EPROTO for an unexpected address, or -errno of getsockname().
 */
int vj_chan_getflow(struct vj_chan *ch, struct vj_flow *flow);

/**
 * vj_peek() - descriptors ready to be read
 * @ch: mapped channel
 * @max: read at most this many
 * @idx: set to the ring index of the first one
 *
 * Uses the producer index seen last time and loads it again, with acquire
 * semantics (C, matches B), only if that copy shows fewer than @max.  The
 * descriptors are vj_desc_at(@ch, *@idx) up to vj_desc_at(@ch, *@idx + n - 1)
 * and stay valid until vj_release().  Never blocks and never makes packets
 * of the driver API visible: see vj_wait().
 *
 * Return: n, the number of descriptors ready, at most @max.
 */
static inline unsigned vj_peek(struct vj_chan *ch, unsigned max, __u32 *idx)
{
	__u32 avail = ch->cached_prod - ch->cached_cons;

	if (avail < max) {
		/* (C), matches (B): see the descriptors and the data. */
		ch->cached_prod = __atomic_load_n(ch->producer,
						  __ATOMIC_ACQUIRE);
		avail = ch->cached_prod - ch->cached_cons;
	}
	*idx = ch->cached_cons;
	return avail < max ? avail : max;
}

/**
 * vj_desc_at() - the descriptor at a ring index
 * @ch: mapped channel
 * @idx: free-running ring index, as from vj_peek()
 *
 * The descriptor is in shared memory: read it with vj_desc_copy() or pass it
 * to vj_pkt(), which copy each field once.
 *
 * Return: the descriptor in slot @idx & (entries - 1).
 */
static inline const struct vj_desc *vj_desc_at(const struct vj_chan *ch,
					       __u32 idx)
{
	return &ch->desc[idx & ch->mask];
}

/**
 * vj_desc_copy() - take a private copy of a descriptor
 * @desc: descriptor, as from vj_desc_at()
 * @out: the copy
 *
 * Each field is read once; vj_pkt() may then be given @out, so the fields
 * it checks are the ones the caller looks at.
 */
static inline void vj_desc_copy(const struct vj_desc *desc,
				struct vj_desc *out)
{
	out->buf = __atomic_load_n(&desc->buf, __ATOMIC_RELAXED);
	out->off = __atomic_load_n(&desc->off, __ATOMIC_RELAXED);
	out->len = __atomic_load_n(&desc->len, __ATOMIC_RELAXED);
	out->ifindex = __atomic_load_n(&desc->ifindex, __ATOMIC_RELAXED);
	out->l3_off = __atomic_load_n(&desc->l3_off, __ATOMIC_RELAXED);
	out->proto = __atomic_load_n(&desc->proto, __ATOMIC_RELAXED);
	out->flags = __atomic_load_n(&desc->flags, __ATOMIC_RELAXED);
	out->tstamp = __atomic_load_n(&desc->tstamp, __ATOMIC_RELAXED);
}

/**
 * vj_pkt() - the packet a descriptor describes
 * @ch: mapped channel
 * @desc: descriptor (in the ring, or a vj_desc_copy() of one)
 * @len: set to the packet's length in the buffer
 *
 * Reads buf, off and len once and checks that buf < entries and
 * off + len <= buf_size.  A descriptor that fails is counted in
 * @ch->bad_desc; it must still be released like any other.  The packet bytes
 * live in shared memory until vj_release().
 *
 * Return: the packet's first byte, or NULL for an invalid descriptor.
 */
static inline const void *vj_pkt(struct vj_chan *ch,
				 const struct vj_desc *desc, __u32 *len)
{
	__u32 buf = __atomic_load_n(&desc->buf, __ATOMIC_RELAXED);
	__u32 off = __atomic_load_n(&desc->off, __ATOMIC_RELAXED);
	__u32 n = __atomic_load_n(&desc->len, __ATOMIC_RELAXED);

	if (buf >= ch->entries || off > ch->buf_size ||
	    n > ch->buf_size - off) {
		ch->bad_desc++;
		return NULL;
	}
	*len = n;
	return ch->bufs + (size_t)buf * ch->buf_size + off;
}

/**
 * vj_release() - hand descriptors and their buffers back to the kernel
 * @ch: mapped channel
 * @n: how many, from the first one vj_peek() returned; capped at the
 *	number vj_peek() has seen ready
 *
 * Stores the consumer index with release semantics (D, matches A): every
 * read of the released packets happens before the kernel reuses them.
 */
static inline void vj_release(struct vj_chan *ch, unsigned n)
{
	__u32 avail = ch->cached_prod - ch->cached_cons;

	if (n > avail)
		n = avail;
	ch->cached_cons += n;
	/* (D), matches (A): done with the buffers. */
	__atomic_store_n(ch->consumer, ch->cached_cons, __ATOMIC_RELEASE);
}

/**
 * vj_chan_dead() - whether the bound device has gone away
 * @ch: mapped channel
 *
 * Once set (VJ_RING_F_DEAD), no more packets will arrive; those already in
 * the ring can still be read.
 *
 * Return: nonzero if the device is gone.
 */
static inline int vj_chan_dead(const struct vj_chan *ch)
{
	return !!(__atomic_load_n(ch->flags, __ATOMIC_ACQUIRE) & /* F, matches E */
		  VJ_RING_F_DEAD);
}

/**
 * vj_wait() - wait for packets
 * @ch: mapped channel
 * @timeout_ms: as for poll(): -1 waits forever, 0 does not block
 *
 * If the ring is empty, calls poll() for POLLIN, even for a timeout of 0:
 * packets that came through the driver API enter the ring only when the
 * consumer polls.
 *
 * Return: the number of descriptors ready (> 0), 0 on timeout, -EINTR if a
 * signal interrupted the wait, -ENODEV if the device is gone and the ring is
 * empty, the socket error (POLLERR) as -errno, or -errno of poll().
 */
int vj_wait(struct vj_chan *ch, int timeout_ms);

/* Enough for any vj_flow_format() result. */
#define VJ_FLOW_STRLEN	192

/**
 * vj_flow_parse() - build a flow id from text
 * @spec: "KIND [KEY VALUE]..." separated by blanks; KIND is one of ip4, ip6,
 *	udp4, udp6, tcp4, tcp6, udplite4, udplite6, sctp4, sctp6, dccp4,
 *	dccp6 (ip4/ip6: any protocol); keys, each at most once: sport N,
 *	dport N, saddr ADDR, daddr ADDR, dev NAME or ifindex N, proto P (a
 *	number or one of the protocol names above, for ip4/ip6)
 * @flow: set to the flow id; fields not given are wildcards
 *
 * Example: "udp6 dport 9000 daddr 2001:db8::1 dev eth0".
 *
 * Return: 0, -EINVAL for a malformed spec, -ENODEV for an unknown device.
 */
int vj_flow_parse(const char *spec, struct vj_flow *flow);

/**
 * vj_flow_format() - the text form of a flow id
 * @flow: flow id
 * @buf: output, NUL-terminated if @len > 0
 * @len: size of @buf; VJ_FLOW_STRLEN always suffices
 *
 * The text is accepted by vj_flow_parse(); wildcards are left out and the
 * interface is given as "ifindex N".
 *
 * Return: the length of the text, -ENOSPC if it did not fit (@buf holds a
 * truncated copy), -EINVAL for a family other than AF_INET or AF_INET6.
 */
int vj_flow_format(const struct vj_flow *flow, char *buf, size_t len);

/**
 * vj_pattern_fill() - write the test payload pattern
 * @p: payload
 * @len: its length; the pattern is defined for @len >= 4, shorter payloads
 *	get the leading bytes of the sequence number
 * @seq: sequence number
 *
 * Bytes 0..3 are @seq in big-endian order, byte i >= 4 is (@seq + i) & 0xff.
 */
void vj_pattern_fill(void *p, size_t len, uint32_t seq);

/**
 * vj_pattern_check() - check a payload against the test pattern
 * @p: payload
 * @len: its length
 * @seq: set to the sequence number in the payload, if @len >= 4
 *
 * Return: 0 if @p holds the pattern for *@seq, -EINVAL if @len < 4,
 * -EBADMSG if a byte differs.
 */
int vj_pattern_check(const void *p, size_t len, uint32_t *seq);

/**
 * vj_udp_payload() - find the UDP payload of a received packet
 * @desc: the packet's descriptor (or a vj_desc_copy() of it), for flags and
 *	l3_off
 * @pkt: the packet, from vj_pkt()
 * @len: its length, from vj_pkt()
 * @plen: set to the payload length
 *
 * Skips the link header if VJ_DESC_F_L2 is set, then an IPv4 header (with
 * options) or the fixed IPv6 header and the UDP header.  The payload is
 * bounded by the IP and UDP lengths and by @len, so for a truncated packet
 * (VJ_DESC_F_TRUNC) it is the part that is present.
 *
 * Return: the first payload byte, or NULL if the packet is not an
 * unfragmented UDP datagram (no IPv6 extension headers) or is too short.
 */
const void *vj_udp_payload(const struct vj_desc *desc, const void *pkt,
			   __u32 len, __u32 *plen);

/**
 * struct vj_keyval - a key and its value in a text
 * @section: the label of the table the pair is in, or NULL
 * @section_len: the label's length, without its colon
 * @key: the key, not NUL-terminated
 * @key_len: its length
 * @value: the value, not NUL-terminated
 * @value_len: its length; 0 for a "KEY" line without a value
 *
 * The pointers point into the text given to vj_keyval_start().
 */
struct vj_keyval {
	const char	*section;
	size_t		section_len;
	const char	*key;
	size_t		key_len;
	const char	*value;
	size_t		value_len;
};

/**
 * struct vj_keyval_iter - where vj_keyval_next() is in a text
 *
 * All members are private.
 */
struct vj_keyval_iter {
	const char	*pos;
	const char	*words;
	const char	*values;
	const char	*section;
	size_t		section_len;
	int		state;
};

/**
 * vj_keyval_start() - start reading the keys and values of a text
 * @it: iterator to initialise
 * @text: NUL-terminated text; it must stay unchanged while @it is used
 */
void vj_keyval_start(struct vj_keyval_iter *it, const char *text);

/**
 * vj_keyval_next() - the next key and value of a text
 * @it: iterator from vj_keyval_start()
 * @kv: set to the pair found
 *
 * The text is read line by line; words are separated by blanks.  A line is
 * one of:
 *
 * - "KEY=VALUE KEY=VALUE ...", if its first word holds a '=' (the
 *   benchmark's result lines, the inject file of the test driver): one
 *   pair per word;
 * - "LABEL: KEY KEY ..." followed by "LABEL: VALUE VALUE ..." with the
 *   same label (/proc/net/snmp): one pair per column, with @kv->section
 *   set to the label;
 * - "KEY VALUE" otherwise (/proc/net/vjchan_pool): the first word is the
 *   key, the rest of the line without its outer blanks the value;
 * - blank, and skipped.
 *
 * Return: 1 with @kv set, 0 at the end of the text, or -EBADMSG for a word
 * of a KEY=VALUE line without a '=' or with an empty key, or for a table
 * whose two lines have different numbers of words (the iterator is then
 * past the bad part, so reading may go on).
 */
int vj_keyval_next(struct vj_keyval_iter *it, struct vj_keyval *kv);

/**
 * vj_keyval_find() - the first pair of a text with a given name
 * @text: NUL-terminated text, in the forms of vj_keyval_next()
 * @name: "KEY" for a pair outside tables, "LABEL:KEY" for one in a table
 *	(e.g. "Udp:RcvbufErrors")
 * @kv: set to the pair found
 *
 * Malformed parts of the text are skipped.
 *
 * Return: 0, or -ENOENT if no pair has that name.
 */
int vj_keyval_find(const char *text, const char *name, struct vj_keyval *kv);

/**
 * vj_keyval_int() - the value of a named pair as an integer
 * @text: as for vj_keyval_find()
 * @name: as for vj_keyval_find()
 * @val: set to the value
 *
 * Return: 0, -ENOENT if no pair has that name, -EINVAL if its value is not
 * a decimal integer (an optional '-', then digits only), -ERANGE if it does
 * not fit a long long.
 */
int vj_keyval_int(const char *text, const char *name, long long *val);

/**
 * vj_keyval_double() - the value of a named pair as a floating-point number
 * @text: as for vj_keyval_find()
 * @name: as for vj_keyval_find()
 * @val: set to the value
 *
 * Return: 0, -ENOENT if no pair has that name, -EINVAL if its value is not
 * a number strtod() takes whole, -ERANGE if it overflows.
 */
int vj_keyval_double(const char *text, const char *name, double *val);

#ifdef __cplusplus
}
#endif

#endif /* LIBVJCHAN_H */
