// SPDX-License-Identifier: MIT
/*
 * net_host.c: the host facts of the network family, written once at
 * activation (normal context: it may allocate and wait on the resolver):
 * what MASTER_ADDR, the torchrun rendezvous endpoint, NCCL_COMM_ID,
 * JAX_COORDINATOR_ADDRESS and the host name resolve to (the /etc/hosts
 * trap is a name that resolves to loopback), which become the endpoints
 * connects are attributed to; then the interfaces and their addresses,
 * which of them NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME select, the size
 * of /dev/shm, the memlock and open-file limits and the usable CPUs.
 */
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "env.h"
#include "fmt.h"
#include "jsonw.h"
#include "net.h"
#include "netfacts.h"
#include "phase.h"
#include "state.h"
#include "writer.h"


#define MAX_IFACES 64
#define MAX_RESOLVED 16

/* The host line may list many interfaces: a buffer of its own. */
static char host_buf[32768];

/*
 * Resolves name, writes a resolve line (what: the variable it came from),
 * and when port > 0 makes every address, with that port, an endpoint of
 * the given role.
 */
static void resolve(const char *what, const char *name, int port, enum ht_net_role role)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	struct ht_addr seen[MAX_RESOLVED];
	int nseen = 0;
	bool loopback = true;
	char buf[2048];
	struct ht_jw w;

	int rc = getaddrinfo(name, NULL, &hints, &res);
	ht_ev_begin(&w, buf, sizeof(buf), HT_EV_RESOLVE);
	ht_jw_str(&w, "what", what);
	ht_jw_str(&w, "name", name);
	ht_jw_arr_begin(&w, "addrs");
	for (struct addrinfo *ai = rc == 0 ? res : NULL; ai != NULL; ai = ai->ai_next) {
		struct ht_addr a;
		bool dup = false;
		if (!ht_addr_from_sa(&a, ai->ai_addr, ai->ai_addrlen))
			continue;
		for (int i = 0; i < nseen && !dup; i++)
			dup = ht_addr_equal(&seen[i], &a);
		if (dup || nseen == MAX_RESOLVED)
			continue;
		seen[nseen++] = a;
		char s[HT_ADDR_STRLEN];
		ht_addr_fmt(s, sizeof(s), &a, false);
		ht_jw_str(&w, NULL, s);
		loopback = loopback && ht_addr_loopback(&a);
		if (port > 0) {
			a.port = (uint16_t)port;
			ht_endpoints_add(&ht__net_endpoints, &a, role);
		}
	}
	ht_jw_end(&w);
	ht_jw_bool(&w, "loopback", nseen > 0 && loopback);
	ht_jw_str(&w, "error", rc != 0 ? gai_strerror(rc) : NULL);
	ht_ev_emit(&w);
	if (res != NULL)
		freeaddrinfo(res);
}

/* A "host[:port]" variable: resolved, its addresses endpoints of role. */
static void resolve_hostport(enum ht_envvar ev, int default_port, enum ht_net_role role)
{
	const char *var = ht_env_name(ev);
	const char *v = ht_env(ev);
	char host[256];
	int port;

	if (v == NULL || v[0] == '\0')
		return;
	if (!ht_hostport_split(v, host, sizeof(host), &port)) {
		char msg[400];
		size_t n = ht_append(msg, sizeof(msg), 0, var);
		n = ht_append(msg, sizeof(msg), n, " is not host:port: ");
		ht_append(msg, sizeof(msg), n, v);
		ht_ev_warning(msg);
		return;
	}
	resolve(var, host, port > 0 ? port : default_port, role);
}

