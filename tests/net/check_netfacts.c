// SPDX-License-Identifier: MIT
/*
 * check_netfacts.c: the plain logic of the network family: addresses as
 * the trace writes them (IPv4-mapped folded to IPv4, RFC 5952 IPv6),
 * loopback, attribution of destinations and listeners to endpoints, the
 * outcome classes, the 1-2-4-8 rule, exact counts under concurrent
 * writers, and NCCL's and gloo's interface-name rules.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "ht_check.h"
#include "netfacts.h"

static struct ht_addr addr(const char *ip, int port)
{
	struct ht_addr a;
	ck_assert_msg(ht_addr_parse(&a, ip), "parse %s", ip);
	a.port = (uint16_t)port;
	return a;
}

static const char *fmt(const struct ht_addr *a, bool port)
{
	static char s[HT_ADDR_STRLEN];
	ht_addr_fmt(s, sizeof(s), a, port);
	return s;
}

START_TEST(sockaddr_v4_v6_mapped)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(29500) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(29500) };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct ht_addr a;

	inet_pton(AF_INET, "10.1.2.3", &in.sin_addr);
	ck_assert(ht_addr_from_sa(&a, &in, sizeof(in)));
	ck_assert_str_eq(fmt(&a, true), "10.1.2.3:29500");
	ck_assert_str_eq(fmt(&a, false), "10.1.2.3");
	ck_assert(!ht_addr_from_sa(&a, &in, sizeof(in) - 1));
	ck_assert(!ht_addr_from_sa(&a, &un, sizeof(un)));
	ck_assert(!ht_addr_from_sa(&a, NULL, 16));

	/* PyTorch 1.13's TCPStore: ::ffff:127.0.0.1 is written, and matched, as IPv4. */
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
	ck_assert(ht_addr_from_sa(&a, &in6, sizeof(in6)));
	ck_assert_int_eq(a.family, AF_INET);
	ck_assert_str_eq(fmt(&a, true), "127.0.0.1:29500");
	struct ht_addr b = addr("127.0.0.1", 29500);
	ck_assert(ht_addr_equal(&a, &b));

	inet_pton(AF_INET6, "fe80::1", &in6.sin6_addr);
	in6.sin6_scope_id = 2;
	ck_assert(ht_addr_from_sa(&a, &in6, sizeof(in6)));
	ck_assert_str_eq(fmt(&a, true), "[fe80::1%2]:29500");
	ck_assert_str_eq(fmt(&a, false), "fe80::1%2");
}
END_TEST

