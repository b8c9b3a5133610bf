// SPDX-License-Identifier: MIT
/*
 * facts.c: what one rank of `hangtrace check` finds on its own host, each
 * written as a "check" line: its rank identity; the GPU its local rank
 * would take, through the driver (dlopen libcuda.so.1, as the runtime
 * does), with the driver, runtime and NCCL versions; the interface NCCL
 * would bootstrap from (NCCL's ncclFindInterfaces, src/misc/socket.cc of
 * NCCL 2.x) and its address; what the host name and MASTER_ADDR resolve
 * to; /dev/shm; the InfiniBand/RoCE ports (src/base/ibfacts.c, the same
 * "ib" line the library writes). Nothing here waits on another rank.
 */
/* The sentences written are cut at their buffer on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "check.h"
#include "netfacts.h"

extern char **environ;

static void *libcuda;

void *ht_chk_libcuda(void)
{
	return libcuda;
}

void *ht_chk_libnccl(void)
{
	static void *h;
	static bool tried;
	if (!tried) {
		tried = true;
		h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
	}
	return h;
}

static void identity(struct chk *c)
{
	c->f.rank = c->id.rank;
	c->f.world_size = c->id.world_size;
	c->f.local_rank = c->id.local_rank;
	if (c->id.rank < 0 || c->id.world_size < 1)
		ht_chk_result(c, HT_CHECK_IDENTITY, "fail", NULL, NULL, 0,
			      "no rank identity: launch it like the job (srun, mpirun, or RANK and "
			      "WORLD_SIZE set)");
	else if (c->id.rank >= c->id.world_size)
		ht_chk_result(c, HT_CHECK_IDENTITY, "fail", "world_size_mismatch", NULL, 0,
			      "rank %lld is not below the world size %lld", (long long)c->id.rank,
			      (long long)c->id.world_size);
	else
		ht_chk_result(c, HT_CHECK_IDENTITY, "pass", NULL, NULL, 0,
			      "rank %lld of %lld, local rank %lld (%s)", (long long)c->id.rank,
			      (long long)c->id.world_size, (long long)c->id.local_rank,
			      c->id.launcher != NULL ? c->id.launcher : "?");
}

/* ---- GPU ------------------------------------------------------------------ */

typedef int (*cu_int_fn)(int *);
typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_uuid_fn)(unsigned char *, int);

static int64_t runtime_version(void)
{
	static const char *const names[] = { "libcudart.so", "libcudart.so.13", "libcudart.so.12",
					     "libcudart.so.11.0" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h == NULL)
			continue;
		cu_int_fn f = (cu_int_fn)dlsym(h, "cudaRuntimeGetVersion");
		int v = -1;
		if (f != NULL && f(&v) == 0 && v > 0)
			return v;
	}
	return -1;
}

static int64_t nccl_version(void)
{
	void *h = ht_chk_libnccl();
	cu_int_fn f = h != NULL ? (cu_int_fn)dlsym(h, "ncclGetVersion") : NULL;
	int v = -1;
	return f != NULL && f(&v) == 0 ? v : -1;
}

static void fmt_ver(char *out, size_t cap, int64_t v)
{
	if (v < 0)
		snprintf(out, cap, "?");
	else
		snprintf(out, cap, "%lld.%lld", (long long)(v / 1000), (long long)(v % 1000 / 10));
}

/* The GPU facts the gpu line carries (doc/trace-format.md, check). */
static void gpu_facts(struct chk *c)
{
	struct ht_jw w;
	ht_jw_init(&w, c->facts, sizeof(c->facts));
	ht_jw_obj_begin(&w, NULL);
	ht_jw_str(&w, "libcuda", c->f.libcuda[0] ? c->f.libcuda : NULL);
	ht_jw_int_or_null(&w, "cu_init", c->f.cuda_init, c->f.cuda_init >= 0);
	ht_jw_int_or_null(&w, "device_count", c->f.gpu_count, c->f.gpu_count >= 0);
	ht_jw_int_or_null(&w, "ordinal", c->f.ordinal, c->f.ordinal >= 0);
	ht_jw_str(&w, "uuid", c->f.uuid[0] ? c->f.uuid : NULL);
	ht_jw_str(&w, "visible_devices", strcmp(c->f.visible, "-") != 0 ? c->f.visible : NULL);
	ht_jw_int_or_null(&w, "driver_version", c->f.driver, c->f.driver >= 0);
	ht_jw_int_or_null(&w, "runtime_version", c->f.runtime, c->f.runtime >= 0);
	ht_jw_int_or_null(&w, "nccl_version", c->f.nccl, c->f.nccl >= 0);
	ht_jw_end(&w);
	bool cut = w.full;	/* ht_jw_finish sets full: read it first */
	size_t n = ht_jw_finish(&w);
	/* ht_jw_finish ends the line: the field wants the object alone. */
	if (n > 0 && c->facts[n - 1] == '\n')
		c->facts[n - 1] = '\0';
	if (cut || n == 0)
		c->facts[0] = '\0';
}