static void resolve_env(void)
{
	const char *addr = ht_env(HT_ENV_MASTER_ADDR);
	const char *ports = ht_env(HT_ENV_MASTER_PORT);
	int64_t port = -1;

	if (addr != NULL && addr[0] != '\0') {
		char host[256];
		size_t n = strlen(addr);
		/* "[::1]" as well as "::1". */
		if (addr[0] == '[' && n > 2 && addr[n - 1] == ']' && n - 2 < sizeof(host)) {
			memcpy(host, addr + 1, n - 2);
			host[n - 2] = '\0';
		} else {
			ht_strlcpy(host, addr, sizeof(host));
		}
		if (ports == NULL || !ht_parse_i64(ports, &port) || port < 1 || port > 65535)
			port = -1;
		resolve("MASTER_ADDR", host, (int)port, HT_ROLE_RENDEZVOUS);
	}
	/* torchrun's --rdzv-endpoint, as its environment form; c10d's default port. */
	resolve_hostport(HT_ENV_PET_RDZV_ENDPOINT, 29400, HT_ROLE_RENDEZVOUS);
	resolve_hostport(HT_ENV_NCCL_COMM_ID, -1, HT_ROLE_NCCL_BOOTSTRAP);
	resolve_hostport(HT_ENV_JAX_COORDINATOR_ADDRESS, -1, HT_ROLE_JAX_COORDINATOR);

	char name[256];
	if (gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		resolve("hostname", name, -1, HT_ROLE_OTHER);
	}
}

struct iface {
	const char *name;
	bool up;
	bool usable;		/* has an address NCCL could use */
};

/* The interfaces, in the order getifaddrs lists them, each once. */
static int list_ifaces(struct ifaddrs *ifa, struct iface *out, int max)
{
	int n = 0;
	for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next) {
		int k = 0;
		while (k < n && strcmp(out[k].name, i->ifa_name) != 0)
			k++;
		if (k == n) {
			if (n == max)
				continue;
			out[n++] = (struct iface){ .name = i->ifa_name };
		}
		out[k].up = out[k].up || (i->ifa_flags & IFF_UP) != 0;
		struct ht_addr a;
		if (i->ifa_addr != NULL &&
		    ht_addr_from_sa(&a, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
			    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) &&
		    !(a.family == AF_INET6 && ht_addr_loopback(&a)))
			out[k].usable = true;	/* NCCL skips ::1 only */
	}
	return n;
}

static void write_ifaces(struct ht_jw *w, struct ifaddrs *ifa, const struct iface *ifs, int n)
{
	ht_jw_arr_begin(w, "ifaces");
	for (int k = 0; k < n; k++) {
		ht_jw_obj_begin(w, NULL);
		ht_jw_str(w, "name", ifs[k].name);
		ht_jw_bool(w, "up", ifs[k].up);
		ht_jw_arr_begin(w, "addrs");
		for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next) {
			struct ht_addr a;
			char s[HT_ADDR_STRLEN];
			if (strcmp(i->ifa_name, ifs[k].name) != 0 || i->ifa_addr == NULL ||
			    (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
				continue;
			if (!ht_addr_from_sa(&a, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
					     sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)))
				continue;
			ht_addr_fmt(s, sizeof(s), &a, false);
			ht_jw_str(w, NULL, s);
		}
		ht_jw_end(w);
		ht_jw_end(w);
	}
	ht_jw_end(w);
}

/*
 * Marks in sel the interfaces the variable ev selects under its rule
 * (NULL when var is unset) and warns when it selects none: NCCL then fails
 * or falls back, gloo fails. Returns the variable's value.
 */
static const char *match_ifaces(enum ht_envvar ev, const struct iface *ifs, int n, bool *sel,
				bool (*selects)(const char *, const char *))
{
	const char *var = ht_env_name(ev);
	const char *spec = ht_env(ev);
	int hits = 0;

	for (int k = 0; k < n; k++) {
		sel[k] = spec != NULL && ifs[k].usable && selects(spec, ifs[k].name);
		hits += sel[k];
	}
	if (spec != NULL && hits == 0) {
		char msg[600];
		size_t len = ht_append(msg, sizeof(msg), 0, var);
		len = ht_append(msg, sizeof(msg), len, "=");
		len = ht_append(msg, 240, len, spec);
		len = ht_append(msg, sizeof(msg), len, " selects no interface of this host (");
		for (int k = 0; k < n; k++) {
			if (k > 0)
				len = ht_append(msg, sizeof(msg) - 2, len, " ");
			len = ht_append(msg, sizeof(msg) - 2, len, ifs[k].name);
		}
		ht_append(msg, sizeof(msg), len, ")");
		ht_ev_warning(msg);
	}
	return spec;
}