START_TEST(ipv6_rfc5952)
{
	static const char *const cases[][2] = {
		{ "::1", "[::1]:7" },
		{ "::", "[::]:7" },
		{ "2001:db8:0:0:1:0:0:1", "[2001:db8::1:0:0:1]:7" },
		{ "2001:0:0:1:0:0:0:1", "[2001:0:0:1::1]:7" },
		{ "2001:db8:0:1:1:1:1:1", "[2001:db8:0:1:1:1:1:1]:7" },
		{ "1:0:0:0:0:0:0:0", "[1::]:7" },
		{ "FD00:0:0:0:0:0:0:2", "[fd00::2]:7" },
		{ "abcd:ef01:2345:6789:abcd:ef01:2345:6789", "[abcd:ef01:2345:6789:abcd:ef01:2345:6789]:7" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ht_addr a = addr(cases[i][0], 7);
		ck_assert_str_eq(fmt(&a, true), cases[i][1]);
	}
	/* Against glibc's inet_ntop, on addresses it does not print with an
	 * embedded IPv4 part (leading groups non-zero). */
	unsigned seed = 12345;
	for (int n = 0; n < 20000; n++) {
		struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
		uint8_t *b = (uint8_t *)&in6.sin6_addr;
		for (int g = 0; g < 8; g++) {
			unsigned r = rand_r(&seed);
			unsigned v = (r & 3) == 0 ? r >> 8 & 0xffff : 0;	/* mostly zeros */
			b[2 * g] = (uint8_t)(v >> 8);
			b[2 * g + 1] = (uint8_t)v;
		}
		b[0] = 0x20;
		char want[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, b, want, sizeof(want));
		struct ht_addr a;
		ck_assert(ht_addr_from_sa(&a, &in6, sizeof(in6)));
		ck_assert_str_eq(fmt(&a, false), want);
	}
}
END_TEST

START_TEST(loopback_and_any)
{
	struct ht_addr a = addr("127.0.1.1", 0), b = addr("::1", 0), c = addr("::ffff:127.0.0.1", 0);
	struct ht_addr d = addr("10.0.0.1", 0), e = addr("0.0.0.0", 0), f = addr("::", 0);
	ck_assert(ht_addr_loopback(&a));
	ck_assert(ht_addr_loopback(&b));
	ck_assert(ht_addr_loopback(&c));
	ck_assert(!ht_addr_loopback(&d));
	ck_assert(!ht_addr_loopback(&f));
	ck_assert(ht_addr_any(&e) && ht_addr_any(&f) && !ht_addr_any(&d));
}
END_TEST

START_TEST(hostport)
{
	char h[64];
	int port;
	ck_assert(ht_hostport_split("10.0.0.1:29500", h, sizeof(h), &port));
	ck_assert_str_eq(h, "10.0.0.1");
	ck_assert_int_eq(port, 29500);
	ck_assert(ht_hostport_split("node-17.cluster", h, sizeof(h), &port));
	ck_assert_str_eq(h, "node-17.cluster");
	ck_assert_int_eq(port, -1);
	ck_assert(ht_hostport_split("[fd00::2]:1234", h, sizeof(h), &port));
	ck_assert_str_eq(h, "fd00::2");
	ck_assert_int_eq(port, 1234);
	ck_assert(ht_hostport_split("fd00::2", h, sizeof(h), &port));
	ck_assert_str_eq(h, "fd00::2");
	ck_assert_int_eq(port, -1);
	ck_assert(ht_hostport_split("[::1]", h, sizeof(h), &port));
	ck_assert_str_eq(h, "::1");
	ck_assert(!ht_hostport_split("host:0", h, sizeof(h), &port));
	ck_assert(!ht_hostport_split("host:65536", h, sizeof(h), &port));
	ck_assert(!ht_hostport_split("host:12ab", h, sizeof(h), &port));
	ck_assert(!ht_hostport_split(":29500", h, sizeof(h), &port));
	ck_assert(!ht_hostport_split("[::1]x", h, sizeof(h), &port));
	ck_assert(!ht_hostport_split("averyveryveryveryveryveryveryveryveryveryveryverylonghostname:1",
				     h, 16, &port));
}
END_TEST

START_TEST(outcomes_and_names)
{
	ck_assert_int_eq(ht_net_result_of(0), HT_RES_OK);
	ck_assert_int_eq(ht_net_result_of(ECONNREFUSED), HT_RES_REFUSED);
	ck_assert_int_eq(ht_net_result_of(ETIMEDOUT), HT_RES_TIMEOUT);
	ck_assert_int_eq(ht_net_result_of(EHOSTUNREACH), HT_RES_UNREACHABLE);
	ck_assert_int_eq(ht_net_result_of(ENETUNREACH), HT_RES_UNREACHABLE);
	ck_assert_int_eq(ht_net_result_of(EINPROGRESS), HT_RES_PENDING);
	ck_assert_int_eq(ht_net_result_of(ECONNRESET), HT_RES_ERROR);
	ck_assert_str_eq(ht_net_result_name(HT_RES_REFUSED), "refused");
	ck_assert_str_eq(ht_net_role_name(HT_ROLE_NCCL_BOOTSTRAP), "nccl_bootstrap");
	ck_assert_int_eq(ht_net_role_from_name("rendezvous"), HT_ROLE_RENDEZVOUS);
	ck_assert_int_eq(ht_net_role_from_name("bogus"), -1);
	ck_assert_ptr_null(ht_net_role_name(HT_ROLE_COUNT));
	ck_assert_str_eq(ht_tcp_state_name(TCP_SYN_SENT), "SYN_SENT");
	ck_assert_str_eq(ht_tcp_state_name(TCP_CLOSE), "CLOSE");
	ck_assert_str_eq(ht_tcp_state_name(99), "UNKNOWN");
	ck_assert(ht_tcp_state_connected(TCP_ESTABLISHED));
	ck_assert(ht_tcp_state_connected(TCP_CLOSE_WAIT));
	ck_assert(!ht_tcp_state_connected(TCP_SYN_SENT));
	ck_assert(!ht_tcp_state_connected(TCP_CLOSE));
}
END_TEST

START_TEST(log_rule_1_2_4_8)
{
	int lines = 0;
	/* NCCL's 34 attempts on a new socket each: lines at 1 2 4 8 16 32. */
	for (uint64_t n = 1; n <= 34; n++)
		lines += ht_net_log_due(n);
	ck_assert_int_eq(lines, 6);
	ck_assert(!ht_net_log_due(0));
	ck_assert(ht_net_log_due(1) && ht_net_log_due(2) && !ht_net_log_due(3) && ht_net_log_due(4));
	ck_assert(ht_net_log_due(1ull << 40) && !ht_net_log_due((1ull << 40) + 1));
}
END_TEST

START_TEST(endpoint_attribution)
{
	static struct ht_endpoints t;
	memset(&t, 0, sizeof(t));
	struct ht_addr master = addr("10.0.0.5", 29500), boot = addr("fd00::7", 41000);
	ck_assert_int_eq(ht_endpoints_add(&t, &master, HT_ROLE_RENDEZVOUS), 0);
	ck_assert_int_eq(ht_endpoints_add(&t, &boot, HT_ROLE_NCCL_BOOTSTRAP), 0);
	/* A known address keeps its first role, and takes no new slot. */
	ck_assert_int_eq(ht_endpoints_add(&t, &master, HT_ROLE_JAX_COORDINATOR), 0);
	ck_assert_uint_eq(atomic_load(&t.claimed), 2);

	struct ht_addr mapped;
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(29500) };
	inet_pton(AF_INET6, "::ffff:10.0.0.5", &in6.sin6_addr);
	ht_addr_from_sa(&mapped, &in6, sizeof(in6));
	ck_assert_int_eq(ht_endpoints_role(&t, &mapped), HT_ROLE_RENDEZVOUS);
	struct ht_addr b2 = addr("fd00::7", 41000), other_port = addr("10.0.0.5", 29501);
	struct ht_addr other_host = addr("10.0.0.6", 29500);
	ck_assert_int_eq(ht_endpoints_role(&t, &b2), HT_ROLE_NCCL_BOOTSTRAP);
	ck_assert_int_eq(ht_endpoints_role(&t, &other_port), HT_ROLE_OTHER);
	ck_assert_int_eq(ht_endpoints_role(&t, &other_host), HT_ROLE_OTHER);

	/* The store listening on [::]:29500 or 10.0.0.5:29500 serves the rendezvous. */
	struct ht_addr any6 = addr("::", 29500), here = addr("10.0.0.5", 29500);
	struct ht_addr elsewhere = addr("10.9.9.9", 29500), any_other = addr("0.0.0.0", 29600);
	ck_assert_int_eq(ht_endpoints_role_listen(&t, &any6), HT_ROLE_RENDEZVOUS);
	ck_assert_int_eq(ht_endpoints_role_listen(&t, &here), HT_ROLE_RENDEZVOUS);
	ck_assert_int_eq(ht_endpoints_role_listen(&t, &elsewhere), HT_ROLE_OTHER);
	ck_assert_int_eq(ht_endpoints_role_listen(&t, &any_other), HT_ROLE_OTHER);

	for (int i = 2; i < HT_NET_ENDPOINTS; i++) {
		struct ht_addr x = addr("10.1.0.1", 1000 + i);
		ck_assert_int_eq(ht_endpoints_add(&t, &x, HT_ROLE_OTHER), 0);
	}
	struct ht_addr late = addr("10.2.0.1", 1);
	ck_assert_int_eq(ht_endpoints_add(&t, &late, HT_ROLE_RENDEZVOUS), -ENOSPC);
	ck_assert_int_eq(ht_endpoints_role(&t, &late), HT_ROLE_OTHER);
}
END_TEST

