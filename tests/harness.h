/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-guest test suite for vjchan: shared declarations.
 *
 * Every case runs in a forked child with its own process group and an
 * alarm; it passes by returning 0 and fails through fail(), which records
 * the reason in memory shared with the runner and exits.  The runner
 * prints exactly one line per case.
 *
 * The helpers below are the suite's face of the shared test library in
 * tests/lib (see tests/README), which the fuzzer, the stress test and the
 * benchmark receivers use too: those here end the case with fail() or
 * skip() where the library returns the reason.  The consumer side of the
 * ring is written from the uapi header alone (no libvjchan), with C11
 * acquire/release atomics.
 */
#ifndef _VJ_HARNESS_H
#define _VJ_HARNESS_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <linux/vjchan.h>

#include "lib/csum.h"
#include "lib/pattern.h"
#include "lib/pkt.h"
#include "lib/proc.h"
#include "lib/ring.h"
#include "lib/util.h"
#include "lib/vjtest.h"

struct vj_case {
	const char *name;
	int (*fn)(void);
	unsigned int timeout;		/* seconds; 0 means the default */
};

#define VJ_CASE(n, f)		{ .name = (n), .fn = (f) }
#define VJ_CASE_T(n, f, t)	{ .name = (n), .fn = (f), .timeout = (t) }

extern const struct vj_case abi_cases[];
extern const struct vj_case bind_cases[];
extern const struct vj_case mmap_cases[];
extern const struct vj_case match_cases[];
extern const struct vj_case match2_cases[];
extern const struct vj_case group_cases[];
extern const struct vj_case ring_cases[];
extern const struct vj_case driver_cases[];
extern const struct vj_case hostile_cases[];
extern const struct vj_case udp_cases[];
extern const struct vj_case udp2_cases[];
extern const struct vj_case udp3_cases[];
extern const struct vj_case udp_deliver_cases[];
extern const struct vj_case udp_group_cases[];
extern const struct vj_case udp_large_cases[];
extern const struct vj_case lifecycle_cases[];
extern const struct vj_case firewall_cases[];
extern const struct vj_case trust_cases[];

/* harness.c: reporting */
extern int vj_case_index;
void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail_inherit(void) __attribute__((noreturn));
void vj_reason_setup(void);
const char *vj_reason_text(void);
const char *vj_step_text(void);
void vj_reason_clear(void);

#define EXIT_SKIP	77

/* expr must fail with -1 and errno err. */
#define EXPECT_ERR(expr, err, ...) do {					\
	long __r = (long)(expr);					\
	int __e = errno;						\
	if (__r != -1 || __e != (err)) {				\
		char __w[256];						\
		snprintf(__w, sizeof(__w), __VA_ARGS__);		\
		fail("%s: expected %s, got %s", __w, errname(err),	\
		     __r == -1 ? errname(__e) : "success");		\
	}								\
} while (0)

/* expr must not return -1. */
#define EXPECT_OK(expr, ...) do {					\
	long __r = (long)(expr);					\
	int __e = errno;						\
	if (__r == -1) {						\
		char __w[256];						\
		snprintf(__w, sizeof(__w), __VA_ARGS__);		\
		fail("%s: %s", __w, errname(__e));			\
	}								\
} while (0)

#define CHECK(cond, ...) do {						\
	if (!(cond))							\
		fail(__VA_ARGS__);					\
} while (0)

/* Polls cond every 5 ms for at most ms milliseconds; true if it held. */
#define WAIT_FOR(cond, ms) ({						\
	uint64_t __end = now_ns() + (uint64_t)(ms) * 1000000ull;	\
	bool __ok;							\
	while (!(__ok = (cond)) && now_ns() < __end)			\
		msleep(5);						\
	__ok;								\
})