static void write_match(struct ht_jw *w, const char *key, const char *spec,
			const struct iface *ifs, int n, const bool *sel)
{
	if (spec == NULL) {
		ht_jw_null(w, key);
		return;
	}
	ht_jw_arr_begin(w, key);
	for (int k = 0; k < n; k++)
		if (sel[k])
			ht_jw_str(w, NULL, ifs[k].name);
	ht_jw_end(w);
}

static void write_rlimit(struct ht_jw *w, int what, const char *soft, const char *hard)
{
	struct rlimit rl = { 0, 0 };
	bool ok = getrlimit(what, &rl) == 0;
	ht_jw_int_or_null(w, soft, (int64_t)rl.rlim_cur, ok && rl.rlim_cur != RLIM_INFINITY);
	ht_jw_int_or_null(w, hard, (int64_t)rl.rlim_max, ok && rl.rlim_max != RLIM_INFINITY);
}

static void host_line(void)
{
	struct ifaddrs *ifa = NULL;
	struct iface ifs[MAX_IFACES] = { { 0 } };
	int n = 0;
	struct ht_jw w;
	char name[256];
	struct statvfs sv = { 0 };
	cpu_set_t cpus;

	bool nsel[MAX_IFACES], gsel[MAX_IFACES];

	if (getifaddrs(&ifa) == 0)
		n = list_ifaces(ifa, ifs, MAX_IFACES);
	/* Warnings first, so lines stay in time order. */
	const char *nspec = match_ifaces(HT_ENV_NCCL_SOCKET_IFNAME, ifs, n, nsel, ht_nccl_ifname_selects);
	const char *gspec = match_ifaces(HT_ENV_GLOO_SOCKET_IFNAME, ifs, n, gsel, ht_gloo_ifname_selects);
	ht_ev_begin(&w, host_buf, sizeof(host_buf), HT_EV_HOST);
	if (gethostname(name, sizeof(name)) != 0)
		name[0] = '\0';
	name[sizeof(name) - 1] = '\0';
	ht_jw_str(&w, "hostname", name);
	write_ifaces(&w, ifa, ifs, n);
	ht_jw_str(&w, "nccl_socket_ifname", nspec);
	ht_jw_str(&w, "gloo_socket_ifname", gspec);
	write_match(&w, "nccl_ifname_match", nspec, ifs, n, nsel);
	write_match(&w, "gloo_ifname_match", gspec, ifs, n, gsel);
	bool shm = statvfs("/dev/shm", &sv) == 0;
	ht_jw_int_or_null(&w, "shm_total", (int64_t)(sv.f_blocks * sv.f_frsize), shm);
	ht_jw_int_or_null(&w, "shm_free", (int64_t)(sv.f_bavail * sv.f_frsize), shm);
	write_rlimit(&w, RLIMIT_MEMLOCK, "memlock_soft", "memlock_hard");
	write_rlimit(&w, RLIMIT_NOFILE, "nofile_soft", "nofile_hard");
	bool aff = sched_getaffinity(0, sizeof(cpus), &cpus) == 0;
	ht_jw_int_or_null(&w, "cpus", aff ? CPU_COUNT(&cpus) : 0, aff);
	ht_ev_emit(&w);
	if (ifa != NULL)
		freeifaddrs(ifa);
}

/* The job names a rendezvous endpoint: a process still in launch will
 * meet there later (an MPI job, wired up by its launcher, names none). */
static bool expects_rendezvous;

void ht__net_host_facts(void)
{
	expects_rendezvous = ht_env(HT_ENV_MASTER_ADDR) != NULL || ht_env(HT_ENV_MASTER_PORT) != NULL ||
			     ht_env(HT_ENV_PET_RDZV_ENDPOINT) != NULL ||
			     ht_env(HT_ENV_JAX_COORDINATOR_ADDRESS) != NULL;
	resolve_env();
	host_line();
}

bool ht__net_startup_pending(void)
{
	return expects_rendezvous && !ht_phases_has_ended(&ht_g.phases, HT_PHASE_RENDEZVOUS);
}
