/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One wake-up per channel per batch of packets (wake.c).
 */
#ifndef _VJ_WAKE_H
#define _VJ_WAKE_H

struct sock;

void vj_wake(struct sock *sk);
void vj_wake_init(void);
void vj_wake_exit(void);

#endif /* _VJ_WAKE_H */
