// SPDX-License-Identifier: MIT
/*
 * ibfacts.c: the InfiniBand/RoCE ports under a sysfs root and NCCL's view
 * of them (see ibfacts.h). Plain functions: files are read with open and
 * read, folders with opendir (which allocates: normal context only).
 * Nothing here writes or prints; the library and `hangtrace check` write
 * what it finds.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fmt.h"
#include "ibfacts.h"
#include "jsonw.h"
#include "netfacts.h"

/* Reads root/rel into out (at most cap-1 bytes, trailing newline cut). */
static bool read_small(const char *dir, const char *rel, char *out, size_t cap)
{
	char path[512];
	size_t n = ht_append(path, sizeof(path), 0, dir);
	n = ht_append(path, sizeof(path), n, "/");
	n = ht_append(path, sizeof(path), n, rel);
	if (n + 1 >= sizeof(path))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r = read(fd, out, cap - 1);
	close(fd);
	if (r < 0)
		return false;
	while (r > 0 && (out[r - 1] == '\n' || out[r - 1] == ' '))
		r--;
	out[r] = '\0';
	return true;
}

/* "4: ACTIVE" -> "ACTIVE"; "5: LinkUp" -> "LinkUp". */
static void after_colon(char *s)
{
	char *c = strchr(s, ':');
	if (c == NULL)
		return;
	c++;
	while (*c == ' ')
		c++;
	memmove(s, c, strlen(c) + 1);
}

bool ht_ib_gid_empty(const char *gid)
{
	for (const char *p = gid; *p != '\0'; p++)
		if (*p != '0' && *p != ':')
			return false;
	return true;
}

bool ht_ib_gid_link_local(const char *gid)
{
	/* fe80::/10: the first 16-bit group is fe80..febf. */
	if (strlen(gid) < 4)
		return false;
	char g[5] = { gid[0], gid[1], gid[2], gid[3], '\0' };
	long v = strtol(g, NULL, 16);
	return (v & 0xffc0) == 0xfe80;
}

static void scan_gids(const char *pdir, struct ht_ib_port *p)
{
	char gdir[400];
	size_t n = ht_append(gdir, sizeof(gdir), 0, pdir);
	ht_append(gdir, sizeof(gdir), n, "/gids");
	DIR *d = opendir(gdir);
	if (d == NULL)
		return;
	int idx[256], nidx = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL && nidx < 256;) {
		int64_t v;
		if (e->d_name[0] != '.' && ht_parse_i64(e->d_name, &v) && v >= 0 && v < 1 << 16)
			idx[nidx++] = (int)v;
	}
	closedir(d);
	/* Ascending, so that the kept GIDs are the lowest indexes. */
	for (int i = 1; i < nidx; i++)
		for (int j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int i = 0; i < nidx && p->ngids < HT_IB_MAX_GIDS; i++) {
		char rel[64], gid[64];
		snprintf(rel, sizeof(rel), "gids/%d", idx[i]);
		if (!read_small(pdir, rel, gid, sizeof(gid)) || ht_ib_gid_empty(gid))
			continue;
		struct ht_ib_gid *g = &p->gids[p->ngids++];
		g->index = idx[i];
		ht_strlcpy(g->gid, gid, sizeof(g->gid));
		snprintf(rel, sizeof(rel), "gid_attrs/types/%d", idx[i]);
		if (!read_small(pdir, rel, g->type, sizeof(g->type)))
			g->type[0] = '\0';
	}
}

