// SPDX-License-Identifier: MIT
/*
 * ib.c: the "ib" host facts of the library, once per process at
 * activation (normal context: opendir allocates). The ports and the
 * judgement come from src/base/ibfacts.c, shared with `hangtrace check`;
 * this file only reads the variables and writes the line. It never touches
 * a device: sysfs only, so a job without InfiniBand pays one failed
 * opendir.
 */
#include <sys/resource.h>

#include "env.h"
#include "ib.h"
#include "ibfacts.h"
#include "jsonw.h"
#include "writer.h"

#define IB_ROOT "/sys/class/infiniband"

static char ib_buf[32768];
static struct ht_ib_port ports[HT_IB_MAX_PORTS];

void ht__ib_host_facts(void)
{
	struct ht_ib_env env = {
		.hca = ht_env(HT_ENV_NCCL_IB_HCA),
		.gid_index = ht_env(HT_ENV_NCCL_IB_GID_INDEX),
		.disable = ht_env(HT_ENV_NCCL_IB_DISABLE),
		.memlock_soft = -2,
	};
	struct rlimit rl;
	struct ht_ib_problem probs[HT_IB_MAX_PROBLEMS];
	struct ht_jw w;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
		env.memlock_soft = rl.rlim_cur == RLIM_INFINITY ? -1 : (int64_t)rl.rlim_cur;
	int n = ht_ib_scan(IB_ROOT, ports, HT_IB_MAX_PORTS);
	if (n == 0 && (env.hca == NULL || env.hca[0] == '\0'))
		return;
	int np = ht_ib_judge(ports, n, &env, probs, HT_IB_MAX_PROBLEMS);
	ht_ev_begin(&w, ib_buf, sizeof(ib_buf), HT_EV_IB);
	ht_ib_write_ports(&w, ports, n);
	ht_jw_str(&w, "nccl_ib_hca", env.hca);
	ht_jw_str(&w, "nccl_ib_gid_index", env.gid_index);
	ht_jw_str(&w, "nccl_ib_disable", env.disable);
	ht_jw_int_or_null(&w, "memlock_soft", env.memlock_soft, env.memlock_soft != -2);
	ht_jw_bool(&w, "in_use", ht_ib_in_use(ports, n, &env));
	ht_ib_write_problems(&w, probs, np);
	ht_ev_emit(&w);
}
