// SPDX-License-Identifier: MIT
/*
 * cuda.c: the CUDA driver family. (Placeholder until the family lands.)
 */
#include "ht.h"

void *ht__cuda_dlsym(void *handle, const char *name, void *found);
void *ht__cuda_dlsym(void *handle, const char *name, void *found)
{
	(void)handle;
	(void)name;
	return found;
}
void ht__cuda_dump(void) {}