static struct ht_dests dtab;
static struct ht_agg atab;

START_TEST(dests_stable_indices)
{
	memset(&dtab, 0, sizeof(dtab));
	struct ht_addr a = addr("127.0.0.1", 29500), b = addr("::1", 29500);
	int ia = ht_dests_get(&dtab, &a), ib = ht_dests_get(&dtab, &b);
	ck_assert(ia >= 0 && ib >= 0 && ia != ib);
	ck_assert_int_eq(ht_dests_get(&dtab, &a), ia);
	ck_assert_str_eq(dtab.d[ia].str, "127.0.0.1:29500");
	ck_assert_str_eq(dtab.d[ib].str, "[::1]:29500");
	for (int i = 0; i < HT_NET_DESTS - 2; i++) {
		struct ht_addr x = addr("10.0.0.1", 1 + i);
		ck_assert_int_ge(ht_dests_get(&dtab, &x), 0);
	}
	struct ht_addr more = addr("10.0.0.2", 1);
	ck_assert_int_eq(ht_dests_get(&dtab, &more), -1);
	ck_assert_int_eq(ht_dests_get(&dtab, &a), ia);
}
END_TEST

#define THREADS 4
#define PER_THREAD 20000

static void *hammer(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < PER_THREAD; i++) {
		struct ht_addr a = addr("10.0.0.1", 29500 + i % 3);
		int d = ht_dests_get(&dtab, &a);
		uint64_t n;
		ck_assert(ht_agg_add(&atab, (uint32_t)d, i % 2 ? ECONNREFUSED : 0, id * 1000 + i, &n) != NULL);
		ck_assert(n >= 1);
	}
	return NULL;
}

