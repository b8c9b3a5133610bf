// SPDX-License-Identifier: MIT
/*
 * check_ibfacts.c: NCCL's NCCL_IB_HCA matching (prefix list, '^' exclude,
 * '=' exact, ':port'), the GID classes, a fake sysfs tree scanned and
 * judged (a port down, a link-local or empty GID at NCCL_IB_GID_INDEX on
 * RoCE, an NCCL_IB_HCA naming nothing, NCCL_IB_DISABLE), and the
 * NCCL_SOCKET_IFNAME rules `hangtrace check` picks its interface by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ht_check.h"
#include "ibfacts.h"
#include "netfacts.h"

START_TEST(hca_rules)
{
	ck_assert(ht_ib_hca_selects(NULL, "mlx5_0", 1));
	ck_assert(ht_ib_hca_selects("", "mlx5_0", 1));
	ck_assert(ht_ib_hca_selects("mlx5", "mlx5_10", 1));		/* a prefix */
	ck_assert(!ht_ib_hca_selects("=mlx5_1", "mlx5_10", 1));	/* exact */
	ck_assert(ht_ib_hca_selects("=mlx5_1", "mlx5_1", 1));
	ck_assert(ht_ib_hca_selects("mlx5_0:1,mlx5_1:1", "mlx5_1", 1));
	ck_assert(!ht_ib_hca_selects("mlx5_0:1", "mlx5_0", 2));	/* another port */
	ck_assert(ht_ib_hca_selects("mlx5_0", "mlx5_0", 2));		/* no port: any */
	ck_assert(!ht_ib_hca_selects("^mlx5_0", "mlx5_0", 1));
	ck_assert(ht_ib_hca_selects("^mlx5_0", "mlx5_1", 1));
	ck_assert(ht_ib_hca_selects("^=mlx5_1", "mlx5_10", 1));	/* exclude exact */
	ck_assert(!ht_ib_hca_selects("^=mlx5_1", "mlx5_1", 1));
	ck_assert(!ht_ib_hca_selects("mlx4", "mlx5_0", 1));
	ck_assert(ht_ib_hca_selects("mlx4,,mlx5", "mlx5_0", 1));	/* empty items skipped */
}
END_TEST

START_TEST(gid_classes)
{
	ck_assert(ht_ib_gid_empty("0000:0000:0000:0000:0000:0000:0000:0000"));
	ck_assert(!ht_ib_gid_empty("0000:0000:0000:0000:0000:ffff:0a00:0001"));
	ck_assert(ht_ib_gid_link_local("fe80:0000:0000:0000:0a00:27ff:fe00:0001"));
	ck_assert(ht_ib_gid_link_local("febf:0000:0000:0000:0000:0000:0000:0001"));
	ck_assert(!ht_ib_gid_link_local("fec0:0000:0000:0000:0000:0000:0000:0001"));
	ck_assert(!ht_ib_gid_link_local("0000:0000:0000:0000:0000:ffff:0a00:0001"));
}
END_TEST

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024], cmd[1200];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* mlx5_0 port 1: RoCE, ACTIVE, GID 0 link-local v1, GID 1 link-local v2,
 * GID 3 IPv4-mapped v2; mlx5_1 port 1: InfiniBand, DOWN. */
