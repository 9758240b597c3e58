// SPDX-License-Identifier: GPL-2.0
/*
 * Shared test library: parsing the packets a channel delivers.
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "csum.h"
#include "pkt.h"

bool proto_has_ports(uint8_t proto)
{
	return proto == IPPROTO_UDP || proto == IPPROTO_TCP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

/* The transport header at ip_hlen, within avail bytes from l3. */
static void parse_l4(struct pkt_info *pi, uint32_t avail)
{
	const uint8_t *l4;

	if (pi->ip_hlen > avail)
		return;
	l4 = pi->l3 + pi->ip_hlen;
	pi->l4 = l4;
	pi->l4len = avail - pi->ip_hlen;
	if (pi->frag || !proto_has_ports(pi->proto))
		return;
	if (pi->l4len < 4) {
		pi->l4_err = "transport header cut";
		return;
	}
	pi->sport = l4[0] << 8 | l4[1];
	pi->dport = l4[2] << 8 | l4[3];
	pi->ports = true;
	if (pi->proto == IPPROTO_TCP && pi->l4len >= 14)
		pi->tcp_flags = l4[13];
	if (pi->proto != IPPROTO_UDP)
		return;
	if (pi->l4len < 8) {
		pi->l4_err = "UDP header cut";
		return;
	}
	pi->udp_len = l4[4] << 8 | l4[5];
	if (pi->udp_len < 8) {
		pi->l4_err = "UDP length below 8";
		return;
	}
	pi->udp_len -= 8;
	pi->payload = l4 + 8;
	pi->plen = pi->l4len - 8 < pi->udp_len ? pi->l4len - 8 : pi->udp_len;
}

static const char *parse_ipv4(struct pkt_info *pi)
{
	const uint8_t *ip = pi->l3;
	uint32_t ihl, tot, avail = pi->avail;

	pi->family = AF_INET;
	if (avail < 20 || (ip[0] >> 4) != 4)
		return "not an IPv4 header at l3_off";
	ihl = (ip[0] & 15) * 4;
	tot = ip[2] << 8 | ip[3];
	if (ihl < 20 || ihl > avail || tot < ihl)
		return "bad IPv4 header length";
	pi->ip_len = tot;
	pi->ip_hlen = ihl;
	if (tot < avail)
		avail = tot;
	pi->frag = (ip[6] & 0x3f) || ip[7];
	pi->proto = ip[9];
	memcpy(&pi->saddr.ip4, ip + 12, 4);
	memcpy(&pi->daddr.ip4, ip + 16, 4);
	parse_l4(pi, avail);
	return NULL;
}

static const char *parse_ipv6(struct pkt_info *pi)
{
	const uint8_t *ip = pi->l3, *h;
	uint32_t off = 40, avail = pi->avail;
	uint8_t nh;

	pi->family = AF_INET6;
	if (avail < 40 || (ip[0] >> 4) != 6)
		return "not an IPv6 header at l3_off";
	pi->ip_len = 40 + (ip[4] << 8 | ip[5]);
	if (pi->ip_len < avail)
		avail = pi->ip_len;
	nh = ip[6];
	memcpy(&pi->saddr, ip + 8, 16);
	memcpy(&pi->daddr, ip + 24, 16);
	for (;;) {
		h = ip + off;
		if (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
			if (off + 8 > avail) {
				pi->l4_err = "IPv6 extension header cut";
				break;
			}
			off += nh == 51 ? (h[1] + 2) * 4 : (h[1] + 1) * 8;
			nh = h[0];
		} else if (nh == 44) {
			if (off + 8 > avail) {
				pi->l4_err = "IPv6 fragment header cut";
				break;
			}
			/* Offset or more-fragments: an atomic one is not. */
			if ((h[2] << 8 | h[3]) & 0xfff9)
				pi->frag = true;
			nh = h[0];
			off += 8;
		} else {
			break;
		}
	}
	pi->proto = nh;
	pi->ip_hlen = off;
	if (pi->l4_err)
		return NULL;
	if (off > avail) {
		pi->l4_err = "IPv6 extension headers beyond the packet";
		return NULL;
	}
	parse_l4(pi, avail);
	return NULL;
}

const char *pkt_parse_at(const struct vj_desc *d, const uint8_t *data,
			 struct pkt_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	if (d->l3_off > d->len)
		return "l3_off beyond the packet";
	pi->l3 = data + d->l3_off;
	pi->avail = d->len - d->l3_off;
	switch (ntohs(d->proto)) {
	case 0x0800:
		return parse_ipv4(pi);
	case 0x86dd:
		return parse_ipv6(pi);
	default:
		return "descriptor proto is neither ETH_P_IP nor ETH_P_IPV6";
	}
}

const char *pkt_parse(const struct test_pkt *p, struct pkt_info *pi)
{
	const char *why = pkt_parse_at(&p->d, p->data, pi);

	return why ? why : pi->l4_err;
}

/* Verifies the IPv4 header checksum and, if asked, the UDP checksum. */
const char *pkt_check_csums(const struct pkt_info *pi, bool udp)
{
	const uint8_t *l4;
	uint32_t sum = 0, ulen;

	if (pi->family == AF_INET &&
	    csum_fold32(csum_add(0, pi->l3, (pi->l3[0] & 15) * 4)))
		return "bad IPv4 header checksum";
	if (!udp)
		return NULL;
	if (pi->proto != IPPROTO_UDP || !pi->payload || pi->plen != pi->udp_len)
		return "no complete UDP datagram to checksum";
	l4 = pi->payload - 8;
	ulen = pi->udp_len + 8;
	if (pi->family == AF_INET) {
		if (!l4[6] && !l4[7])
			return NULL;
		sum = csum_add(sum, pi->l3 + 12, 8);
	} else {
		sum = csum_add(sum, pi->l3 + 8, 32);
	}
	sum += IPPROTO_UDP + ulen;
	sum = csum_add(sum, l4, ulen);
	if (csum_fold32(sum))
		return "bad UDP checksum";
	return NULL;
}
