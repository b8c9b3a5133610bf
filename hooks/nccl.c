// SPDX-License-Identifier: MIT
/*
 * nccl.c: the NCCL family. (Placeholder until the family lands.)
 */
#include "ht.h"

void *ht__nccl_dlsym(void *handle, const char *name, void *found);
void *ht__nccl_dlsym(void *handle, const char *name, void *found)
{
	(void)handle;
	(void)name;
	return found;
}
void ht__nccl_activate(void) {}
void ht__nccl_fork_child(void) {}
void ht__nccl_dump(void) {}
const char *ht_nccl_op_name(int op) { (void)op; return "?"; }
const char *ht_nccl_dtype_name(int dtype) { (void)dtype; return "?"; }
const char *ht_nccl_redop_name(int redop) { (void)redop; return "?"; }
