// SPDX-License-Identifier: MIT
/*
 * real_nccl: what a job sees from the real NCCL on a machine without a
 * GPU: its version, a unique id (the root's address decoded here too) and
 * the error of ncclCommInitRank with NCCL's own message. Every line it
 * prints is the same from run to run, so a test can compare its output
 * with and without the library; the root, whose port changes, goes to the
 * file $ROOT_FILE instead.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

#include "nccl/nccl_test.h"

static void root_of(const ncclUniqueId *id, char *out, size_t n, int *family, int *fixed)
{
	uint64_t magic;
	sa_family_t fam;
	memcpy(&magic, id->internal, 8);
	memcpy(&fam, id->internal + 8, sizeof(fam));
	*fixed = magic == 0x0280028002800280ULL;
	*family = fam;
	out[0] = '\0';
	if (fam == AF_INET) {
		struct sockaddr_in in;
		char ip[INET_ADDRSTRLEN];
		memcpy(&in, id->internal + 8, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, ip, sizeof(ip));
		snprintf(out, n, "%s:%d", ip, ntohs(in.sin_port));
	}
}

int main(void)
{
	ncclUniqueId id;
	ncclComm_t comm = NULL;
	int v = 0, family = 0, fixed = 0;
	char root[64];

	t_identity();
	printf("version rc=%d\n", (int)ncclGetVersion(&v));
	printf("version %d\n", v);
	ncclResult_t rc = ncclGetUniqueId(&id);
	printf("getuniqueid rc=%d (%s)\n", (int)rc, ncclGetErrorString(rc));
	if (rc != ncclSuccess)
		return 1;
	root_of(&id, root, sizeof(root), &family, &fixed);
	printf("family %d fixed_magic %d\n", family, fixed);
	const char *rf = getenv("ROOT_FILE");
	if (rf != NULL) {
		FILE *f = fopen(rf, "w");
		if (f != NULL) {
			fprintf(f, "%s\n", root);
			fclose(f);
		}
	}
	errno = 0;
	rc = ncclCommInitRank(&comm, 1, id, 0);
	int e = errno;
	printf("initrank rc=%d (%s)\n", (int)rc, ncclGetErrorString(rc));
	printf("last error: %s\n", ncclGetLastError(NULL));
	printf("errno after init: %d\n", e);
	return rc == ncclSuccess ? 0 : 3;
}
