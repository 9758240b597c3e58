/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vjchan-run: make an unmodified program's UDP sockets UDP channels.
 *
 * libvjchan-run.so is preloaded (LD_PRELOAD) into the program by
 * vjchan-run(1).  It interposes bind() only: when the program binds an
 * AF_INET or AF_INET6 datagram socket of protocol UDP to a selected port,
 * the socket is replaced on the same descriptor by a UDP channel socket
 * (socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_UDP4/6)) that carries over the
 * descriptor's flags and the options the program already set, and that
 * channel is bound instead.  Every other call goes to the kernel as usual,
 * except interface queries that a channel refuses (ioctl.c).
 *
 *   preload.c   the interposed bind() and the library's set-up
 *   config.c    the VJCHAN_RUN_* environment: struct vj_run_config
 *   ports.c     port lists ("53,5000-5010")
 *   replace.c   the replacement of one socket by a channel
 *   ioctl.c     interface queries (SIOCGIFNAME, ...) on a channel
 *   options.c   carrying socket options over to the channel
 *   log.c       messages on standard error
 *
 * vjchan-run.c, the launcher, shares config.c and ports.c so that it
 * refuses what the library would refuse before it starts the program.
 */
#ifndef VJ_RUN_H
#define VJ_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/vjchan.h>

/* The environment the launcher sets and the library reads. */
#define VJ_RUN_ENV_PORTS	"VJCHAN_RUN_PORTS"
#define VJ_RUN_ENV_MODE		"VJCHAN_RUN_MODE"
#define VJ_RUN_ENV_VERBOSE	"VJCHAN_RUN_VERBOSE"
#define VJ_RUN_ENV_FALLBACK	"VJCHAN_RUN_FALLBACK"
#define VJ_RUN_ENV_ENTRIES	"VJCHAN_RUN_ENTRIES"
#define VJ_RUN_ENV_BUF_SIZE	"VJCHAN_RUN_BUF_SIZE"
#define VJ_RUN_ENV_SPREAD	"VJCHAN_RUN_SPREAD"

/* The library's file name, beside the launcher or under ../lib/vjchan. */
#define VJ_RUN_LIB_NAME		"libvjchan-run.so"

/**
 * struct vj_run_ports - a set of UDP ports
 * @all: every port, 0 included (no list was given)
 * @bits: port p is in the set if bit p is set
 */
struct vj_run_ports {
	bool		all;
	uint8_t		bits[65536 / 8];
};

/**
 * struct vj_run_config - what the library does, from the environment
 * @ports: the selected ports; a bind to port 0 is selected only if 0 is
 * @mode: the firewall mode of the channels (VJ_BIND_FW_*)
 * @verbose: log every replacement and every socket left alone
 * @fallback: bind the ordinary socket when no channel can be made
 * @entries: VJ_RING entries of each channel, 0 for the kernel's default
 * @buf_size: VJ_RING buf_size, 0 for the kernel's default; a datagram
 *	longer than the buffer is held whole, charged to SO_RCVBUF
 * @spread: the VJ_GROUP spread rule (VJ_SPREAD_*) of each channel, or -1
 *	to leave the kernel's default
 * @error: the configuration is invalid: every bind() of a UDP socket
 *	fails with EINVAL and this message is printed
 */
struct vj_run_config {
	struct vj_run_ports	ports;
	uint32_t		mode;
	bool			verbose;
	bool			fallback;
	uint32_t		entries;
	uint32_t		buf_size;
	int			spread;
	char			error[256];
};

/* ports.c */
int vj_run_ports_parse(struct vj_run_ports *p, const char *list,
		       char *why, size_t whylen);
bool vj_run_port_selected(const struct vj_run_ports *p, unsigned int port);

/* config.c */
int vj_run_mode_parse(const char *name, uint32_t *mode);
const char *vj_run_mode_name(uint32_t mode);
int vj_run_spread_parse(const char *name, int *spread);
const char *vj_run_spread_name(int spread);
int vj_run_config_load(struct vj_run_config *cfg);

/* log.c */
void vj_run_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *vj_run_addr_str(const struct sockaddr *sa, char *buf, size_t len);

/* options.c */
int vj_run_copy_options(int from, int to, int family, const char **what);

/* ioctl.c */
int vj_run_ioctl(int fd, unsigned long req, void *arg);

/* replace.c */
int vj_run_replace(const struct vj_run_config *cfg, int fd, int family,
		   const struct sockaddr *addr, socklen_t len,
		   int (*real_bind)(int, const struct sockaddr *, socklen_t));

#endif /* VJ_RUN_H */
