// SPDX-License-Identifier: MIT
/*
 * compare.c: rank 0's comparisons in `hangtrace check`, over the facts
 * every rank sent: the ranks that never arrived, versions and world size
 * against the majority, GPUs per host (a UUID taken twice, more ranks
 * than GPUs), bootstrap addresses across hosts, clocks against rank 0's,
 * and the ring over hosts that gives each rank its peer. Plain work on
 * JSON objects: no sockets here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "meet.h"

/* The sentences written are cut at their buffer on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

const char *ht_chk__str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s != NULL ? s : "";
}

long long ht_chk__int(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* ---- results handed to a rank --------------------------------------------- */

void ht_chk__add_result(json_t *arr, enum ht_check_id id, const char *result, const char *code,
		       const int64_t *ranks, size_t n, const char *why)
{
	json_t *o = json_object();
	json_object_set_new(o, "check", json_string(ht_check_name(id)));
	json_object_set_new(o, "result", json_string(result));
	json_object_set_new(o, "code", code != NULL ? json_string(code) : json_null());
	json_object_set_new(o, "why", json_string(why));
	if (ranks != NULL) {
		json_t *r = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(r, json_integer(ranks[i]));
		json_object_set_new(o, "ranks", r);
	}
	json_array_append_new(arr, o);
}

/* ---- rank 0: the comparisons ------------------------------------------------ */

struct hostinfo {
	const char *name, *boot;
	int64_t first;			/* its lowest rank */
	int nranks;
};

void ht_chk__ranks_str(const int64_t *r, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && k + 24 < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%s%lld", i ? "," : "", (long long)r[i]);
}

/* The most common value of key among the members here (-1 ignored). */
static long long majority(struct chk_member *m, int64_t ws, const char *key)
{
	long long best = -1;
	int bestn = 0;
	for (int64_t i = 0; i < ws; i++) {
		if (!m[i].here || ht_chk__int(m[i].facts, key) < 0)
			continue;
		int n = 0;
		for (int64_t j = 0; j < ws; j++)
			n += m[j].here && ht_chk__int(m[j].facts, key) == ht_chk__int(m[i].facts, key);
		if (n > bestn) {
			bestn = n;
			best = ht_chk__int(m[i].facts, key);
		}
	}
	return best;
}

