// SPDX-License-Identifier: MIT
/*
 * check_ncclid.c: decoding ncclUniqueId (IPv4, a crafted IPv6, IPv4-mapped,
 * NCCL_COMM_ID's fixed magic, the 2.30 trailing rank count, the pre-2.16
 * layout), the address formatter, and NCCL's three commId hashes. The
 * expected hash values were computed by NCCL's own functions (bitops.h of
 * v2.28.9, init.cc hashUniqueId of v2.23.4, utils.cc getHash of v2.22.3)
 * compiled unchanged in a scratch program, not by this code.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <string.h>

#include "ht_check.h"
#include "ncclid.h"
#include "netfacts.h"

/* The id the real NCCL 2.28.9 made on loopback (NCCL_SOCKET_IFNAME=lo). */
static const unsigned char real_id_head[16] = {
	0x64, 0x7c, 0xd9, 0xf5, 0x5e, 0x43, 0xae, 0x13,	/* random magic */
	0x02, 0x00, 0xd3, 0x7f, 0x7f, 0x00, 0x00, 0x01,	/* AF_INET, port 54143, 127.0.0.1 */
};

static void real_id(unsigned char id[128])
{
	memset(id, 0, 128);
	memcpy(id, real_id_head, sizeof(real_id_head));
}

START_TEST(decode_real_ipv4_id)
{
	unsigned char id[128];
	struct ht_ncclid d;

	real_id(id);
	ht_ncclid_decode(id, &d);
	ck_assert_int_eq(d.family, AF_INET);
	ck_assert_str_eq(d.root, "127.0.0.1:54143");
	ck_assert_uint_eq(d.magic, 0x13ae435ef5d97c64ULL);
	ck_assert(!d.fixed_magic);
	ck_assert_int_eq(d.addr_len, sizeof(struct sockaddr_in));
	ck_assert_uint_eq(d.commid, 0xed8b439a4c2dc787ULL);
#if CHAR_MIN < 0
	ck_assert_uint_eq(d.commid_mid, 0xad583a7db73b82c3ULL);
	ck_assert_uint_eq(d.commid_old, 0xa0323494a4276d21ULL);
#endif
	ck_assert_uint_eq(d.id_hash, ht_fnv1a64(id, 128));
}
END_TEST

START_TEST(decode_crafted_ipv6_id)
{
	unsigned char id[128] = { 0 };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(29500) };
	uint64_t magic = 0x1122334455667788ULL;
	struct ht_ncclid d;

	inet_pton(AF_INET6, "2001:db8::1:2", &in6.sin6_addr);
	memcpy(id, &magic, 8);
	memcpy(id + 8, &in6, sizeof(in6));
	ht_ncclid_decode(id, &d);
	ck_assert_int_eq(d.family, AF_INET6);
	ck_assert_str_eq(d.root, "[2001:db8::1:2]:29500");
	ck_assert_uint_eq(d.magic, magic);
	ck_assert_int_eq(d.addr_len, sizeof(struct sockaddr_in6));
	ck_assert_int_eq(((struct sockaddr_in6 *)&d.addr)->sin6_port, htons(29500));

	/* An IPv4-mapped address is written as IPv4. */
	inet_pton(AF_INET6, "::ffff:10.1.2.3", &in6.sin6_addr);
	memcpy(id + 8, &in6, sizeof(in6));
	ht_ncclid_decode(id, &d);
	ck_assert_str_eq(d.root, "10.1.2.3:29500");
}
END_TEST

START_TEST(decode_fixed_magic_and_trailing_bytes)
{
	unsigned char id[128] = { 0 };
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(29512) };
	uint64_t magic = HT_NCCL_FIXED_MAGIC;
	struct ht_ncclid a, b;

	in.sin_addr.s_addr = htonl(0x7f000001);
	memcpy(id, &magic, 8);
	memcpy(id + 8, &in, sizeof(in));
	ht_ncclid_decode(id, &a);
	ck_assert(a.fixed_magic);
	ck_assert_str_eq(a.root, "127.0.0.1:29512");
	/* NCCL 2.30 appends the rank count after the address (byte 36). */
	int nranks = 8;
	memcpy(id + 36, &nranks, sizeof(nranks));
	ht_ncclid_decode(id, &b);
	ck_assert_str_eq(b.root, "127.0.0.1:29512");
	ck_assert(b.fixed_magic);
	ck_assert_uint_ne(a.id_hash, b.id_hash);
	ck_assert_uint_ne(a.commid, b.commid);
}
END_TEST

