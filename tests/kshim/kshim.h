/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel definitions that kernel/parse.c uses beyond the protocol
 * headers, for building it in user space (tests/parse_fuzz.c): included
 * before anything else with -include, with tests/kshim first on the
 * include path for <net/ip.h>, <net/ipv6.h> and <linux/string.h>.
 * <linux/if_ether.h>, <linux/ip.h>, <linux/ipv6.h>, <linux/in.h> and
 * <linux/errno.h> are the uapi headers.
 */
#ifndef _VJ_KSHIM_H
#define _VJ_KSHIM_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define htons(x)	((__be16)__builtin_bswap16(x))
#define ntohs(x)	((uint16_t)__builtin_bswap16(x))
#else
#define htons(x)	((__be16)(x))
#define ntohs(x)	((uint16_t)(x))
#endif

#endif /* _VJ_KSHIM_H */