static void gpu(struct chk *c)
{
	const char *cvd = ht_env_get(environ, "CUDA_VISIBLE_DEVICES");
	char dv[16], rv[16];
	int r;

	ht_strlcpy(c->f.visible, cvd != NULL ? cvd : "-", sizeof(c->f.visible));
	c->f.driver = c->f.runtime = -1;
	c->f.gpu_count = -1;
	c->f.ordinal = -1;
	c->f.cuda_init = -1;
	c->f.nccl = nccl_version();
	c->f.runtime = runtime_version();
	libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (libcuda == NULL) {
		gpu_facts(c);
		ht_chk_result(c, HT_CHECK_GPU, "skip", NULL, NULL, 0,
			      "no CUDA driver here (libcuda.so.1 cannot be loaded)");
		return;
	}
	cu_init_fn init = (cu_init_fn)dlsym(libcuda, "cuInit");
	Dl_info di;
	if (init != NULL && dladdr((void *)init, &di) != 0 && di.dli_fname != NULL)
		ht_strlcpy(c->f.libcuda, di.dli_fname, sizeof(c->f.libcuda));
	cu_int_fn drv = (cu_int_fn)dlsym(libcuda, "cuDriverGetVersion");
	cu_int_fn count = (cu_int_fn)dlsym(libcuda, "cuDeviceGetCount");
	cu_get_fn get = (cu_get_fn)dlsym(libcuda, "cuDeviceGet");
	cu_uuid_fn uuid = (cu_uuid_fn)dlsym(libcuda, "cuDeviceGetUuid_v2");
	if (uuid == NULL)
		uuid = (cu_uuid_fn)dlsym(libcuda, "cuDeviceGetUuid");
	if (init == NULL || drv == NULL || count == NULL || get == NULL) {
		gpu_facts(c);
		ht_chk_result(c, HT_CHECK_GPU, "fail", "cuda_init_failed", NULL, 0,
			      "libcuda.so.1 lacks cuInit or cuDeviceGetCount: not a CUDA driver");
		return;
	}
	int v = -1;
	if (drv(&v) == 0)
		c->f.driver = v;
	fmt_ver(dv, sizeof(dv), c->f.driver);
	fmt_ver(rv, sizeof(rv), c->f.runtime);
	if ((r = init(0)) != 0) {
		c->f.cuda_init = r;
		bool old = r == 35, stub = r == 34;
		gpu_facts(c);
		ht_chk_result(c, HT_CHECK_GPU, "fail",
			      old ? "driver_too_old" : stub ? "stub_driver" : "cuda_init_failed",
			      NULL, 0, "cuInit failed with error %d%s (driver %s, runtime %s)", r,
			      old ? " (CUDA_ERROR_INSUFFICIENT_DRIVER)" :
			      stub ? " (CUDA_ERROR_STUB_LIBRARY: the toolkit's stub, not a driver)" : "",
			      dv, rv);
		return;
	}
	c->f.cuda_init = 0;
	c->f.cuda = true;
	int n = 0;
	if (count(&n) != 0)
		n = 0;
	c->f.gpu_count = n;
	int want = c->id.local_rank >= 0 ? (int)c->id.local_rank : 0;
	if (c->f.driver >= 0 && c->f.runtime >= 0 && c->f.driver < c->f.runtime) {
		gpu_facts(c);
		ht_chk_result(c, HT_CHECK_GPU, "fail", "driver_too_old", NULL, 0,
			      "the driver supports CUDA %s, older than the runtime's CUDA %s", dv, rv);
		return;
	}
	if (want >= n) {
		gpu_facts(c);
		ht_chk_result(c, HT_CHECK_GPU, "fail", "too_many_local_ranks", NULL, 0,
			      "local rank %d would take GPU %d, but %d GPU%s visible "
			      "(CUDA_VISIBLE_DEVICES=%s)", want, want, n, n == 1 ? " is" : "s are",
			      c->f.visible);
		return;
	}
	int dev = 0;
	unsigned char u[16];
	if (get(&dev, want) == 0 && uuid != NULL && uuid(u, dev) == 0)
		snprintf(c->f.uuid, sizeof(c->f.uuid),
			 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
			 u[12], u[13], u[14], u[15]);
	c->f.ordinal = want;
	gpu_facts(c);
	ht_chk_result(c, HT_CHECK_GPU, "pass", NULL, NULL, 0,
		      "local rank %d takes GPU %d of %d (%s), CUDA_VISIBLE_DEVICES=%s, driver %s, "
		      "runtime %s", want, want, n, c->f.uuid[0] ? c->f.uuid : "uuid ?",
		      c->f.visible, dv, rv);
}

