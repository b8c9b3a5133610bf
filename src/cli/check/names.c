// SPDX-License-Identifier: MIT
/*
 * names.c: the names of the checks (HT_CHECK_MAP, names.h), on their own:
 * the report reads a check run with them, without the rest of the command.
 */
#include <string.h>

#include "check/names.h"

static const char *const check_names[] = {
#define XX(id, name) name,
	HT_CHECK_MAP(XX)
#undef XX
};

const char *ht_check_name(int id)
{
	return id >= 0 && id < HT_CHECK_COUNT ? check_names[id] : NULL;
}

int ht_check_from_name(const char *s)
{
	for (int i = 0; s != NULL && i < HT_CHECK_COUNT; i++)
		if (strcmp(s, check_names[i]) == 0)
			return i;
	return -1;
}
