// SPDX-License-Identifier: MIT
/* net_family.c: the network family's entry in the family table (hooks/families.h). */
#include "families.h"
#include "net.h"

const struct ht_family ht_family_net = {
	.name = "net",
	.activate = ht__net_activate,
	.fork_child = ht__net_fork_child,
	.dump = ht__net_dump,
	.may_signal = ht__net_dump_may_signal,
	.fd_closing = ht__net_fd_closing,
	.fd_range_closing = ht__net_fd_range_closing,
	.startup_pending = ht__net_startup_pending,
};