START_TEST(decode_old_layout_and_garbage)
{
	unsigned char id[128] = { 0 };
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(40000) };
	struct ht_ncclid d;

	/* NCCL <= 2.15: the address at byte 0, no magic. */
	in.sin_addr.s_addr = htonl(0x0a000001);
	memcpy(id, &in, sizeof(in));
	ht_ncclid_decode(id, &d);
	ck_assert_int_eq(d.family, AF_INET);
	ck_assert_str_eq(d.root, "10.0.0.1:40000");
	ck_assert_uint_eq(d.magic, 0);

	/* Not an id: no root, still hashed. */
	memset(id, 0xab, sizeof(id));
	ht_ncclid_decode(id, &d);
	ck_assert_int_eq(d.family, 0);
	ck_assert_str_eq(d.root, "");
	ck_assert_uint_eq(d.id_hash, ht_fnv1a64(id, 128));
}
END_TEST

START_TEST(hashes_match_nccl)
{
	unsigned char id[128];

	for (int i = 0; i < 128; i++)
		id[i] = (unsigned char)(i * 37 + 11);
	ck_assert_uint_eq(ht_nccl_hash_digest(id, 128), 0x3002dcd1bbe6653dULL);
#if CHAR_MIN < 0
	ck_assert_uint_eq(ht_nccl_hash_2_23(id, 128), 0xae3632082b38c8d3ULL);
	ck_assert_uint_eq(ht_nccl_hash_djb2a(id, 128), 0x65bb3b0cba527185ULL);
#endif
	/* FNV-1a 64 reference values. */
	ck_assert_uint_eq(ht_fnv1a64("", 0), 0xcbf29ce484222325ULL);
	ck_assert_uint_eq(ht_fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);
	ck_assert_uint_eq(ht_fnv1a64("foobar", 6), 0x85944171f73967e8ULL);

	struct ht_ncclid d = { .commid = 1, .commid_mid = 2, .commid_old = 3 };
	ck_assert_uint_eq(ht_ncclid_commid_for(&d, 22809), 1);
	ck_assert_uint_eq(ht_ncclid_commid_for(&d, 22600), 1);
	ck_assert_uint_eq(ht_ncclid_commid_for(&d, 22503), 2);
	ck_assert_uint_eq(ht_ncclid_commid_for(&d, 22304), 2);
	ck_assert_uint_eq(ht_ncclid_commid_for(&d, 22203), 3);
}
END_TEST

static const char *fmt6(const char *text, int port)
{
	static char out[HT_ADDR_STRLEN];
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	inet_pton(AF_INET6, text, &in6.sin6_addr);
	ht_fmt_sockaddr(out, (struct sockaddr *)&in6, sizeof(in6));
	return out;
}

START_TEST(format_addresses)
{
	char out[HT_ADDR_STRLEN];
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(65535) };

	in.sin_addr.s_addr = htonl(0xffffffff);
	ck_assert_uint_eq(ht_fmt_sockaddr(out, (struct sockaddr *)&in, sizeof(in)), 21);
	ck_assert_str_eq(out, "255.255.255.255:65535");
	ck_assert_str_eq(fmt6("::", 1), "[::]:1");
	ck_assert_str_eq(fmt6("::1", 2), "[::1]:2");
	ck_assert_str_eq(fmt6("1::", 3), "[1::]:3");
	ck_assert_str_eq(fmt6("1:2:3:4:5:6:7:8", 4), "[1:2:3:4:5:6:7:8]:4");
	ck_assert_str_eq(fmt6("2001:db8:0:1:1:1:1:1", 5), "[2001:db8:0:1:1:1:1:1]:5");
	ck_assert_str_eq(fmt6("2001:0:0:1:0:0:0:1", 6), "[2001:0:0:1::1]:6");
	ck_assert_str_eq(fmt6("2001:db8::", 7), "[2001:db8::]:7");
	ck_assert_str_eq(fmt6("fe80::abcd:ef01:2345:6789", 8), "[fe80::abcd:ef01:2345:6789]:8");
	ck_assert_str_eq(fmt6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535),
			 "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
	/* Too short, or another family: nothing. */
	ck_assert_uint_eq(ht_fmt_sockaddr(out, (struct sockaddr *)&in, 4), 0);
	ck_assert_str_eq(out, "");
	struct sockaddr un = { .sa_family = AF_UNIX };
	ck_assert_uint_eq(ht_fmt_sockaddr(out, &un, sizeof(un)), 0);
}
END_TEST

static Suite *ncclid_suite(void)
{
	Suite *s = suite_create("ncclid");
	TCase *tc = tcase_create("decode");
	tcase_add_test(tc, decode_real_ipv4_id);
	tcase_add_test(tc, decode_crafted_ipv6_id);
	tcase_add_test(tc, decode_fixed_magic_and_trailing_bytes);
	tcase_add_test(tc, decode_old_layout_and_garbage);
	tcase_add_test(tc, hashes_match_nccl);
	tcase_add_test(tc, format_addresses);
	suite_add_tcase(s, tc);
	return s;
}
HT_CHECK_SUITE(ncclid_suite)
