/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One publication and one wake-up per channel per batch of packets
 * (wake.c).
 */
#ifndef _VJ_WAKE_H
#define _VJ_WAKE_H

struct sock;
struct vj_ring;

void vj_wake(struct sock *sk, struct vj_ring *ring);
void vj_wake_init(void);
void vj_wake_exit(void);

#endif /* _VJ_WAKE_H */
