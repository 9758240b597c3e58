// SPDX-License-Identifier: GPL-2.0
/*
 * parse_fuzz: the kernel's frame parser (kernel/parse.c), built in user
 * space under AddressSanitizer and UBSan (tests/kshim supplies the few
 * kernel definitions it uses), against crafted frames: first named cases
 * with known answers, then frames from the fuzzer's generator of hostile
 * packets (tests/lib/craft.h), cut and padded at random.
 *
 *   parse_fuzz [-n FRAMES] [-s SEED]
 *
 * Every frame is handed to vj_parse_frame() from a heap block of exactly
 * the bytes the call may read (hlen), so that a read past them is an
 * AddressSanitizer report and the run fails.  Each generated frame is
 * parsed with all of it readable and again with a part (the 128 and 256
 * bytes that direct receive copies, a random cut as in the linear part of
 * an XDP buffer); the answers must agree: a partial parse gives the full
 * parse's answer or -ENODATA, never another key, and never -ENODATA when
 * all is readable.  Prints one line per case and "N passed, N failed".
 * With -DVJ_LIBFUZZER, LLVMFuzzerTestOneInput() drives the same check.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/craft.h"
#include "lib/csum.h"

typedef uint8_t u8;

static unsigned int ntohs_port(uint16_t p)
{
	const u8 *b = (const u8 *)&p;

	return b[0] << 8 | b[1];
}

/* kernel/vj_key.h and kernel/vj_parse.h, without the kernel's types. */
struct vj_flow_key {
	uint32_t ifindex;
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t family;
	uint16_t pad;
	uint32_t saddr[4];
	uint32_t daddr[4];
};

int vj_parse_frame(const u8 *frame, unsigned int hlen, unsigned int len,
		   struct vj_flow_key *key, uint16_t *proto);

static int passed, failed;

/* Parse the first @hlen bytes of @frame from a block of exactly that size. */
static int parse_cut(const u8 *frame, unsigned int hlen, unsigned int len,
		     struct vj_flow_key *key)
{
	u8 *copy = malloc(hlen ? hlen : 1);
	uint16_t proto;
	int ret;

	if (!copy)
		abort();
	memcpy(copy, frame, hlen);
	ret = vj_parse_frame(copy, hlen, len, key, &proto);
	free(copy);
	return ret;
}

/* An Ethernet header for @v6 at @f; returns its length. */
static unsigned int eth(u8 *f, int v6)
{
	static const u8 mac[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };

	memcpy(f, mac, 12);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	return 14;
}

/*
 * A known frame: IPv6 to port 9000 with destination options of @optlen
 * bytes (0: none) followed by UDP and 16 bytes of data; or, with @v4ihl,
 * IPv4 with that header length.  Returns the frame's length.
 */
static unsigned int known(u8 *f, int v4ihl, unsigned int optlen)
{
	unsigned int n, off, i;
	u8 *ip, *l4;

	memset(f, 0, CRAFT_MAX + 14);
	n = eth(f, !v4ihl);
	ip = f + n;
	if (v4ihl) {
		uint16_t sum;

		ip[0] = 0x40 | v4ihl;
		off = v4ihl * 4;
		for (i = 20; i < off; i++)
			ip[i] = 1;
		ip[2] = (off + 24) >> 8;
		ip[3] = (off + 24) & 0xff;
		ip[8] = 64;
		ip[9] = 17;
		sum = csum_fold(csum_partial(0, ip, off));
		memcpy(ip + 10, &sum, 2);
	} else {
		ip[0] = 0x60;
		ip[6] = optlen ? 60 : 17;
		ip[7] = 64;
		off = 40;
		if (optlen) {
			ip[40] = 17;
			ip[41] = optlen / 8 - 1;
			ip[42] = 1;		/* PadN */
			ip[43] = optlen - 4;
			off += optlen;
		}
		ip[4] = (off - 40 + 24) >> 8;
		ip[5] = (off - 40 + 24) & 0xff;
	}
	l4 = ip + off;
	l4[0] = 0x30;			/* sport 12345 */
	l4[1] = 0x39;
	l4[2] = 0x23;			/* dport 9000 */
	l4[3] = 0x28;
	l4[5] = 24;
	return n + off + 24;
}

/* One named case: frame @f of @len bytes, @hlen readable, wants @want. */
static void expect(const char *name, const u8 *f, unsigned int hlen,
		   unsigned int len, int want)
{
	struct vj_flow_key key;
	int ret = parse_cut(f, hlen, len, &key);

	if (ret == want && (ret || ntohs_port(key.dport) == 9000)) {
		printf("ok %s\n", name);
		passed++;
		return;
	}
	printf("FAIL %s: returned %d (dport %u), want %d\n", name, ret,
	       ret ? 0 : ntohs_port(key.dport), want);
	failed++;
}