/* ---- the interface NCCL would bootstrap from ------------------------------ */

/* The first interface that spec selects with an address NCCL takes (IPv4,
 * or IPv6 but not ::1), as NCCL's findInterfaces walks getifaddrs. */
static bool find_iface(struct ifaddrs *ifa, const char *spec, char *name, size_t ncap,
		       char *addr, size_t acap)
{
	for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next) {
		struct ht_addr a;
		if (i->ifa_addr == NULL ||
		    (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
			continue;
		if (!ht_addr_from_sa(&a, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
				     sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)))
			continue;
		if (a.family == AF_INET6 && ht_addr_loopback(&a))
			continue;
		if (!ht_nccl_ifname_selects(spec, i->ifa_name))
			continue;
		ht_strlcpy(name, i->ifa_name, ncap);
		ht_addr_fmt(addr, acap, &a, false);
		return true;
	}
	return false;
}

static void if_facts(struct chk *c, const char *spec)
{
	struct ht_jw w;
	ht_jw_init(&w, c->facts, sizeof(c->facts));
	ht_jw_obj_begin(&w, NULL);
	ht_jw_str(&w, "nccl_socket_ifname", spec);
	ht_jw_str(&w, "ifname", c->f.ifname[0] ? c->f.ifname : NULL);
	ht_jw_str(&w, "addr", c->f.addr[0] ? c->f.addr : NULL);
	ht_jw_end(&w);
	bool cut = w.full;	/* ht_jw_finish sets full: read it first */
	size_t n = ht_jw_finish(&w);
	if (n > 0 && c->facts[n - 1] == '\n')
		c->facts[n - 1] = '\0';
	if (cut || n == 0)
		c->facts[0] = '\0';
}

static void ifname(struct chk *c)
{
	struct ifaddrs *ifa = NULL;
	const char *spec = ht_env_get(environ, "NCCL_SOCKET_IFNAME");
	char names[512] = "";
	size_t n = 0;

	if (getifaddrs(&ifa) != 0) {
		if_facts(c, spec);
		ht_chk_result(c, HT_CHECK_IFNAME, "fail", NULL, NULL, 0,
			      "cannot list the interfaces (getifaddrs)");
		return;
	}
	for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET && n < 400) {
			n = ht_append(names, sizeof(names), n, n > 0 ? " " : "");
			n = ht_append(names, sizeof(names), n, i->ifa_name);
		}
	char *name = c->f.ifname, *addr = c->f.addr;
	size_t nc = sizeof(c->f.ifname), ac = sizeof(c->f.addr);
	if (spec != NULL && strlen(spec) > 1) {
		bool found = find_iface(ifa, spec, name, nc, addr, ac);
		if_facts(c, spec);
		if (!found)
			ht_chk_result(c, HT_CHECK_IFNAME, "fail", "socket_ifname_missing", NULL, 0,
				      "NCCL_SOCKET_IFNAME=%s selects no interface of this host (%s)",
				      spec, names);
		else
			ht_chk_result(c, HT_CHECK_IFNAME, "pass", NULL, NULL, 0,
				      "NCCL_SOCKET_IFNAME=%s: NCCL bootstraps from %s (%s)", spec,
				      name, addr);
	} else {
		/* NCCL's order without the variable: ib*, then anything but docker*
		 * and lo*, then docker*, then lo*. (The NCCL_COMM_ID subnet step is
		 * left out: the check runs without NCCL_COMM_ID.) */
		static const char *const order[] = { "ib", "^docker,lo", "docker", "lo" };
		bool found = false;
		for (size_t k = 0; k < 4 && !found; k++)
			found = find_iface(ifa, order[k], name, nc, addr, ac);
		if_facts(c, spec);
		if (!found)
			ht_chk_result(c, HT_CHECK_IFNAME, "fail", NULL, NULL, 0,
				      "no interface with an address: NCCL cannot bootstrap");
		else
			ht_chk_result(c, HT_CHECK_IFNAME, "pass", NULL, NULL, 0,
				      "NCCL_SOCKET_IFNAME unset: NCCL bootstraps from %s (%s)%s", name,
				      addr, strncmp(name, "lo", 2) == 0 ?
				      ", the only interface: fine on one host only" : "");
	}
	freeifaddrs(ifa);
}

