// SPDX-License-Identifier: MIT
/*
 * nccl_config.h: the prefix of NCCL's ncclConfig_t that the library reads,
 * on its own so that hooks/nccl/proto_check_nccl.c can compare it with nccl.h.
 */
#ifndef HT_NCCL_CONFIG_H
#define HT_NCCL_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* ncclConfig_t: fields are only ever appended (2.14: up to blocking; 2.17:
 * up to netName; 2.18: splitShare; 2.27: trafficClass to nvlsCTAs; 2.28
 * and later: more after). We read a field only when config->size covers it
 * and the magic is right. */
#define HT_NCCL_CONFIG_MAGIC 0xcafebeefU
#define HT_NCCL_CONFIG_UNDEF_INT INT32_MIN
struct ht_nccl_config {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
	int trafficClass;
	const char *commName;
	int collnetEnable;
	int CTAPolicy;
	int shrinkShare;
	int nvlsCTAs;
};

#endif