static void named_cases(void)
{
	static u8 f[CRAFT_MAX + 14];
	unsigned int len;

	len = known(f, 0, 0);
	expect("PARSE_V6_PLAIN", f, len, len, 0);
	expect("PARSE_V6_PORTS_SPLIT", f, 14 + 40 + 2, len, -ENODATA);
	expect("PARSE_V6_HEADER_CUT", f, 14 + 39, len, -ENODATA);
	expect("PARSE_V6_FRAME_SHORT", f, 14 + 39, 14 + 39, -EINVAL);

	len = known(f, 0, 80);
	expect("PARSE_V6_DSTOPT80_HEAD256", f, 256, len, 0);
	expect("PARSE_V6_DSTOPT80_HEAD128", f, 128, len, -ENODATA);

	len = known(f, 0, 1400);
	expect("PARSE_V6_DSTOPT1400_WHOLE", f, len, len, 0);
	expect("PARSE_V6_DSTOPT1400_HEAD256", f, 256, len, -ENODATA);
	expect("PARSE_V6_DSTOPT1400_HEAD128", f, 128, len, -ENODATA);
	/* The options header claims more than the packet holds. */
	expect("PARSE_V6_DSTOPT_PAST_PACKET", f, 256, 14 + 40 + 100, -EINVAL);
	/* The payload length claims more than the frame. */
	f[14 + 4] = 0xff;
	expect("PARSE_V6_PLEN_PAST_FRAME", f, len, len, -EINVAL);

	/* A routing header: the destination only once no segment is left. */
	len = known(f, 0, 8);
	f[14 + 6] = 43;
	f[14 + 40 + 2] = 4;		/* type: segment routing */
	f[14 + 40 + 3] = 0;
	expect("PARSE_V6_RTHDR_ARRIVED", f, len, len, 0);
	f[14 + 40 + 3] = 1;
	expect("PARSE_V6_RTHDR_SEGMENTS_LEFT", f, len, len, -EINVAL);

	len = known(f, 15, 0);
	expect("PARSE_V4_OPTIONS", f, len, len, 0);
	expect("PARSE_V4_OPTIONS_CUT", f, 14 + 40, len, -ENODATA);
	expect("PARSE_V4_PORTS_SPLIT", f, 14 + 60 + 3, len, -ENODATA);
	f[14 + 10] ^= 1;
	expect("PARSE_V4_BAD_CSUM", f, len, len, -EINVAL);
}

static int same_key(const struct vj_flow_key *a, const struct vj_flow_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * The check of one frame @f of @len bytes: parsed whole, then with only
 * @cut bytes readable.  Returns 0 or prints why not and returns -1.
 */
static int check_frame(const u8 *f, unsigned int len, unsigned int cut,
		       const char *desc)
{
	struct vj_flow_key whole, part;
	int rw, rp;

	rw = parse_cut(f, len, len, &whole);
	if (rw == -ENODATA) {
		printf("FAIL PARSE_FUZZ: %s: -ENODATA with all %u bytes readable\n",
		       desc, len);
		return -1;
	}
	if (cut > len)
		cut = len;
	rp = parse_cut(f, cut, len, &part);
	if (rp == -ENODATA || (rp == rw && (rw || same_key(&whole, &part))))
		return 0;
	printf("FAIL PARSE_FUZZ: %s: %u of %u bytes readable: %d, whole: %d%s\n",
	       desc, cut, len, rp, rw, rp == rw ? " (another key)" : "");
	return -1;
}

/* A generated frame from @r into @f; returns its length. */
static unsigned int gen_frame(struct rng *r, u8 *f, char *desc, size_t dn)
{
	struct craft_addr a = { .sport = 0x3930, .dport = 0x2823 };
	int v6 = chance(r, 60);
	unsigned int n = eth(f, v6), len;

	memset(a.saddr, 0x20, sizeof(a.saddr));
	memset(a.daddr, 0x21, sizeof(a.daddr));
	len = n + craft_ip(r, f + n, v6, &a, desc, dn);
	if (chance(r, 10))		/* the frame cut short */
		len = below(r, len + 1);
	else if (chance(r, 10))		/* padding behind the packet */
		len += below(r, 64);
	if (chance(r, 2))		/* not IP at all */
		f[12] ^= 0x40;
	return len;
}

static unsigned int gen_cut(struct rng *r, unsigned int len)
{
	switch (below(r, 4)) {
	case 0:
		return 128;		/* direct receive before */
	case 1:
		return 256;		/* direct receive */
	default:
		return below(r, len + 1);	/* an XDP linear part */
	}
}

static void fuzz(uint64_t seed, unsigned long n)
{
	static u8 f[CRAFT_MAX + 14 + 64];
	struct rng r = { seed };
	unsigned long i, bad = 0;
	char desc[160];

	for (i = 0; i < n && bad < 10; i++) {
		unsigned int len = gen_frame(&r, f, desc, sizeof(desc));

		if (check_frame(f, len, gen_cut(&r, len), desc))
			bad++;
	}
	if (bad) {
		failed++;
		return;
	}
	printf("ok PARSE_FUZZ (%lu frames, seed %llu)\n", n,
	       (unsigned long long)seed);
	passed++;
}

#ifdef VJ_LIBFUZZER
/* Byte 0 and 1: how many bytes are readable; the rest: the frame. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int cut;

	if (size < 2 || size - 2 > CRAFT_MAX)
		return 0;
	cut = data[0] << 8 | data[1];
	if (check_frame(data + 2, size - 2, cut, "libFuzzer input"))
		abort();
	return 0;
}
#else
int main(int argc, char **argv)
{
	unsigned long n = 200000;
	uint64_t seed = 1;
	int c;

	while ((c = getopt(argc, argv, "n:s:")) != -1) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n FRAMES] [-s SEED]\n",
				argv[0]);
			return 2;
		}
	}
	named_cases();
	fuzz(seed, n);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif
