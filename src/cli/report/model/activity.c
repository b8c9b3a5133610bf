// SPDX-License-Identifier: MIT
/*
 * activity.c: reading from a network file system. A thread in D state
 * (uninterruptible sleep) does not take the dump's signal: the dump
 * describes it from /proc (its wchan, the kernel function it sleeps in;
 * src/core/dump.c), and no frame of the signature table names it. The
 * kernel's NFS client sleeps in rpc_wait_bit_killable, nfs_* and nfs4_*;
 * Lustre's in ptlrpc_*, cl_sync_io_wait, ll_*, osc_*, ldlm_*; FUSE's
 * (s3fs, gcsfuse, blobfuse) in request_wait_answer and fuse_*.
 */
#include <string.h>

#include "model/activity.h"

static const struct {
	const char *prefix, *fs;
} wchans[] = {
	{ "rpc_wait_bit_killable", "NFS" }, { "__rpc_", "NFS" }, { "rpc_", "NFS" },
	{ "nfs", "NFS" }, { "ptlrpc_", "Lustre" }, { "cl_sync_io", "Lustre" },
	{ "ll_", "Lustre" }, { "osc_", "Lustre" }, { "ldlm_", "Lustre" }, { "lov_", "Lustre" },
	{ "request_wait_answer", "FUSE" }, { "fuse_", "FUSE" }, { "ceph_", "CephFS" },
	{ "gpfs", "GPFS" }, { "cifs_", "SMB" }, { "smb2_", "SMB" },
};

const char *ht_rep_wchan_fs(const char *wchan)
{
	for (size_t i = 0; wchan != NULL && i < sizeof(wchans) / sizeof(wchans[0]); i++)
		if (strncmp(wchan, wchans[i].prefix, strlen(wchans[i].prefix)) == 0)
			return wchans[i].fs;
	return NULL;
}

void ht_rep_activities(struct rep_job *job)
{
	for (size_t i = 0; i < job->mains.n; i++) {
		struct rep_proc *p = job->mains.v[i];
		const struct rep_dump *d = p->last_dump;
		if (d == NULL || d->state != 'D' || p->doing == NULL)
			continue;
		const char *fs = ht_rep_wchan_fs(rep_dst(d)->wchan);
		if (fs == NULL)
			continue;
		const char *what = p->sig != NULL && !ht_sig_kind_is_wait(p->sig->kind) ?
				   ht_rep_printf(&job->a, "%s, ", p->sig->words) : "";
		p->doing = ht_rep_printf(&job->a, "%sreading from a network file system (%s: the "
					 "main thread sleeps in %s, state D)", what, fs, rep_dst(d)->wchan);
	}
}
