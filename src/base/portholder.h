// SPDX-License-Identifier: MIT
/*
 * portholder.h: the process that holds a listening TCP port (portholder.c).
 */
#ifndef HT_BASE_PORTHOLDER_H
#define HT_BASE_PORTHOLDER_H

#include <stddef.h>
#include <sys/types.h>

/* The pid of the process holding a listening TCP socket on port, or 0 when
 * none is found (or it is not ours to see); its command line, arguments
 * joined by spaces and secret values masked, into cmd[cap]. */
pid_t ht_net_port_holder(int port, char *cmd, size_t cap);

#endif