int ht_ib_scan(const char *root, struct ht_ib_port *out, int max)
{
	DIR *d = opendir(root);
	int n = 0;
	if (d == NULL)
		return 0;
	for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
		char ports[400];
		if (e->d_name[0] == '.')
			continue;
		size_t k = ht_append(ports, sizeof(ports), 0, root);
		k = ht_append(ports, sizeof(ports), k, "/");
		k = ht_append(ports, sizeof(ports), k, e->d_name);
		ht_append(ports, sizeof(ports), k, "/ports");
		DIR *pd = opendir(ports);
		if (pd == NULL)
			continue;
		for (struct dirent *pe; (pe = readdir(pd)) != NULL && n < max;) {
			int64_t num;
			if (pe->d_name[0] == '.' || !ht_parse_i64(pe->d_name, &num) || num < 1 ||
			    num > 255)
				continue;
			char pdir[480];
			size_t m = ht_append(pdir, sizeof(pdir), 0, ports);
			m = ht_append(pdir, sizeof(pdir), m, "/");
			ht_append(pdir, sizeof(pdir), m, pe->d_name);
			struct ht_ib_port *p = &out[n];
			memset(p, 0, sizeof(*p));
			ht_strlcpy(p->dev, e->d_name, sizeof(p->dev));
			p->port = (int)num;
			if (read_small(pdir, "state", p->state, sizeof(p->state)))
				after_colon(p->state);
			if (read_small(pdir, "phys_state", p->phys_state, sizeof(p->phys_state)))
				after_colon(p->phys_state);
			read_small(pdir, "link_layer", p->link_layer, sizeof(p->link_layer));
			read_small(pdir, "rate", p->rate, sizeof(p->rate));
			scan_gids(pdir, p);
			n++;
		}
		closedir(pd);
	}
	closedir(d);
	/* Sorted by device and port, so every process lists them alike. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			int c = strcmp(out[j - 1].dev, out[j].dev);
			if (c < 0 || (c == 0 && out[j - 1].port <= out[j].port))
				break;
			struct ht_ib_port t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

bool ht_ib_hca_selects(const char *spec, const char *dev, int port)
{
	return spec == NULL || ht_nccl_list_selects(spec, dev, port);
}

static bool ib_disabled(const struct ht_ib_env *env)
{
	int64_t v;
	return env->disable != NULL && ht_parse_i64(env->disable, &v) && v != 0;
}

static bool spec_set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

bool ht_ib_in_use(const struct ht_ib_port *ports, int n, const struct ht_ib_env *env)
{
	if (ib_disabled(env))
		return false;
	for (int i = 0; i < n; i++)
		if (ht_ib_hca_selects(spec_set(env->hca) ? env->hca : NULL, ports[i].dev,
				      ports[i].port))
			return true;
	return false;
}

static struct ht_ib_problem *add(struct ht_ib_problem *out, int *k, int max, const char *dev,
				 int port)
{
	if (*k >= max)
		return NULL;
	struct ht_ib_problem *p = &out[(*k)++];
	memset(p, 0, sizeof(*p));
	ht_strlcpy(p->dev, dev, sizeof(p->dev));
	p->port = port;
	return p;
}

static const struct ht_ib_gid *gid_at(const struct ht_ib_port *p, int index)
{
	for (int i = 0; i < p->ngids; i++)
		if (p->gids[i].index == index)
			return &p->gids[i];
	return NULL;
}

int ht_ib_judge(struct ht_ib_port *ports, int n, const struct ht_ib_env *env,
		struct ht_ib_problem *out, int max)
{
	int k = 0, nsel = 0;
	const char *hca = spec_set(env->hca) ? env->hca : NULL;

	for (int i = 0; i < n; i++) {
		ports[i].selected = ht_ib_hca_selects(hca, ports[i].dev, ports[i].port);
		nsel += ports[i].selected;
	}
	if (ib_disabled(env) || (n == 0 && hca == NULL))
		return 0;
	if (nsel == 0) {
		struct ht_ib_problem *p = add(out, &k, max, "", 0);
		if (p != NULL) {
			size_t m = ht_append(p->what, sizeof(p->what), 0, "NCCL_IB_HCA=");
			m = ht_append(p->what, 80, m, hca);
			m = ht_append(p->what, sizeof(p->what), m, " names no device or port of this host (");
			for (int i = 0; i < n; i++) {
				char one[80];
				snprintf(one, sizeof(one), "%s%s:%d", i > 0 ? " " : "", ports[i].dev,
					 ports[i].port);
				m = ht_append(p->what, sizeof(p->what) - 2, m, one);
			}
			if (n == 0)
				m = ht_append(p->what, sizeof(p->what) - 2, m, "no InfiniBand device");
			ht_append(p->what, sizeof(p->what), m, "): NCCL falls back to sockets");
		}
	}
	int64_t gidx = -1;
	bool have_gidx = spec_set(env->gid_index) && ht_parse_i64(env->gid_index, &gidx) &&
			 gidx >= 0;
	for (int i = 0; i < n; i++) {
		struct ht_ib_port *pt = &ports[i];
		if (!pt->selected)
			continue;
		if ((pt->state[0] != '\0' && strcmp(pt->state, "ACTIVE") != 0) ||
		    (pt->phys_state[0] != '\0' && strcmp(pt->phys_state, "LinkUp") != 0)) {
			struct ht_ib_problem *p = add(out, &k, max, pt->dev, pt->port);
			if (p != NULL)
				snprintf(p->what, sizeof(p->what), "port is %s (%s), not ACTIVE "
					 "(LinkUp): NCCL skips it", pt->state[0] ? pt->state : "?",
					 pt->phys_state[0] ? pt->phys_state : "?");
		}
		if (have_gidx && strcmp(pt->link_layer, "Ethernet") == 0) {
			const struct ht_ib_gid *g = gid_at(pt, (int)gidx);
			struct ht_ib_problem *p = NULL;
			if (g == NULL && (p = add(out, &k, max, pt->dev, pt->port)) != NULL)
				snprintf(p->what, sizeof(p->what), "NCCL_IB_GID_INDEX=%lld is an "
					 "empty GID on this RoCE port: connections never come up",
					 (long long)gidx);
			else if (g != NULL && ht_ib_gid_link_local(g->gid) &&
				 (p = add(out, &k, max, pt->dev, pt->port)) != NULL)
				snprintf(p->what, sizeof(p->what), "NCCL_IB_GID_INDEX=%lld is the "
					 "link-local GID %.39s (%s) on this RoCE port: not routable "
					 "between hosts", (long long)gidx, g->gid,
					 g->type[0] ? g->type : "type unknown");
		}
	}
	if (nsel > 0 && env->memlock_soft >= 0 && env->memlock_soft < HT_IB_MEMLOCK_MIN) {
		struct ht_ib_problem *p = add(out, &k, max, "", 0);
		if (p != NULL)
			snprintf(p->what, sizeof(p->what), "memlock limit is %lld KiB: RDMA "
				 "registration needs it unlimited (ulimit -l unlimited)",
				 (long long)(env->memlock_soft >> 10));
	}
	return k;
}

void ht_ib_write_ports(struct ht_jw *w, const struct ht_ib_port *p, int n)
{
	ht_jw_arr_begin(w, "ports");
	for (int i = 0; i < n; i++) {
		ht_jw_obj_begin(w, NULL);
		ht_jw_str(w, "dev", p[i].dev);
		ht_jw_int(w, "port", p[i].port);
		ht_jw_str(w, "state", p[i].state);
		ht_jw_str(w, "phys_state", p[i].phys_state);
		ht_jw_str(w, "link_layer", p[i].link_layer);
		ht_jw_str(w, "rate", p[i].rate);
		ht_jw_bool(w, "selected", p[i].selected);
		ht_jw_arr_begin(w, "gids");
		for (int g = 0; g < p[i].ngids; g++) {
			ht_jw_obj_begin(w, NULL);
			ht_jw_int(w, "index", p[i].gids[g].index);
			ht_jw_str(w, "gid", p[i].gids[g].gid);
			ht_jw_str(w, "type", p[i].gids[g].type);
			ht_jw_end(w);
		}
		ht_jw_end(w);
		ht_jw_end(w);
	}
	ht_jw_end(w);
}

void ht_ib_write_problems(struct ht_jw *w, const struct ht_ib_problem *p, int n)
{
	ht_jw_arr_begin(w, "problems");
	for (int i = 0; i < n; i++) {
		ht_jw_obj_begin(w, NULL);
		ht_jw_str(w, "dev", p[i].dev[0] != '\0' ? p[i].dev : NULL);
		ht_jw_int_or_null(w, "port", p[i].port, p[i].port > 0);
		ht_jw_str(w, "what", p[i].what);
		ht_jw_end(w);
	}
	ht_jw_end(w);
}
