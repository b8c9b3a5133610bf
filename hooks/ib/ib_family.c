// SPDX-License-Identifier: MIT
/* ib_family.c: the InfiniBand family's entry in the family table (hooks/families.h). */
#include "families.h"
#include "ib.h"

const struct ht_family ht_family_ib = {
	.name = "ib",
	.activate = ht__ib_host_facts,
};
