// SPDX-License-Identifier: MIT
/*
 * ncclid.c: decoding an ncclUniqueId and hashing it the ways NCCL does, so
 * a trace line can be matched with the "commId 0x..." of NCCL_DEBUG=INFO.
 * The formulas were read in NVIDIA/nccl: DJB2a getHash of src/misc/utils.cc
 * (v2.22.3), hashUniqueId of src/init.cc (v2.23.4 to v2.25.1, the INFO
 * line only), eatHash/digestHash of src/include/bitops.h (v2.26.2 to
 * v2.30.x, with v2.28.9 checked line by line). Pure code: no allocation, no
 * system calls; async-signal-safe.
 */
#include <netinet/in.h>
#include <string.h>

#include "ncclid.h"
#include "netfacts.h"

uint64_t ht_fnv1a64(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t ht_nccl_hash_djb2a(const void *p, size_t n)
{
	const char *s = p;
	uint64_t r = 5381;

	/* result = result * 33 ^ char, char sign-extended where char is signed. */
	for (size_t i = 0; i < n; i++)
		r = ((r << 5) + r) ^ (uint64_t)(int64_t)s[i];
	return r;
}

uint64_t ht_nccl_hash_2_23(const void *p, size_t n)
{
	const char *s = p;
	uint64_t h = 0xdeadbeef;

	for (size_t i = 0; i < n; i++) {
		h ^= h >> 32;
		h *= 0x8db3db47fa2994adULL;
		h += (uint64_t)(int64_t)s[i];
	}
	return h;
}

uint64_t ht_nccl_hash_digest(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t a0 = 1, a1 = 1;

	/* eatHash: the size folded in first, then 8-byte little-endian chunks
	 * (a short last chunk zero-extended), each after a mixing round. */
	a0 ^= n;
	while (n != 0) {
		a0 += a1;
		a1 ^= a0;
		a0 ^= a0 >> 31;
		a0 *= 0x9de62bbc8cef3ce3ULL;
		a1 ^= a1 >> 32;
		a1 *= 0x485cd6311b599e79ULL;
		size_t k = n < 8 ? n : 8;
		uint64_t x = 0;
		memcpy(&x, b, k);
		b += k;
		n -= k;
		a0 += x;
	}
	/* digestHash */
	uint64_t h = a0;
	h ^= h >> 31;
	h *= 0xbac3bd562846de6bULL;
	h += a1;
	h ^= h >> 32;
	h *= 0x995a187a14e7b445ULL;
	return h;
}

uint64_t ht_ncclid_commid_for(const struct ht_ncclid *id, int version)
{
	if (version >= 22600)
		return id->commid;
	if (version >= 22300)
		return id->commid_mid;
	return id->commid_old;
}

size_t ht_fmt_sockaddr(char *out, const struct sockaddr *sa, socklen_t len)
{
	struct ht_addr a;

	out[0] = '\0';
	if (sa == NULL || !ht_addr_from_sa(&a, sa, len))
		return 0;
	return ht_addr_fmt(out, HT_ADDR_STRLEN, &a, true);
}

/* The socket address at off, when its family is one NCCL uses. */
static bool addr_at(const unsigned char *b, size_t off, struct ht_ncclid *out)
{
	sa_family_t fam;
	size_t len;

	memcpy(&fam, b + off, sizeof(fam));
	if (fam == AF_INET)
		len = sizeof(struct sockaddr_in);
	else if (fam == AF_INET6)
		len = sizeof(struct sockaddr_in6);
	else
		return false;
	memcpy(&out->addr, b + off, len);
	out->addr_len = (socklen_t)len;
	out->family = fam;
	ht_fmt_sockaddr(out->root, (const struct sockaddr *)&out->addr, out->addr_len);
	return true;
}

void ht_ncclid_decode(const void *id, struct ht_ncclid *out)
{
	const unsigned char *b = id;

	memset(out, 0, sizeof(*out));
	/* NCCL >= 2.16: magic, then the address. Before 2.16 the address sat
	 * at byte 0 with no magic: its sin_zero (or the start of an IPv6
	 * address) leaves no valid family at byte 8. */
	if (addr_at(b, 8, out))
		memcpy(&out->magic, b, sizeof(out->magic));
	else
		addr_at(b, 0, out);
	out->fixed_magic = out->magic == HT_NCCL_FIXED_MAGIC;
	out->id_hash = ht_fnv1a64(b, HT_NCCL_ID_BYTES);
	out->commid = ht_nccl_hash_digest(b, HT_NCCL_ID_BYTES);
	out->commid_mid = ht_nccl_hash_2_23(b, HT_NCCL_ID_BYTES);
	out->commid_old = ht_nccl_hash_djb2a(b, HT_NCCL_ID_BYTES);
}
