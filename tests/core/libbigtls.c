// SPDX-License-Identifier: MIT
/*
 * libbigtls.so: a library with 1 MiB of static TLS (initial-exec, linked at
 * build time), as some vendor libraries carry: glibc carves it out of every
 * thread's stack, so a thread asked for with a small stack cannot start.
 */
__thread char bigtls_block[1 << 20] __attribute__((tls_model("initial-exec")));

int bigtls_touch(int i);
int bigtls_touch(int i)
{
	bigtls_block[i & ((1 << 20) - 1)] = (char)i;
	return bigtls_block[0];
}
