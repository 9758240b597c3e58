/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sanctioned connections: the connections of sanctioned channels that the
 * ruleset marked, which the fast paths may then serve.
 */
#ifndef _VJ_SANCTION_H
#define _VJ_SANCTION_H

#include <linux/types.h>

struct sk_buff;
struct vj_flow_entry;
struct vj_flow_key;
struct vj_net;
struct vj_sanction;

extern unsigned int vj_sanction_mark;

void vj_sanction_note(struct vj_net *vn, struct vj_flow_entry *fe,
		      const struct vj_flow_key *key, struct sk_buff *skb);
struct vj_sanction *vj_sanction_find(struct vj_net *vn,
				     struct vj_flow_entry *fe,
				     const struct vj_flow_key *key);
void vj_sanction_use(struct vj_sanction *s, unsigned int len);
void vj_sanction_forget_chan(struct vj_net *vn, struct vj_flow_entry *fe);
void vj_sanction_net_init(struct vj_net *vn);
void vj_sanction_net_exit(struct vj_net *vn);

#endif /* _VJ_SANCTION_H */