static void fake_tree(char *root, size_t cap)
{
	snprintf(root, cap, "/tmp/ht-ibfacts.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put(root, "mlx5_0/ports/1/state", "4: ACTIVE");
	put(root, "mlx5_0/ports/1/phys_state", "5: LinkUp");
	put(root, "mlx5_0/ports/1/link_layer", "Ethernet");
	put(root, "mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)");
	put(root, "mlx5_0/ports/1/gids/0", "fe80:0000:0000:0000:0a00:27ff:fe00:0001");
	put(root, "mlx5_0/ports/1/gid_attrs/types/0", "IB/RoCE v1");
	put(root, "mlx5_0/ports/1/gids/1", "fe80:0000:0000:0000:0a00:27ff:fe00:0001");
	put(root, "mlx5_0/ports/1/gid_attrs/types/1", "RoCE v2");
	put(root, "mlx5_0/ports/1/gids/2", "0000:0000:0000:0000:0000:0000:0000:0000");
	put(root, "mlx5_0/ports/1/gids/3", "0000:0000:0000:0000:0000:ffff:0a00:0001");
	put(root, "mlx5_0/ports/1/gid_attrs/types/3", "RoCE v2");
	put(root, "mlx5_1/ports/1/state", "1: DOWN");
	put(root, "mlx5_1/ports/1/phys_state", "3: Disabled");
	put(root, "mlx5_1/ports/1/link_layer", "InfiniBand");
}

static void rm_tree(const char *root)
{
	char cmd[1100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(scan_and_judge)
{
	char root[64];
	struct ht_ib_port ports[HT_IB_MAX_PORTS];
	struct ht_ib_problem pr[HT_IB_MAX_PROBLEMS];
	fake_tree(root, sizeof(root));

	int n = ht_ib_scan(root, ports, HT_IB_MAX_PORTS);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(ports[0].dev, "mlx5_0");
	ck_assert_str_eq(ports[0].state, "ACTIVE");
	ck_assert_str_eq(ports[0].phys_state, "LinkUp");
	ck_assert_str_eq(ports[0].link_layer, "Ethernet");
	ck_assert_int_eq(ports[0].ngids, 3);		/* the empty GID 2 is left out */
	ck_assert_int_eq(ports[0].gids[2].index, 3);
	ck_assert_str_eq(ports[0].gids[1].type, "RoCE v2");
	ck_assert_str_eq(ports[1].state, "DOWN");

	/* Only the healthy RoCE port, GID 3: nothing wrong. */
	struct ht_ib_env env = { .hca = "=mlx5_0", .gid_index = "3", .memlock_soft = -1 };
	ck_assert_int_eq(ht_ib_judge(ports, n, &env, pr, HT_IB_MAX_PROBLEMS), 0);
	ck_assert(ports[0].selected && !ports[1].selected);
	/* GID 1 is link-local; GID 2 is empty. */
	env.gid_index = "1";
	ck_assert_int_eq(ht_ib_judge(ports, n, &env, pr, HT_IB_MAX_PROBLEMS), 1);
	ck_assert_str_eq(pr[0].dev, "mlx5_0");
	ck_assert_int_eq(pr[0].port, 1);
	ck_assert_ptr_nonnull(strstr(pr[0].what, "link-local"));
	env.gid_index = "2";
	ck_assert_int_eq(ht_ib_judge(ports, n, &env, pr, HT_IB_MAX_PROBLEMS), 1);
	ck_assert_ptr_nonnull(strstr(pr[0].what, "empty GID"));
	/* Every port (no NCCL_IB_HCA): mlx5_1 is down. */
	env = (struct ht_ib_env){ .memlock_soft = -1 };
	ck_assert_int_eq(ht_ib_judge(ports, n, &env, pr, HT_IB_MAX_PROBLEMS), 1);
	ck_assert_str_eq(pr[0].dev, "mlx5_1");
	ck_assert_ptr_nonnull(strstr(pr[0].what, "DOWN"));
	/* A name that matches nothing. */
	env.hca = "mlx4_0";
	ck_assert_int_eq(ht_ib_judge(ports, n, &env, pr, HT_IB_MAX_PROBLEMS), 1);
	ck_assert_ptr_nonnull(strstr(pr[0].what, "names no device"));
	ck_assert_ptr_nonnull(strstr(pr[0].what, "mlx5_0:1"));
	/* Disabled: nothing is judged. */
	env.disable = "1";
	ck_assert_int_eq(ht_ib_judge(ports, n, &env, pr, HT_IB_MAX_PROBLEMS), 0);
	ck_assert(!ht_ib_in_use(ports, n, &env));
	/* memlock too low while IB is used. */
	env = (struct ht_ib_env){ .hca = "mlx5_0", .memlock_soft = 64 << 10 };
	ck_assert_int_eq(ht_ib_judge(ports, n, &env, pr, HT_IB_MAX_PROBLEMS), 1);
	ck_assert_ptr_nonnull(strstr(pr[0].what, "memlock"));
	/* No tree at all, no variable: nothing. */
	ck_assert_int_eq(ht_ib_scan("/nonexistent/ib", ports, HT_IB_MAX_PORTS), 0);
	env = (struct ht_ib_env){ .memlock_soft = -1 };
	ck_assert_int_eq(ht_ib_judge(ports, 0, &env, pr, HT_IB_MAX_PROBLEMS), 0);
	env.hca = "mlx5_0";
	ck_assert_int_eq(ht_ib_judge(ports, 0, &env, pr, HT_IB_MAX_PROBLEMS), 1);
	rm_tree(root);
}
END_TEST

/* The rules `hangtrace check` walks NCCL's interface order with. */
START_TEST(socket_ifname_default_order)
{
	ck_assert(!ht_nccl_ifname_selects("^docker,lo", "lo"));
	ck_assert(!ht_nccl_ifname_selects("^docker,lo", "docker0"));
	ck_assert(ht_nccl_ifname_selects("^docker,lo", "eth0"));
	ck_assert(ht_nccl_ifname_selects("ib", "ib0"));
	ck_assert(!ht_nccl_ifname_selects("ib", "eth0"));
	ck_assert(ht_nccl_ifname_selects("=eth0", "eth0"));
	ck_assert(!ht_nccl_ifname_selects("=eth0", "eth01"));
	ck_assert(ht_nccl_ifname_selects("eth0:1234", "eth0"));	/* the port is ignored */
}
END_TEST

static Suite *ibfacts_suite(void)
{
	Suite *s = suite_create("ibfacts");
	TCase *tc = tcase_create("ibfacts");
	tcase_add_test(tc, hca_rules);
	tcase_add_test(tc, gid_classes);
	tcase_add_test(tc, scan_and_judge);
	tcase_add_test(tc, socket_ifname_default_order);
	suite_add_tcase(s, tc);
	return s;
}

HT_CHECK_SUITE(ibfacts_suite)
