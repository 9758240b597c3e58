/* SPDX-License-Identifier: GPL-2.0 */
/* UDP channel sockets: helpers shared by t_udp.c and t_udp2.c. */
#ifndef _VJ_T_UDP_H
#define _VJ_T_UDP_H

#include <stdint.h>

int udp_chan(int family);		/* a UDP channel socket */
int udp_plain(int family);		/* an ordinary UDP socket */
int udp_bind_to(int fd, const char *addr, uint16_t port);
void udp_ring(int fd, uint32_t entries, uint32_t buf_size);
uint16_t udp_local_port(int fd);
void udp_send_to(int fd, const char *addr, uint16_t port, uint32_t seq,
		 uint32_t len);

#endif /* _VJ_T_UDP_H */
