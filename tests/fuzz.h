/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz: a seeded, time-bounded fuzzer for the PF_VJCHAN socket family.
 * fuzz_main.c says what it does; the files split it by concern:
 *
 *   fuzz_gen_sock.c  generators of the socket calls: socket(), the
 *                    options, bind(), getsockname(), the refused calls
 *   fuzz_gen_fd.c    generators of the file calls: close(), dup(), poll(),
 *                    epoll, fork(), reads of /proc/net/vjchan
 *   fuzz_gen_mem.c   generators of the memory calls: mmap(), munmap(),
 *                    mremap(), and the consumer and scribbler of rings
 *   fuzz_gen_pkt.c   generators of traffic: UDP and malformed raw IP
 *                    packets over lo, frames through the driver API
 *   fuzz_model.c     the model: every socket, descriptor and mapping, and
 *                    what vjchan(7) lets each call return in that state
 *   fuzz_check.c     the checks: each result against the model, every
 *                    descriptor of a clean ring, the values read back
 */
#ifndef _VJ_FUZZ_H
#define _VJ_FUZZ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/vjchan.h>

#include "lib/util.h"

#define PBASE		41000	/* fuzzed UDP ports: PBASE .. PBASE + NPORTS - 1 */
#define NPORTS		16
#define MAX_SOCKS	48
#define MAX_FDS		96
#define MAX_MAPS	48
#define MAX_EPKEYS	256
/* Ring memory the fuzzer lets exist at once: the guest has 1 GiB. */
#define RING_MAX_ONE	(8u << 20)
#define RING_BUDGET	(64u << 20)
#define SVJ_LEN		((int)sizeof(struct sockaddr_vj))
#define SS_LEN		((int)sizeof(struct sockaddr_storage))
#define ZBUF_LEN	(2u << 20)
#define HIST		24

/* --- run state (fuzz_main.c) ---------------------------------------- */

enum {
	O_SOCKET, O_SOCKET_BAD, O_SETSOCKOPT, O_GETSOCKOPT, O_SOLSOCKET,
	O_BIND, O_GETSOCKNAME, O_MMAP, O_MUNMAP, O_MREMAP, O_POLL, O_EPOLL,
	O_CLOSE, O_DUP, O_FORK, O_SEND, O_RAW, O_INJECT, O_CONSUME,
	O_SCRIBBLE, O_REFUSED, O_PROC, O_NR
};

struct opstat {
	const char *name;
	unsigned long n, ok;
};

extern struct rng R;			/* the main thread's: the op sequence */
extern uint64_t seed;
extern unsigned long opno;
extern char opdesc[1024];
extern bool failed;
extern uint64_t t_start;
extern long pg;
extern atomic_int stop_threads;
extern struct opstat ops[O_NR];
extern unsigned long descs_checked, descs_classified;

extern int if_lo, if_vjt, if_eth0, if_eth1;
extern uint8_t *gbuf, *guard_end;	/* 2 pages, then a PROT_NONE page */
extern uint8_t *zbuf;			/* ZBUF_LEN of zeros, then PROT_NONE */
extern int udp4, udp6, raw4, raw6, injfd, epfd;
extern int thr_udp4, thr_udp6, thr_injfd;

