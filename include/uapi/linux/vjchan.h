/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vjchan: Van Jacobson network channels for Linux.
 *
 * This header is the whole user ABI of the PF_VJCHAN socket family.
 *
 * A channel is a socket bound to a flow id.  Packets of that flow are placed
 * by the kernel into preallocated buffers and announced through a
 * single-producer/single-consumer descriptor ring.  The ring and the buffers
 * are mapped into the receiving process with one mmap() call.
 *
 *   fd = socket(AF_VJCHAN, SOCK_DGRAM, 0);
 *   setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req));     optional
 *   bind(fd, (struct sockaddr *)&addr, sizeof(addr));           flow id
 *   getsockopt(fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, &off, &len);
 *   map = mmap(NULL, off.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
 *   (a direct channel: in two parts, see struct vj_mmap_offsets)
 *   poll(fd, POLLIN) ... read descriptors ... advance the consumer index.
 *
 * Ring protocol (see vjchan(7); the barrier pairing is documented with the
 * kernel's ring code, vj_ring.h, and mirrored in libvjchan's vjchan.h):
 * the kernel owns "producer", user space owns "consumer".  Both are
 * free-running 32-bit indices; slot i is desc[i & (entries - 1)].  Entries
 * between consumer and producer belong to user space; advancing consumer
 * hands their buffers back to the kernel.  The kernel validates every
 * consumer value it reads: a value outside [last valid consumer, producer]
 * is ignored and counted in vj_statistics.rx_invalid_cons.
 */
#ifndef _UAPI_LINUX_VJCHAN_H
#define _UAPI_LINUX_VJCHAN_H

#include <linux/types.h>

/*
 * Address family.  Linux 6.12 defines AF_ECONET (19) but no longer registers
 * it: the Econet protocol was removed in Linux 3.5, so sock_register() of
 * this number does not clash with any in-tree family, and the number is
 * below AF_MAX, as sock_register() requires.  See docs/DESIGN.md.
 */
#define AF_VJCHAN		19
#define PF_VJCHAN		AF_VJCHAN

/*
 * The protocol argument of socket(AF_VJCHAN, SOCK_DGRAM, protocol):
 *
 * VJ_PROTO_RAW: the raw channel described above (needs CAP_NET_RAW).
 * VJ_PROTO_UDP4, VJ_PROTO_UDP6: a UDP channel socket, IPv4 or IPv6 (IPv6
 *	only, as with IPV6_V6ONLY).  It is bound with a struct sockaddr_in or
 *	sockaddr_in6, reserves its port against ordinary UDP sockets through
 *	a UDP socket created in the caller's context (the port holder), and
 *	receives UDP payloads with recvmsg() and the other receive calls:
 *	UDP delivers the datagrams (in bypass mode the fast paths first), the
 *	kernel consumes the ring in the receiving call, verifying the IP and
 *	UDP headers and the checksum there.  Sending goes through the port
 *	holder.  Needs no capability.  Its flow id is {family, IPPROTO_UDP,
 *	daddr = the bound address or any, dport = the port}; connect()
 *	narrows it to the peer (saddr and sport = the peer's, daddr = the
 *	local address connect() chose for a wildcard-bound socket) and a
 *	disconnect widens it back, unless another channel has the new flow
 *	id: the channel then keeps its own.  SO_REUSEADDR and SO_REUSEPORT
 *	apply to the port as on UDP; channels that UDP delivers to share a
 *	flow id as UDP lets them share the port, bypass channels as members
 *	of one SO_REUSEPORT group (the fast paths spread flows over them).
 *	See vjchan(7),
 *	"UDP channel sockets".
 */
#define VJ_PROTO_RAW		0
#define VJ_PROTO_UDP4		1
#define VJ_PROTO_UDP6		2

/* Socket option level (no in-tree SOL_* uses this value). */
#define SOL_VJCHAN		299

/**
 * union vj_addr - an IPv4 or IPv6 address in network byte order
 * @ip4: IPv4 address; for AF_INET flows the other 12 bytes must be zero
 * @ip6: IPv6 address as four 32-bit words
 * @bytes: the same 16 bytes
 *
 * All zero means "any address".
 */
union vj_addr {
	__be32	ip4;
	__be32	ip6[4];
	__u8	bytes[16];
};

/**
 * struct vj_flow - flow id: which packets a channel receives
 * @family: AF_INET (2) or AF_INET6 (10); never a wildcard
 * @proto: IP protocol (IPPROTO_UDP, IPPROTO_TCP, ...); 0 = any
 * @pad: must be zero
 * @sport: source port, network byte order; 0 = any
 * @dport: destination port, network byte order; 0 = any
 * @ifindex: receiving interface; 0 = any
 * @saddr: source address; all zero = any
 * @daddr: destination address; all zero = any
 *
 * Ports are taken from TCP, UDP, UDP-Lite, SCTP and DCCP headers; packets of
 * other protocols have port 0 and so only match flows whose ports are both
 * wildcards.  In IPv6 the protocol and ports are those after the extension
 * headers: hop-by-hop, routing, destination options, AH (the packet is
 * classified by its inner ports, not authenticated) and a fragment header
 * with offset and flags zero are skipped, alike on every receive path; "no
 * next header" leaves a packet to the stack.  Fragments are never
 * classified one by one: an IPv4 datagram is classified once reassembled,
 * and reaches its channel through the filtered path (VJ_DESC_F_FILTERED),
 * whatever the channel's firewall mode; IPv6 fragments are reassembled
 * before that path only when conntrack is active in the namespace, and
 * otherwise go to the stack.
 *
 * When several channels match a packet the most specific one wins: the one
 * with more non-wildcard fields; between equally many, the one whose
 * non-wildcard fields rank higher in the order dport, daddr, sport, saddr,
 * proto, ifindex (compared as a bitmask, most significant first).  Two
 * channels may not have the same flow id (EADDRINUSE), so at most one
 * channel ever wins.
 */
struct vj_flow {
	__u16		family;
	__u8		proto;
	__u8		pad;
	__be16		sport;
	__be16		dport;
	__u32		ifindex;
	union vj_addr	saddr;
	union vj_addr	daddr;
};

/**
 * struct sockaddr_vj - the address passed to bind() and got by getsockname()
 * @svj_family: AF_VJCHAN
 * @svj_flags: the firewall mode (VJ_BIND_FW_*) and VJ_BIND_F_* bits; other
 *	bits must be zero (EINVAL)
 * @svj_flow: the flow id
 *
 * bind() takes at least sizeof(struct sockaddr_vj) bytes; bytes beyond it
 * must be zero (E2BIG otherwise), so the structure can grow.  Binding needs
 * CAP_NET_ADMIN in the user namespace that owns the socket's network
 * namespace (EPERM otherwise): a channel takes packets away from whatever
 * socket would have received them, so claiming traffic is an administrative
 * act, as configuring the firewall is.  See vjchan(7), "Privilege".
 */
struct sockaddr_vj {
	__u16		svj_family;
	__u16		svj_flags;
	struct vj_flow	svj_flow;
};

/*
 * Firewall mode of a channel (svj_flags & VJ_BIND_FW_MASK):
 *
 * VJ_BIND_FW_FILTERED (the default): packets are claimed only after the
 *	firewall's input hooks accepted them: at NF_INET_LOCAL_IN, after the
 *	filter and security tables, with the conntrack entry confirmed.  Every
 *	verdict, counter, log and rate limit of the ruleset applies, and IPv4
 *	fragments arrive reassembled.  The fast paths (the pre-routing hook,
 *	the driver API, XDP) never serve these channels.
 * VJ_BIND_FW_SANCTIONED: like filtered, except for connections that the
 *	ruleset marks: once the filtered path has delivered a packet whose
 *	conntrack mark has all the bits of the module parameter sanction_mark
 *	(0, the default, sanctions nothing), the fast paths deliver that
 *	connection's later packets, keep its conntrack entry alive and add
 *	them to its packet and byte counters (with nf_conntrack_acct on),
 *	until the entry dies or the channel is unbound.  See vjchan(7).  Binding
 *	fails with EOPNOTSUPP on a kernel without conntrack marks
 *	(CONFIG_NF_CONNTRACK_MARK).
 * VJ_BIND_FW_BYPASS: claimed at the earliest point with no firewall at all.
 *
 * VJ_BIND_F_TRANSIT: also take packets not addressed to this host
 *	(forwarded, bridged with br_netfilter, not yet de-NATed).  Without it
 *	the fast paths take only packets whose destination is a local,
 *	broadcast or multicast address; the filtered path sees only local
 *	traffic anyway.
 *
 * VJ_BIND_F_DIRECT (bypass only, svj_flow.ifindex naming a device whose
 *	driver offers direct receive, vjnet): the channel owns the device's
 *	receive queue, and the device writes frames straight into the
 *	channel's own ring buffers, which user space has mapped: no copy at
 *	all.  Frames of the channel's flow are published in place (descriptor
 *	flag VJ_DESC_F_DIRECT, counter rx_direct); all other frames on the
 *	queue are copied out to the stack.  vjnet has one receive queue, so
 *	the owner takes over the whole receive side of the device.  Buffers
 *	must fit in a page (buf_size <= the page size).  While a frame is in
 *	the ring, user space owns its buffer; descriptors of direct frames
 *	name any buffer (desc.buf), not the slot's own, and the frame starts
 *	at desc.off.  User space can never write the buffers: a mapping that
 *	covers them must lack PROT_WRITE (EACCES) and cannot gain it
 *	(mprotect() fails with EACCES); map the ring in two parts, the
 *	buffers read-only (struct vj_mmap_offsets).  The kernel classifies a
 *	private copy of a frame's headers and gives the stack an skb built
 *	from that copy, so the owner can lose only its own frames and cannot
 *	change what the stack receives.  bind() fails with EINVAL without
 *	VJ_BIND_FW_BYPASS or without an ifindex, ENODEV if there is no such
 *	device, EOPNOTSUPP if its driver has no direct receive, EMSGSIZE if
 *	buf_size exceeds a page, EBUSY if another channel owns the queue or
 *	if the ring was ever mapped so that its buffers could be written.
 *	See vjchan(7).
 */
#define VJ_BIND_FW_MASK		0x0003
#define VJ_BIND_FW_FILTERED	0x0000
#define VJ_BIND_FW_SANCTIONED	0x0001
#define VJ_BIND_FW_BYPASS	0x0002
#define VJ_BIND_F_TRANSIT	0x0004
#define VJ_BIND_F_DIRECT	0x0008

/* Socket options, level SOL_VJCHAN. */
#define VJ_RING			1	/* set/get struct vj_ring_req */
#define VJ_MMAP_OFFSETS		2	/* get struct vj_mmap_offsets */
#define VJ_STATISTICS		3	/* get struct vj_statistics */
/*
 * UDP channel sockets only (ENOPROTOOPT on raw channels): set/get a __u32,
 * the firewall mode VJ_BIND_FW_* for the coming bind (default filtered).
 * EINVAL for other bits (VJ_BIND_F_TRANSIT included), EOPNOTSUPP as for
 * svj_flags, EPERM for VJ_BIND_FW_BYPASS without CAP_NET_ADMIN, EBUSY once
 * bound.
 */
#define VJ_BIND_FLAGS		4
/*
 * set/get struct vj_group_req: the group the coming bind joins and how a
 * group's packets are spread over its members.  EBUSY once bound.
 */
#define VJ_GROUP		5

/* Ring geometry limits and defaults. */
#define VJ_RING_MIN_ENTRIES	8
#define VJ_RING_MAX_ENTRIES	32768
#define VJ_RING_DEF_ENTRIES	256
#define VJ_BUF_MIN_SIZE		2048
#define VJ_BUF_MAX_SIZE		65536
#define VJ_BUF_DEF_SIZE		2048

/**
 * struct vj_ring_req - ring geometry (VJ_RING)
 * @entries: number of descriptors, a power of two in
 *	[VJ_RING_MIN_ENTRIES, VJ_RING_MAX_ENTRIES]; there is one buffer per
 *	descriptor
 * @buf_size: bytes per buffer, a power of two in
 *	[VJ_BUF_MIN_SIZE, VJ_BUF_MAX_SIZE]
 * @flags: must be zero (no flags are defined yet)
 * @pad: must be zero
 *
 * Set before the ring exists: the ring is created, with the geometry set or
 * the defaults, by the first bind() or mmap().  Setting it afterwards fails
 * with EBUSY.  optlen must be at least sizeof(struct vj_ring_req); bytes
 * beyond it must be zero (E2BIG).  The memory is charged to RLIMIT_MEMLOCK
 * unless the caller has CAP_IPC_LOCK (over it, ENOBUFS), and to the memory
 * cgroup of the task that creates the ring (over memory.max, ENOMEM).
 */
struct vj_ring_req {
	__u32	entries;
	__u32	buf_size;
	__u32	flags;
	__u32	pad;
};

/**
 * struct vj_group_req - a channel group (VJ_GROUP)
 * @id: raw channels: 0 (the default) for no group; otherwise channels
 *	bound with the same flow id, firewall mode, @id and @spread share
 *	that flow id as one group, and each packet of the flow goes to one
 *	member (a channel with the same flow id but another @id, @spread or
 *	firewall mode fails to bind with EADDRINUSE).  UDP channel sockets:
 *	must be 0 (EINVAL); their group is the holder's SO_REUSEPORT group.
 * @spread: how the fast paths, and for raw channels the filtered path,
 *	choose a group's member (VJ_SPREAD_*); EINVAL for other values.
 *	On UDP channel sockets it applies to bypass and sanctioned members
 *	of one SO_REUSEPORT group, which must all set the same (EADDRINUSE);
 *	UDP chooses among filtered ones by its own rules.
 * @pad: must be zero
 *
 * Set before bind(); bind() fails with EINVAL for a group with
 * VJ_BIND_F_DIRECT (a direct channel owns its device's queue alone).
 * optlen must be at least sizeof(struct vj_group_req); bytes beyond it
 * must be zero (E2BIG).  Members join and leave by bind() and close();
 * either moves flows between members, as in a reuseport group.  The
 * members are in the order of their binds, the newest first.
 */
struct vj_group_req {
	__u32	id;
	__u16	spread;
	__u16	pad;
};

/*
 * VJ_SPREAD_HASH (the default): the hash of the packet's addresses and
 *	ports, modulo the members: a flow stays with one member.
 * VJ_SPREAD_CPU: the number of the CPU that received the packet, modulo
 *	the members: what one CPU receives goes to one member.
 * VJ_SPREAD_CONSUMER: the member whose consumer last ran on the CPU that
 *	received the packet (the CPU of the member's latest poll(), select()
 *	or epoll_wait() on the socket, or of its latest receiving call on a
 *	UDP channel socket); if none did, as VJ_SPREAD_HASH.  A consumer that
 *	stays on one CPU thus gets what that CPU receives, and the packet's
 *	data is used on the CPU that took it in.
 * No rule writes shared memory per packet: there is no round robin.
 */
#define VJ_SPREAD_HASH		0
#define VJ_SPREAD_CPU		1
#define VJ_SPREAD_CONSUMER	2

/**
 * struct vj_mmap_offsets - where things are in the mapping (VJ_MMAP_OFFSETS)
 * @producer: offset of the __u32 producer index (written by the kernel)
 * @consumer: offset of the __u32 consumer index (written by user space)
 * @flags: offset of a __u32 of VJ_RING_F_* status bits (written by the kernel)
 * @desc: offset of the descriptor array, entries * sizeof(struct vj_desc)
 * @bufs: offset of the first buffer; buffer n is at bufs + n * buf_size
 * @size: length to pass to mmap() at offset 0
 * @entries: number of descriptors (a power of two)
 * @buf_size: bytes per buffer
 *
 * The producer and consumer indices are on cache lines of their own.  The
 * layout may change between kernels: always use these offsets.
 *
 * The area is mapped whole (offset 0, length size) or in two parts: the
 * pages before the buffers (offset 0, length bufs) and the buffers alone
 * (offset bufs, a multiple of the page size, length size - bufs); any
 * other offset or length fails with EINVAL.  A mapping of the buffers
 * alone made without PROT_WRITE can never become writable (mprotect()
 * fails with EACCES); a direct channel's buffers (VJ_BIND_F_DIRECT) can
 * only be mapped so.
 */
struct vj_mmap_offsets {
	__u64	producer;
	__u64	consumer;
	__u64	flags;
	__u64	desc;
	__u64	bufs;
	__u64	size;
	__u32	entries;
	__u32	buf_size;
};

/*
 * Bits of the ring's flags word.  VJ_RING_F_DEAD: the bound device went away;
 * descriptors already published stay readable, no more will come, poll()
 * reports POLLHUP (and POLLERR until SO_ERROR is read).  Read the flags word
 * with acquire ordering, then the producer index, to drain the last ones.
 */
#define VJ_RING_F_DEAD		(1U << 0)

/**
 * struct vj_desc - one received packet
 * @buf: index of the buffer holding the packet, below entries
 * @off: offset of the packet's first byte within that buffer
 * @len: bytes of the packet present in the buffer
 * @ifindex: interface the packet arrived on
 * @l3_off: offset of the network (IP) header from the packet's first byte
 * @proto: ethertype of the network header, network byte order
 * @flags: VJ_DESC_F_*
 * @tstamp: CLOCK_MONOTONIC time in ns at which the kernel took the packet
 */
struct vj_desc {
	__u32	buf;
	__u32	off;
	__u32	len;
	__u32	ifindex;
	__u16	l3_off;
	__be16	proto;
	__u32	flags;
	__u64	tstamp;
};

#define VJ_DESC_F_L2		(1U << 0)	/* starts with the link header */
#define VJ_DESC_F_TRUNC		(1U << 1)	/* cut to the buffer size */
/*
 * Which path fed the packet: at most one of these bits is set; none means
 * the pre-routing hook (a bypass channel fed by an unmodified driver).
 */
#define VJ_DESC_F_DRIVER	(1U << 2)	/* the driver API */
#define VJ_DESC_F_XDP		(1U << 3)	/* an XDP program */
#define VJ_DESC_F_FILTERED	(1U << 4)	/* after the firewall (LOCAL_IN) */
/*
 * The UDP or TCP checksum is known to be correct: the device verified it,
 * or the kernel did, or the kernel completed one that the sender left to
 * the device (a virtual device passing on its host's own traffic, or a
 * large frame the kernel cut into wire frames).  Without the bit the verdict is unknown (another
 * protocol, an IPv4 UDP datagram without a checksum, a driver that gave no
 * verdict): check it yourself if it matters.  A packet whose checksum is
 * known to be wrong is never delivered; it is counted in rx_csum_bad.  On
 * a UDP channel socket the kernel takes only the device's verdict on the
 * way in and leaves a packet without one to the receiving call, which sums
 * it (rx_udp_bad_csum).
 */
#define VJ_DESC_F_CSUM_OK	(1U << 5)
/*
 * Written by the device into this buffer, never copied (VJ_BIND_F_DIRECT;
 * with VJ_DESC_F_DRIVER).  desc.buf may be any buffer of the ring.
 */
#define VJ_DESC_F_DIRECT	(1U << 6)
/*
 * UDP channel sockets: a datagram that UDP delivered and that does not fit
 * a buffer (up to 64 KiB, reassembled from fragments) is held by the kernel
 * instead of copied; its descriptor keeps its place in the ring with len 0.
 * Only the receiving calls (recvmsg() and the like) read it; a consumer of
 * the mapping that moves past it drops it.
 */
#define VJ_DESC_F_HELD		(1U << 7)

/**
 * struct vj_statistics - channel counters (VJ_STATISTICS)
 * @rx_packets: packets placed in the ring
 * @rx_bytes: bytes of those packets (as stored, see VJ_DESC_F_TRUNC; of a
 *	held datagram, VJ_DESC_F_HELD, its UDP payload)
 * @rx_ring_full: packets of this flow dropped because the ring was full
 * @rx_invalid_cons: consumer index values read and rejected as invalid
 * @rx_truncated: packets placed in the ring but cut to the buffer size
 * @rx_driver: of rx_packets, those that came through the driver API
 * @rx_hook: of rx_packets, those taken by the pre-routing hook
 * @rx_xdp: of rx_packets, those taken by an XDP program
 * @rx_filtered: of rx_packets, those taken after the firewall (LOCAL_IN)
 * @rx_csum_bad: packets of this flow dropped: bad UDP or TCP checksum
 * @rx_udp_bad_csum: UDP channel sockets: of rx_packets, datagrams the
 *	receiving call dropped for a bad UDP checksum
 * @rx_udp_malformed: UDP channel sockets: of rx_packets, packets the
 *	receiving call dropped as not a well-formed UDP datagram of the
 *	socket's family and port (bad IP or UDP header or length, a fragment,
 *	cut to the buffer size (VJ_DESC_F_TRUNC))
 * @rx_udp_not_peer: UDP channel sockets: of rx_packets, datagrams the
 *	receiving call dropped because they were not from the connected peer
 * @rx_direct: of rx_driver, those the device wrote into the ring's own
 *	buffer, delivered without any copy (VJ_BIND_F_DIRECT)
 *
 * Every packet that matched the channel is counted in exactly one of
 * rx_packets, rx_ring_full and rx_csum_bad; each packet in rx_packets in
 * exactly one of
 * rx_driver, rx_hook, rx_xdp and rx_filtered.  On a UDP channel socket the
 * receiving calls take packets out of the ring: each is either delivered
 * or counted in exactly one of rx_udp_bad_csum, rx_udp_malformed and
 * rx_udp_not_peer.  A GRO aggregate is cut back
 * into the packets it was made of, and each of them is counted.
 *
 * For every getsockopt() of this family, optlen must be at least the
 * structure's first size (EINVAL otherwise): sizeof() of it in this header,
 * except VJ_STATISTICS_SIZE_V1 for this one, which has grown.  The kernel
 * copies min(optlen, the size it has) bytes and sets optlen to that.
 */
struct vj_statistics {
	__u64	rx_packets;
	__u64	rx_bytes;
	__u64	rx_ring_full;
	__u64	rx_invalid_cons;
	__u64	rx_truncated;
	__u64	rx_driver;
	__u64	rx_hook;
	__u64	rx_xdp;
	__u64	rx_filtered;
	__u64	rx_csum_bad;
	__u64	rx_udp_bad_csum;
	__u64	rx_udp_malformed;
	__u64	rx_udp_not_peer;
	__u64	rx_direct;
};

/* The size of struct vj_statistics before rx_hook was added. */
#define VJ_STATISTICS_SIZE_V1	48

#endif /* _UAPI_LINUX_VJCHAN_H */
