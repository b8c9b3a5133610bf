// SPDX-License-Identifier: MIT
/*
 * names.h: the checks of `hangtrace check` by id and name (names.c), all
 * that the report needs of the command to read a check run.
 */
#ifndef HT_CLI_CHECK_NAMES_H
#define HT_CLI_CHECK_NAMES_H

/* The checks, in the order of the report's table columns. */
#define HT_CHECK_MAP(XX)               \
	XX(IDENTITY, "identity")       \
	XX(GPU, "gpu")                 \
	XX(IFNAME, "ifname")           \
	XX(RESOLVE, "resolve")         \
	XX(SHM, "shm")                 \
	XX(IB, "ib")                   \
	XX(RENDEZVOUS, "rendezvous")   \
	XX(ARRIVALS, "arrivals")       \
	XX(VERSIONS, "versions")       \
	XX(GPUS, "gpus")               \
	XX(ADDRESSES, "addresses")     \
	XX(CLOCK, "clock")             \
	XX(PEER, "peer")               \
	XX(NCCL, "nccl")               \
	XX(STORE, "store")

enum ht_check_id {
#define XX(id, name) HT_CHECK_##id,
	HT_CHECK_MAP(XX)
#undef XX
	HT_CHECK_COUNT
};

const char *ht_check_name(int id);	/* NULL out of range */
int ht_check_from_name(const char *s);	/* -1 unknown */

#endif