START_TEST(counts_exact_under_threads)
{
	pthread_t t[THREADS];
	memset(&dtab, 0, sizeof(dtab));
	memset(&atab, 0, sizeof(atab));
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	uint64_t total = 0;
	int entries = 0, dests = 0;
	for (int i = 0; i < HT_NET_AGG; i++)
		if (atomic_load(&atab.e[i].state) == 2) {
			entries++;
			total += atomic_load(&atab.e[i].count);
		}
	for (int i = 0; i < HT_NET_DESTS; i++)
		dests += atomic_load(&dtab.d[i].state) == 2;
	ck_assert_int_eq(dests, 3);
	ck_assert_int_eq(entries, 6);
	ck_assert_uint_eq(total, (uint64_t)THREADS * PER_THREAD);
}
END_TEST

START_TEST(agg_first_last)
{
	memset(&atab, 0, sizeof(atab));
	uint64_t n;
	struct ht_agg_ent *e = ht_agg_add(&atab, 7, ECONNREFUSED, 100, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_eq(ht_agg_add(&atab, 7, ECONNREFUSED, 250, &n), e);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(atomic_load(&e->first), 100);
	ck_assert_int_eq(atomic_load(&e->last), 250);
	struct ht_agg_ent *ok = ht_agg_add(&atab, 7, 0, 300, &n);
	ck_assert_ptr_ne(ok, e);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(nccl_ifname_rules)
{
	/* Prefixes. */
	ck_assert(ht_nccl_ifname_selects("eth", "eth0"));
	ck_assert(ht_nccl_ifname_selects("eth", "eth1"));
	ck_assert(!ht_nccl_ifname_selects("eth", "ib0"));
	ck_assert(ht_nccl_ifname_selects("ib,eth", "eth3"));
	ck_assert(ht_nccl_ifname_selects("eth0:1234", "eth0"));	/* the port is ignored */
	ck_assert(!ht_nccl_ifname_selects("doesnotexist0", "eth0"));
	ck_assert(!ht_nccl_ifname_selects("doesnotexist0", "lo"));
	/* '^' excludes. */
	ck_assert(!ht_nccl_ifname_selects("^lo", "lo"));
	ck_assert(ht_nccl_ifname_selects("^lo", "eth0"));
	ck_assert(!ht_nccl_ifname_selects("^docker,lo", "docker0"));
	ck_assert(ht_nccl_ifname_selects("^docker,lo", "enp1s0"));
	/* '=' is exact; '^=' excludes exactly. */
	ck_assert(ht_nccl_ifname_selects("=eth0", "eth0"));
	ck_assert(!ht_nccl_ifname_selects("=eth0", "eth0.100"));
	ck_assert(!ht_nccl_ifname_selects("=eth", "eth0"));
	ck_assert(!ht_nccl_ifname_selects("^=eth0", "eth0"));
	ck_assert(ht_nccl_ifname_selects("^=eth0", "eth01"));
	/* '=^' is not an exclusion: '^' is only recognised first. */
	ck_assert(!ht_nccl_ifname_selects("=^eth0", "eth0"));
	/* An empty list selects everything; '^' of nothing selects nothing. */
	ck_assert(ht_nccl_ifname_selects("", "eth0"));
	ck_assert(ht_nccl_ifname_selects(",,", "eth0"));
	ck_assert(!ht_nccl_ifname_selects("^", "eth0"));
}
END_TEST

START_TEST(gloo_ifname_rules)
{
	ck_assert(ht_gloo_ifname_selects("eth0", "eth0"));
	ck_assert(!ht_gloo_ifname_selects("eth", "eth0"));
	ck_assert(ht_gloo_ifname_selects("lo,eth0", "eth0"));
	ck_assert(!ht_gloo_ifname_selects("", "eth0"));
	ck_assert(!ht_gloo_ifname_selects("^eth0", "eth1"));
}
END_TEST

static Suite *netfacts_suite(void)
{
	Suite *s = suite_create("netfacts");
	TCase *tc = tcase_create("netfacts");
	tcase_add_test(tc, sockaddr_v4_v6_mapped);
	tcase_add_test(tc, ipv6_rfc5952);
	tcase_add_test(tc, loopback_and_any);
	tcase_add_test(tc, hostport);
	tcase_add_test(tc, outcomes_and_names);
	tcase_add_test(tc, log_rule_1_2_4_8);
	tcase_add_test(tc, endpoint_attribution);
	tcase_add_test(tc, dests_stable_indices);
	tcase_add_test(tc, counts_exact_under_threads);
	tcase_add_test(tc, agg_first_last);
	tcase_add_test(tc, nccl_ifname_rules);
	tcase_add_test(tc, gloo_ifname_rules);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

HT_CHECK_SUITE(netfacts_suite)