void ht_chk__compare(struct chk_member *m, int64_t ws, double waited)
{
	int64_t missing[CHK_MAX_RANKS] = { 0 };
	size_t nmiss = 0;
	struct hostinfo hosts[CHK_MAX_RANKS];
	int nh = 0;
	char buf[1024];

	for (int64_t r = 0; r < ws; r++) {
		m[r].results = json_array();
		if (!m[r].here) {
			missing[nmiss++] = r;
			continue;
		}
		int h = 0;
		while (h < nh && !(strcmp(hosts[h].name, ht_chk__str(m[r].facts, "host")) == 0 &&
				   strcmp(hosts[h].boot, ht_chk__str(m[r].facts, "boot_id")) == 0))
			h++;
		if (h == nh)
			hosts[nh++] = (struct hostinfo){ ht_chk__str(m[r].facts, "host"),
							 ht_chk__str(m[r].facts, "boot_id"), r, 0 };
		hosts[h].nranks++;
		m[r].host = h;
	}
	/* arrivals */
	ht_chk__ranks_str(missing, nmiss, buf, sizeof(buf));
	for (int64_t r = 0; r < ws; r++) {
		if (!m[r].here)
			continue;
		char why[1200];
		if (nmiss > 0)
			snprintf(why, sizeof(why), "rank%s %s never arrived at rank 0 in %.1f s",
				 nmiss == 1 ? "" : "s", buf, waited);
		else
			snprintf(why, sizeof(why), "all %lld ranks arrived in %.2f s", (long long)ws,
				 waited);
		ht_chk__add_result(m[r].results, HT_CHECK_ARRIVALS, nmiss > 0 ? "fail" : "pass",
			   nmiss > 0 ? "missing_rank" : NULL, missing, nmiss, why);
	}
	/* versions: world size, hangtrace, driver, runtime, NCCL */
	static const char *const keys[] = { "world_size", "driver", "runtime", "nccl" };
	long long maj[4];
	for (int k = 0; k < 4; k++)
		maj[k] = majority(m, ws, keys[k]);
	for (int64_t r = 0; r < ws; r++) {
		if (!m[r].here)
			continue;
		char why[600] = "";
		size_t n = 0;
		const char *code = NULL;
		for (int k = 0; k < 4; k++) {
			long long v = ht_chk__int(m[r].facts, keys[k]);
			if (v < 0 || maj[k] < 0 || v == maj[k])
				continue;
			code = k == 0 ? "world_size_mismatch" : code != NULL ? code : "version_mismatch";
			n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%s %lld where most ranks "
					      "have %lld", n ? "; " : "", keys[k], v, maj[k]);
		}
		if (code != NULL)
			ht_chk__add_result(m[r].results, HT_CHECK_VERSIONS, "fail", code, &r, 1, why);
		else
			ht_chk__add_result(m[r].results, HT_CHECK_VERSIONS, "pass", NULL, NULL, 0,
				   "world size, driver, runtime and NCCL versions agree");
	}
	/* GPUs per host */
	for (int64_t r = 0; r < ws; r++) {
		if (!m[r].here)
			continue;
		if (!json_is_true(json_object_get(m[r].facts, "cuda"))) {
			ht_chk__add_result(m[r].results, HT_CHECK_GPUS, "skip", NULL, NULL, 0,
				   "no GPU seen by this rank");
			continue;
		}
		int64_t same[256];
		size_t ns = 0;
		int64_t order = 0;	/* its place among its host's ranks */
		for (int64_t q = 0; q < ws; q++) {
			if (!m[q].here || m[q].host != m[r].host)
				continue;
			if (q < r)
				order++;
			if (ht_chk__str(m[r].facts, "uuid")[0] != '\0' &&
			    strcmp(ht_chk__str(m[q].facts, "uuid"), ht_chk__str(m[r].facts, "uuid")) == 0 && ns < 256)
				same[ns++] = q;
		}
		long long count = ht_chk__int(m[r].facts, "gpu_count");
		if (ns > 1) {
			char rs[400];
			ht_chk__ranks_str(same, ns, rs, sizeof(rs));
			snprintf(buf, sizeof(buf), "ranks %s on host %s all take GPU %s", rs,
				 hosts[m[r].host].name, ht_chk__str(m[r].facts, "uuid"));
			ht_chk__add_result(m[r].results, HT_CHECK_GPUS, "fail", "duplicate_gpu", same, ns, buf);
		} else if (count >= 0 && hosts[m[r].host].nranks > count && order >= count) {
			snprintf(buf, sizeof(buf), "host %s has %d ranks here but %lld GPU%s visible",
				 hosts[m[r].host].name, hosts[m[r].host].nranks, count,
				 count == 1 ? "" : "s");
			ht_chk__add_result(m[r].results, HT_CHECK_GPUS, "fail", "too_many_local_ranks", &r, 1,
				   buf);
		} else {
			ht_chk__add_result(m[r].results, HT_CHECK_GPUS, "pass", NULL, NULL, 0,
				   "its GPU is its own on this host");
		}
	}
	/* bootstrap addresses across hosts */
	for (int64_t r = 0; r < ws; r++) {
		if (!m[r].here)
			continue;
		const char *a = ht_chk__str(m[r].facts, "addr");
		int64_t other = -1;
		for (int64_t q = 0; q < ws && other < 0; q++)
			if (m[q].here && m[q].host != m[r].host && a[0] != '\0' &&
			    strcmp(ht_chk__str(m[q].facts, "addr"), a) == 0)
				other = q;
		if (other >= 0) {
			int64_t both[2] = { r < other ? r : other, r < other ? other : r };
			snprintf(buf, sizeof(buf), "host %s (rank %lld) and host %s (rank %lld) would "
				 "both bootstrap NCCL from %s (%s): peers reach the wrong host",
				 hosts[m[r].host].name, (long long)r, hosts[m[other].host].name,
				 (long long)other, a, ht_chk__str(m[r].facts, "ifname"));
			ht_chk__add_result(m[r].results, HT_CHECK_ADDRESSES, "fail", "address_conflict", both,
				   2, buf);
		} else {
			snprintf(buf, sizeof(buf), "bootstraps from %s (%s), unique across hosts",
				 a[0] ? a : "?", ht_chk__str(m[r].facts, "ifname"));
			ht_chk__add_result(m[r].results, HT_CHECK_ADDRESSES, "pass", NULL, NULL, 0, buf);
		}
	}
	/* clocks against rank 0's */
	for (int64_t r = 0; r < ws; r++) {
		if (!m[r].here)
			continue;
		double off = -m[r].offset;	/* its clock minus rank 0's */
		if (fabs(off) > CHK_SKEW_MAX) {
			snprintf(buf, sizeof(buf), "the clock of host %s is %.1f s %s rank 0's "
				 "(host %s; round trip %.3f s)", hosts[m[r].host].name, fabs(off),
				 off > 0 ? "ahead of" : "behind", hosts[0].name, m[r].rtt);
			ht_chk__add_result(m[r].results, HT_CHECK_CLOCK, "fail", "clock_skew", &r, 1, buf);
		} else {
			snprintf(buf, sizeof(buf), "within %.3f s of rank 0's clock", fabs(off));
			ht_chk__add_result(m[r].results, HT_CHECK_CLOCK, "pass", NULL, NULL, 0, buf);
		}
	}
	/* the peer on the next host */
	for (int64_t r = 0; r < ws; r++) {
		if (!m[r].here)
			continue;
		/* No peer: a sentence saying why, for the rank's skip line. */
		json_t *pp = json_string(nmiss > 0 ? "no rank of another host arrived at rank 0"
						   : "one host: no peer on another host");
		if (nh > 1) {
			int64_t p = hosts[(m[r].host + 1) % nh].first;
			json_t *f = m[p].facts;
			json_decref(pp);
			pp = json_pack("{s:I,s:s,s:s,s:s,s:I}", "rank", (json_int_t)p,
				       "host", ht_chk__str(f, "host"), "boot_id", ht_chk__str(f, "boot_id"),
				       "addr", ht_chk__str(f, "addr"),
				       "port", (json_int_t)ht_chk__int(f, "peer_port"));
		}
		json_object_set_new(m[r].facts, "plan_peer", pp);
	}
}

