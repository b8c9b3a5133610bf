// SPDX-License-Identifier: MIT
/*
 * net.h: what the network family (hooks/net/net.c, hooks/net/net_host.c) offers
 * the other families, and what its two files share.
 */
#ifndef HT_HOOKS_NET_H
#define HT_HOOKS_NET_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "netfacts.h"

/*
 * Makes sa a known endpoint of the job, so that connects to it are
 * attributed to role ("rendezvous", "nccl_bootstrap", "jax_coordinator";
 * anything else counts as "other") and can open the rendezvous phase. The
 * NCCL family calls it with the bootstrap root of every unique id it sees.
 * Destinations already connected to take the role from now on. A known
 * address keeps its first role. Async-signal-safe, lock-free, never
 * allocates; a no-op when sa is not IPv4/IPv6 or the table (64) is full.
 */
void ht_net_add_endpoint(const struct sockaddr *sa, socklen_t len, const char *role);


/* ---- the family table's entries (net_family.c, hooks/families.h) ------------------ */

void ht__net_activate(void);
void ht__net_fork_child(void);
void ht__net_dump(void);
bool ht__net_dump_may_signal(pid_t tid);
void ht__net_fd_closing(int fd);
void ht__net_fd_range_closing(unsigned int first, unsigned int last);
/* The job names a rendezvous endpoint and this process has not finished
 * its rendezvous yet (net_host.c). */
bool ht__net_startup_pending(void);

/* ---- between net.c and net_host.c ------------------------------------------------ */

/* The attributed endpoints (MASTER_ADDR:MASTER_PORT and the others). */
extern struct ht_endpoints ht__net_endpoints;

/* Writes the resolve and host lines and fills ht__net_endpoints from the
 * environment (net_host.c). Activation context: may allocate and block on
 * the resolver. */
void ht__net_host_facts(void);

#endif
