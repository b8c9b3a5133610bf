// SPDX-License-Identifier: MIT
/*
 * ncclid.h: what an ncclUniqueId says, decoded from its 128 bytes: the
 * bootstrap root's address, whether the magic is the fixed one of
 * NCCL_COMM_ID mode, our own hash of the whole id and the hashes NCCL
 * itself prints as "commId 0x..." (three formulas over its history). Plain
 * functions over buffers: no allocation, no system calls, async-signal-safe.
 */
#ifndef HT_NCCLID_H
#define HT_NCCLID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "netfacts.h"

#define HT_NCCL_ID_BYTES 128
/* NCCL_MAGIC of src/include/comm.h: the magic of every id made from
 * NCCL_COMM_ID, so all jobs using one NCCL_COMM_ID get identical ids. */
#define HT_NCCL_FIXED_MAGIC 0x0280028002800280ULL

struct ht_ncclid {
	uint64_t magic;
	bool fixed_magic;	/* NCCL_COMM_ID mode */
	int family;		/* AF_INET, AF_INET6, or 0: not an address */
	char root[HT_ADDR_STRLEN];	/* "ip:port", "[ipv6]:port", "" if unknown */
	struct sockaddr_storage addr;	/* the root, when family != 0 */
	socklen_t addr_len;
	uint64_t id_hash;	/* FNV-1a 64 of the 128 bytes: ours */
	uint64_t commid;	/* NCCL >= 2.26: eatHash/digestHash of bitops.h */
	uint64_t commid_mid;	/* NCCL 2.23-2.25: hashUniqueId of init.cc */
	uint64_t commid_old;	/* NCCL <= 2.22: DJB2a getHash of utils.cc */
};

/* Decodes the 128 bytes at id. Layout (NCCL src/include/bootstrap.h,
 * unchanged 2.12-2.29): a 64-bit magic, then union ncclSocketAddress
 * (sockaddr_in or sockaddr_in6 by sa_family at byte 8); bytes after it are
 * tolerated (2.30 appends the rank count). */
void ht_ncclid_decode(const void *id, struct ht_ncclid *out);

/* Formats a socket address as the trace does: "ip:port" for IPv4 (and
 * IPv4-mapped IPv6), "[ipv6]:port" (RFC 5952) otherwise. out holds
 * HT_ADDR_STRLEN bytes; returns the length, 0 for another family. */
size_t ht_fmt_sockaddr(char *out, const struct sockaddr *sa, socklen_t len);

uint64_t ht_fnv1a64(const void *p, size_t n);
/* NCCL's commId hashes over n bytes, by era (see struct ht_ncclid). The
 * DJB2a and 2.23 variants read the bytes as plain char, as NCCL compiles
 * them on this platform (signed on x86-64, unsigned on aarch64). */
uint64_t ht_nccl_hash_digest(const void *p, size_t n);
uint64_t ht_nccl_hash_2_23(const void *p, size_t n);
uint64_t ht_nccl_hash_djb2a(const void *p, size_t n);
/* The commId hash that NCCL of version code v (e.g. 22809) prints. */
uint64_t ht_ncclid_commid_for(const struct ht_ncclid *id, int version);

#endif