/* ---- names, /dev/shm, InfiniBand ----------------------------------------- */

static bool resolves(const char *name, char *first, size_t cap, bool *loopback)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	if (getaddrinfo(name, NULL, &hints, &res) != 0 || res == NULL)
		return false;
	struct ht_addr a;
	*loopback = true;
	first[0] = '\0';
	for (struct addrinfo *i = res; i != NULL; i = i->ai_next)
		if (ht_addr_from_sa(&a, i->ai_addr, i->ai_addrlen)) {
			if (first[0] == '\0')
				ht_addr_fmt(first, cap, &a, false);
			*loopback = *loopback && ht_addr_loopback(&a);
		}
	freeaddrinfo(res);
	return true;
}

static void resolve(struct chk *c)
{
	char a[HT_ADDR_STRLEN], m[HT_ADDR_STRLEN] = "";
	bool lo = false, mlo = false;
	if (!resolves(c->f.host, a, sizeof(a), &lo)) {
		ht_chk_result(c, HT_CHECK_RESOLVE, "fail", NULL, NULL, 0,
			      "the host name %s does not resolve (DNS or /etc/hosts)", c->f.host);
		return;
	}
	if (c->master != NULL && c->master[0] != '\0' &&
	    !resolves(c->master, m, sizeof(m), &mlo)) {
		ht_chk_result(c, HT_CHECK_RESOLVE, "fail", "rendezvous_unreachable", NULL, 0,
			      "MASTER_ADDR=%s does not resolve on this host", c->master);
		return;
	}
	ht_chk_result(c, HT_CHECK_RESOLVE, "pass", NULL, NULL, 0, "%s resolves to %s%s%s%s%s",
		      c->f.host, a, c->master != NULL ? ", MASTER_ADDR=" : "",
		      c->master != NULL ? c->master : "", m[0] ? " to " : "", m);
}

static void shm(struct chk *c)
{
	struct statvfs sv;
	if (statvfs("/dev/shm", &sv) != 0) {
		ht_chk_result(c, HT_CHECK_SHM, "fail", "shm_too_small", NULL, 0,
			      "no /dev/shm: NCCL and DataLoader workers need it");
		return;
	}
	long long total = (long long)sv.f_blocks * (long long)sv.f_frsize;
	if (total < CHK_SHM_MIN)
		ht_chk_result(c, HT_CHECK_SHM, "fail", "shm_too_small", NULL, 0,
			      "/dev/shm is %lld MiB, below %lld MiB", total >> 20, CHK_SHM_MIN >> 20);
	else
		ht_chk_result(c, HT_CHECK_SHM, "pass", NULL, NULL, 0, "/dev/shm is %lld MiB",
			      total >> 20);
}