void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void op_begin(int op, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void op_note(const char *res);
void op_ok(void);			/* the op had no result to check */

/* --- the model (fuzz_model.c) --------------------------------------- */

/*
 * The results a call may have: success if ok, else one of err[].  A
 * condition under which the documentation says the call fails adds its
 * errno and clears ok ("must"); a failure the call may have but need not
 * (no memory, a ring that may or may not exist) only adds its errno.
 * Which of several applicable errors wins is not documented, so any of
 * them is accepted.
 */
struct expect {
	bool ok;
	int n;
	int err[24];
};

void x_init(struct expect *x);
void x_may(struct expect *x, int e);
void x_must(struct expect *x, int e);
bool x_has(const struct expect *x, int e);
const char *x_str(const struct expect *x);

enum { RING_NO, RING_YES, RING_MAYBE };
extern const char *const ring_names[];

struct msock {
	bool live;
	bool clean;		/* nothing scribbles on it: check everything */
	unsigned int id;	/* serial number, never reused */
	int nfds;		/* descriptors referring to it */
	int nmaps;		/* live mappings of it */
	int ring;		/* RING_*: does the ring exist? */
	struct vj_ring_req req;	/* geometry the ring has or will have */
	struct vj_group_req group;	/* VJ_GROUP: what the bind joins */
	size_t ring_bytes;	/* charged to the budget while ring != NO */
	bool bound;
	uint16_t bind_flags;	/* svj_flags it was bound with */
	struct vj_flow flow;
	uint64_t bound_at;	/* CLOCK_MONOTONIC after bind() returned */
	unsigned long ino;
	uint32_t cons;		/* clean: the consumer index we stored */
	struct vj_statistics last;
};

struct mfd {
	bool live;
	int fd;
	int sock;
};

/* Read by the scribbler threads under map_lock, written under it. */
struct mmapping {
	bool live;
	bool clean;
	bool readable, writable;
	int sock;
	uint8_t *addr;
	size_t len, npages;
	uint8_t *present;	/* per page: still mapped */
	struct vj_mmap_offsets off;
};

struct epkey {
	bool live;
	unsigned int id;
	int fd;
};

extern struct msock socks[MAX_SOCKS];
extern struct mfd fds[MAX_FDS];
extern struct mmapping maps[MAX_MAPS];
extern pthread_rwlock_t map_lock;
extern size_t ring_total;

int live_socks(void);
int live_fds(void);
int pick_fd(void);
int pick_fd_pref(bool (*want)(const struct msock *), unsigned int pct);
bool sock_unbound(const struct msock *s);
bool sock_ringless(const struct msock *s);
int pick_map(bool (*ok)(const struct mmapping *));
bool map_any(const struct mmapping *m);
bool map_whole(const struct mmapping *m);
bool map_clean_rw(const struct mmapping *m);
bool map_dirty_rw(const struct mmapping *m);
int clean_map_of(int si, bool need_write);
bool page_ok(const struct mmapping *m, size_t off, size_t len);
uint32_t load_acq(const struct mmapping *m, uint64_t off);

int sock_new(int fd, bool clean);
int fd_add(int fd, int si);
void fd_forget(int fi);
void map_add(int mi, int si, uint8_t *addr, int prot,
	     const struct vj_mmap_offsets *o);
void map_forget(int mi);
struct epkey *epkey_find(unsigned int id, int fd);
void epkey_add(unsigned int id, int fd);

size_t ring_est(const struct vj_ring_req *q);
bool geom_valid(const struct vj_ring_req *q);
void ring_set(struct msock *s, int state);
bool ifindex_exists(uint32_t i);
unsigned int flow_rank(const struct vj_flow *f);
struct pkt_info;
bool flow_matches(const struct vj_flow *f, const struct pkt_info *pi,
		  uint32_t ifindex);
const char *flow_str(const struct vj_flow *f);

/* What a call may return in the model's state, and the state after it. */
struct ring_opt {
	struct vj_ring_req req;
	int optlen, level, optname;
	bool head_fault, tail_fault, tail_nonzero;
};
void expect_set_ring(struct expect *x, const struct msock *s,
		     const struct ring_opt *o);
void model_set_ring(struct msock *s, const struct vj_ring_req *req, int r,
		    int err);
/* setsockopt(VJ_GROUP): @optlen bytes at a readable optval, or NULL. */
struct group_opt {
	struct vj_group_req g;
	int optlen;
	bool null, tail_nonzero;
};

void expect_set_group(struct expect *x, const struct msock *s,
		      const struct group_opt *o);
void expect_socket_bad(struct expect *x, int type, int proto);
void expect_getsockopt(struct expect *x, int level, int optname, int len,
		       size_t size, size_t least, size_t val_room, bool len_ok);
struct bind_arg {
	struct sockaddr_vj sa;
	int len;
	int tail_at;		/* a nonzero byte past the address, or -1 */
	bool fault, null;
};
void expect_bind(struct expect *x, const struct msock *s,
		 const struct bind_arg *b);
void model_bind(struct msock *s, const struct sockaddr_vj *sa, int r, int err);
void expect_getsockname(struct expect *x, int len, bool addr_ok,
			bool len_ok);
void expect_mmap(struct expect *x, const struct vj_mmap_offsets *o,
		 size_t len, off_t off, int flags);
void expect_epoll_ctl(struct expect *x, int op, bool registered);
enum simple_call {
	X_ANY, X_SOCKET, X_DUP, X_FORK, X_POLL, X_CLOSE_BAD, X_REFUSED,
	X_SOCKETPAIR, X_SOL_SET, X_SOL_BADLEN, X_SOL_UNKNOWN, X_MREMAP_GROW,
	X_MREMAP_SHRINK, X_MREMAP_MOVE, X_MMAP_ANON, X_INJECT, X_INJECT_BOGUS,
};
void expect_simple(struct expect *x, enum simple_call call);

/* --- the checks (fuzz_check.c) -------------------------------------- */

bool check(long ret, int err, const struct expect *x);
void check_offsets(const struct msock *s, const struct vj_mmap_offsets *o);
void check_stats(struct msock *s, const struct vj_statistics *st);
void check_desc(int si, const struct mmapping *m, uint32_t idx);
void check_ring_state(const struct msock *s, uint32_t prod, uint32_t flags,
		      uint32_t entries);
void check_poll(const struct msock *s, int fd, short rv,
		const struct mmapping *m, uint32_t before);
struct epoll_event;
void check_epoll_events(const struct epoll_event *ev, int n);
void check_getsockopt(struct msock *s, int optname, const uint8_t *buf,
		      size_t at, size_t size, size_t want, socklen_t got);
void check_sol_value(int name, const uint8_t *val, socklen_t len);
void check_getsockname(const struct msock *s, const uint8_t *buf, int len,
		       socklen_t got);
void check_proc(void);

/* --- the generators (fuzz_gen_*.c) ---------------------------------- */

void op_socket(void);
void op_socket_bad(void);
void op_setsockopt(void);
void budget_guard(struct mfd *f);
void op_getsockopt(void);
void op_solsocket(void);
void op_bind(void);
void op_getsockname(void);
void op_refused(void);
void op_close(void);
void op_dup(void);
void ep_register(int fi);
void op_poll(void);
void op_epoll(void);
void op_fork(void);
void op_proc(void);
void op_mmap(void);
void op_munmap(void);
void op_mremap(void);
void op_consume(void);
void op_scribble(void);
void scribble_one(struct rng *r, struct mmapping *m);
void op_send(void);
void op_raw(void);
void op_inject(void);
void *scribbler(void *arg);
void *sender(void *arg);
void *injector(void *arg);

#endif /* _VJ_FUZZ_H */
