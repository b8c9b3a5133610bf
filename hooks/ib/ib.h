// SPDX-License-Identifier: MIT
/*
 * ib.h: the InfiniBand/RoCE family of the library. It has no hooks (yet):
 * only host facts, written once per process at activation.
 */
#ifndef HT_HOOKS_IB_H
#define HT_HOOKS_IB_H

/*
 * Writes the "ib" line (doc/trace-format.md): the ports under
 * /sys/class/infiniband, what NCCL_IB_HCA, NCCL_IB_GID_INDEX and
 * NCCL_IB_DISABLE make of them, the memlock limit, and the problems found
 * (src/base/ibfacts.c). Written only when the host has a port or the job
 * sets NCCL_IB_HCA. Activation context: may allocate (opendir).
 */
void ht__ib_host_facts(void);

#endif