static void ib(struct chk *c)
{
	static char buf[32768];
	struct ht_ib_env env = {
		.hca = ht_env_get(environ, "NCCL_IB_HCA"),
		.gid_index = ht_env_get(environ, "NCCL_IB_GID_INDEX"),
		.disable = ht_env_get(environ, "NCCL_IB_DISABLE"),
		.memlock_soft = -2,
	};
	struct ht_ib_problem probs[HT_IB_MAX_PROBLEMS];
	struct rlimit rl;
	struct ht_jw w;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
		env.memlock_soft = rl.rlim_cur == RLIM_INFINITY ? -1 : (int64_t)rl.rlim_cur;
	int n = ht_ib_scan("/sys/class/infiniband", c->f.ports, HT_IB_MAX_PORTS);
	c->f.nports = n;
	c->f.gid_index = env.gid_index;
	int np = ht_ib_judge(c->f.ports, n, &env, probs, HT_IB_MAX_PROBLEMS);
	/* The same "ib" line as the library's (hooks/ib/ib.c). */
	ht_chk_begin(c, &w, buf, sizeof(buf), HT_EV_IB);
	ht_ib_write_ports(&w, c->f.ports, n);
	ht_jw_str(&w, "nccl_ib_hca", env.hca);
	ht_jw_str(&w, "nccl_ib_gid_index", env.gid_index);
	ht_jw_str(&w, "nccl_ib_disable", env.disable);
	ht_jw_int_or_null(&w, "memlock_soft", env.memlock_soft, env.memlock_soft != -2);
	ht_jw_bool(&w, "in_use", ht_ib_in_use(c->f.ports, n, &env));
	ht_ib_write_problems(&w, probs, np);
	ht_chk_emit(c, &w);
	if (n == 0 && (env.hca == NULL || env.hca[0] == '\0')) {
		ht_chk_result(c, HT_CHECK_IB, "skip", NULL, NULL, 0,
			      "no InfiniBand/RoCE device on this host");
		return;
	}
	if (np > 0) {
		char all[1024];
		size_t k = 0;
		for (int i = 0; i < np; i++) {
			char one[300];
			if (probs[i].port > 0)
				snprintf(one, sizeof(one), "%s%s port %d: %s", i ? "; " : "",
					 probs[i].dev, probs[i].port, probs[i].what);
			else
				snprintf(one, sizeof(one), "%s%s", i ? "; " : "", probs[i].what);
			k = ht_append(all, sizeof(all), k, one);
		}
		ht_chk_result(c, HT_CHECK_IB, "fail", "ib_misconfigured", NULL, 0, "%s", all);
		return;
	}
	ht_chk_result(c, HT_CHECK_IB, "pass", NULL, NULL, 0, "%d port%s, NCCL_IB_HCA=%s%s", n,
		      n == 1 ? "" : "s", env.hca != NULL ? env.hca : "(unset)",
		      ht_ib_in_use(c->f.ports, n, &env) ? "" : ", IB not used");
}

/* A file store (init_method="file://PATH", PyTorch's FileStore) named by a
 * variable: before the job, a file there is a previous run's, left when it
 * was killed; its ranks would read that run's peers (stale_store). */
static void store(struct chk *c)
{
	extern char **environ;
	const char *name = NULL, *path = NULL;
	for (size_t i = 0; environ != NULL && environ[i] != NULL && path == NULL; i++) {
		const char *eq = strchr(environ[i], '=');
		if (eq != NULL && strncmp(eq + 1, "file:///", 8) == 0) {
			name = environ[i];
			path = eq + 1 + 7;
		}
	}
	if (path == NULL) {
		ht_chk_result(c, HT_CHECK_STORE, "skip", NULL, NULL, 0,
			      "no variable names a file store (file://)");
		return;
	}
	int nlen = (int)(strchr(name, '=') - name);
	char file[1024];
	snprintf(file, sizeof(file), "%.*s", (int)strcspn(path, "?"), path);
	struct stat st;
	if (stat(file, &st) != 0 || st.st_size == 0) {
		ht_chk_result(c, HT_CHECK_STORE, "pass", NULL, NULL, 0,
			      "%.*s names the file store %s, which does not exist yet", nlen, name,
			      file);
		return;
	}
	double age = difftime(time(NULL), st.st_mtime);
	ht_chk_result(c, HT_CHECK_STORE, "fail", "stale_store", NULL, 0,
		      "%.*s names the file store %s, which exists before the job: %lld bytes, "
		      "last written %.0f %s ago (a previous run's)", nlen, name, file,
		      (long long)st.st_size, age < 120 ? age : age < 7200 ? age / 60 : age / 3600,
		      age < 120 ? "s" : age < 7200 ? "min" : "h");
}

void ht_chk_local(struct chk *c)
{
	identity(c);
	gpu(c);
	ifname(c);
	resolve(c);
	shm(c);
	ib(c);
	store(c);
}