/* harness.c: processes, capabilities, namespaces (time: lib/util.h) */
uint16_t tport(unsigned int n);		/* a UDP port private to this case */
void in_child(void (*fn)(void *), void *arg);
void caps_drop(const int *caps, int n);
void pin_cpu(int cpu);
void netns_new(void);
int netns_fd_self(void);
void if_up(const char *name);
unsigned int ifindex_of(const char *name);
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * harness.c: channels; each fails the case where it cannot do its
 * job.  struct test_chan, struct test_pkt, test_set_ring(), test_bind(),
 * chan_init(), chan_producer(), chan_set_consumer() and chan_pending()
 * are in lib/ring.h.
 */
struct vj_flow flow4(uint8_t proto, const char *saddr, uint16_t sport,
		     const char *daddr, uint16_t dport, uint32_t ifindex);
struct vj_flow flow6(uint8_t proto, const char *saddr, uint16_t sport,
		     const char *daddr, uint16_t dport, uint32_t ifindex);
int test_socket(void);
struct vj_ring_req test_get_ring(int fd);
struct vj_mmap_offsets test_get_offsets(int fd);
struct vj_statistics test_get_stats(int fd);
uint64_t vj_stat_total(int fd);		/* rx_packets + rx_ring_full */
bool vj_wait_total(int fd, uint64_t n, int ms);
void chan_map(struct test_chan *c);
void chan_unmap(struct test_chan *c);
void chan_open(struct test_chan *c, const struct vj_flow *f,
	       uint32_t entries, uint32_t buf_size);
void chan_close(struct test_chan *c);
int chan_peek_at(struct test_chan *c, uint32_t idx, struct test_pkt *p);
int chan_try(struct test_chan *c, struct test_pkt *p);
int chan_recv(struct test_chan *c, struct test_pkt *p, int ms);
void chan_expect_empty(struct test_chan *c, const char *what);

/*
 * harness.c: packets.  struct pkt_info, pkt_parse(), pkt_check_csums()
 * are in lib/pkt.h, payload_fill() and payload_check() in lib/pattern.h,
 * csum_add() and csum_fold32() in lib/csum.h.
 */
void pkt_expect_udp(const struct test_pkt *p, struct pkt_info *pi,
		    uint32_t *seq);

/* harness.c: ordinary UDP traffic */
struct udp_tx {
	int fd;
	int family;
	struct sockaddr_storage dst;
	socklen_t dlen;
};

int parse_addr(const char *s, uint16_t port, struct sockaddr_storage *ss,
	       socklen_t *len);
void tx_open(struct udp_tx *t, const char *saddr, uint16_t sport,
	     const char *daddr, uint16_t dport);
void tx_send(struct udp_tx *t, uint32_t seq, uint32_t len);
void tx_close(struct udp_tx *t);
void udp_send(const char *saddr, uint16_t sport, const char *daddr,
	      uint16_t dport, uint32_t seq, uint32_t len);
int udp_listen(const char *addr, uint16_t port);
int udp_recv_seq(int fd, int ms, uint32_t *seq, uint32_t *len);

/* t_match.c: where a datagram went (channel index, or these) */
#define WITNESS		(-1)
#define NOWHERE		(-2)
#define SEQ_BASE	0x5a000000u

int where_is(struct test_chan *ch, int n, int witness, uint32_t want, int ms);
void expect_route(struct test_chan *ch, int n, int witness, const char *saddr,
		  uint16_t sport, const char *daddr, uint16_t dport, int want,
		  const char *what);

/* harness.c: /proc and the test driver (more in lib/proc.h, lib/vjtest.h) */
long long pool_get(const char *key);
bool pool_settled(int ms);
long long live_baseline(void);
int proc_chan_lines(void);
int proc_chan_find(unsigned long ino, char fields[][64], int max);
unsigned long sock_ino(int fd);
int vjt_ifindex(void);			/* skips the case if vjtest0 is absent */
int vjt_inject(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long long vjt_stat(const char *key);

#endif /* _VJ_HARNESS_H */
