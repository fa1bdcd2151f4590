/*
 * topo.c - the machine's topology through hwloc, and worker placement
 * (topo.h).
 *
 * hwloc restricts the topology to the CPUs this process may use (its
 * affinity mask, a cgroup's cpuset), so a placement never names a CPU the
 * kernel would refuse.
 */
#define _GNU_SOURCE
#include "core/topo.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct topo machine;
static bool machine_ok;
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

/* The logical index of pu's ancestor of `type`, or `none`. */
static uint32_t ancestor(hwloc_topology_t h, hwloc_obj_t pu, hwloc_obj_type_t type, uint32_t none)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(h, type, pu);
	return a ? a->logical_index : none;
}

static void load(void)
{
	hwloc_topology_t h;
	if (hwloc_topology_init(&h) != 0)
		return;
	if (hwloc_topology_load(h) != 0) {
		hwloc_topology_destroy(h);
		return;
	}
	int npu = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	int nnuma = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
	struct topo *t = &machine;
	t->cpu = npu > 0 ? calloc((size_t)npu, sizeof *t->cpu) : NULL;
	if (!t->cpu) {
		hwloc_topology_destroy(h);
		return;
	}
	t->npus = (uint32_t)npu;
	t->npackages = (uint32_t)hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
	t->nl3 = (uint32_t)hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_L3CACHE);
	t->ncores = (uint32_t)hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
	t->nnuma = nnuma > 0 ? (uint32_t)nnuma : 1;
	if (t->npackages == 0)
		t->npackages = 1;
	for (int i = 0; i < npu; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)i);
		struct topo_cpu *c = &t->cpu[i];
		c->os = (int32_t)pu->os_index;
		c->package = ancestor(h, pu, HWLOC_OBJ_PACKAGE, 0);
		/* No core object (some virtual machines): every PU its own core. */
		c->core = ancestor(h, pu, HWLOC_OBJ_CORE, (uint32_t)i);
		c->l3 = t->nl3 ? ancestor(h, pu, HWLOC_OBJ_L3CACHE, 0) : c->package;
		c->smt = t->ncores ? (uint32_t)pu->sibling_rank : 0;
		/* NUMA nodes hang beside the CPUs in hwloc 2, not above them. */
		for (int n = 0; n < nnuma; n++) {
			hwloc_obj_t node = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)n);
			if (node->cpuset && hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
				c->numa = (uint32_t)n;
				break;
			}
		}
		if (c->smt + 1 > t->threads_per_core)
			t->threads_per_core = c->smt + 1;
	}
	if (t->ncores == 0)
		t->ncores = t->npus;
#ifdef HWLOC_VERSION
	snprintf(t->source, sizeof t->source, "hwloc %s", HWLOC_VERSION);
#else
	snprintf(t->source, sizeof t->source, "hwloc");
#endif
	hwloc_topology_destroy(h);
	machine_ok = true;
}

const struct topo *topo_machine(void)
{
	pthread_once(&machine_once, load);
	return machine_ok ? &machine : NULL;
}

int topo_find(const struct topo *t, int32_t os)
{
	for (uint32_t i = 0; t && i < t->npus; i++)
		if (t->cpu[i].os == os)
			return (int)i;
	return -1;
}

const char *topo_pin_name(enum pin_mode m)
{
	switch (m) {
	case PIN_AUTO:
		return "auto";
	case PIN_NONE:
		return "none";
	case PIN_COMPACT:
		return "compact";
	case PIN_SCATTER:
		return "scatter";
	case PIN_LIST:
		return "list";
	}
	return "?";
}

int topo_parse_pin(const char *text, enum pin_mode *mode, int32_t *list, uint32_t max,
		   uint32_t *nlist, char *err, size_t len)
{
	static const struct { const char *name; enum pin_mode m; } names[] = {
		{ "none", PIN_NONE }, { "compact", PIN_COMPACT }, { "scatter", PIN_SCATTER },
		{ "auto", PIN_AUTO },
	};
	*nlist = 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(text, names[i].name) == 0) {
			*mode = names[i].m;
			return 0;
		}
	if (strncmp(text, "list:", 5) != 0) {
		snprintf(err, len, "--pin: '%s' is not none, compact, scatter or list:CPU,CPU,...",
			 text);
		return -1;
	}
	const char *s = text + 5;
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s || lo < 0 || lo > 65535)
			goto bad;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo || hi > 65535)
				goto bad;
			s = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (*nlist >= max) {
				snprintf(err, len, "--pin: more than %u CPUs in '%s'", max, text);
				return -1;
			}
			list[(*nlist)++] = (int32_t)c;
		}
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			goto bad;
	}
	if (*nlist == 0)
		goto bad;
	*mode = PIN_LIST;
	return 0;
bad:
	snprintf(err, len, "--pin: bad CPU list in '%s' (expected list:0,2,4-7)", text);
	return -1;
}

/* Orders of PU indices for compact and scatter. */
struct order_ctx {
	const struct topo *t;
	uint32_t *rank;		/* [npus] scatter: a core's rank within its domain */
	uint32_t *dom_rank;	/* [npus] scatter: its domain's interleaved rank */
};

static const struct order_ctx *octx;

/* Compact: every core's first thread in core order, then the second ones. */
static int cmp_compact(const void *a, const void *b)
{
	const struct topo_cpu *x = &octx->t->cpu[*(const uint32_t *)a];
	const struct topo_cpu *y = &octx->t->cpu[*(const uint32_t *)b];
	if (x->smt != y->smt)
		return x->smt < y->smt ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Scatter: by thread rank, then the core's rank in its L3 domain, then the
 * domain's rank interleaved over packages. */
static int cmp_scatter(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct topo_cpu *x = &octx->t->cpu[i], *y = &octx->t->cpu[j];
	if (x->smt != y->smt)
		return x->smt < y->smt ? -1 : 1;
	if (octx->rank[i] != octx->rank[j])
		return octx->rank[i] < octx->rank[j] ? -1 : 1;
	if (octx->dom_rank[i] != octx->dom_rank[j])
		return octx->dom_rank[i] < octx->dom_rank[j] ? -1 : 1;
	return i < j ? -1 : 1;
}

/* Single-threaded (the harness thread places before a run): the qsort
 * comparators read octx. */
static int order(const struct topo *t, enum pin_mode m, uint32_t *idx)
{
	uint32_t n = t->npus;
	struct order_ctx c = { .t = t };
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	if (m == PIN_SCATTER) {
		c.rank = calloc(n, sizeof *c.rank);
		c.dom_rank = calloc(n, sizeof *c.dom_rank);
		uint32_t *seen_cores = calloc(n, sizeof *seen_cores);	/* per L3 */
		uint32_t *dom_in_pkg = calloc(n, sizeof *dom_in_pkg);	/* per package */
		int32_t *dom_pos = malloc(n * sizeof *dom_pos);		/* per L3 */
		if (!c.rank || !c.dom_rank || !seen_cores || !dom_in_pkg || !dom_pos) {
			free(c.rank);
			free(c.dom_rank);
			free(seen_cores);
			free(dom_in_pkg);
			free(dom_pos);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < n; i++)
			dom_pos[i] = -1;
		/* Domains numbered in their package's order, then interleaved:
		 * rank = (index within package) x npackages + package. */
		for (uint32_t i = 0; i < n; i++) {
			const struct topo_cpu *p = &t->cpu[i];
			uint32_t l3 = p->l3 < n ? p->l3 : 0;
			if (dom_pos[l3] < 0)
				dom_pos[l3] = (int32_t)(dom_in_pkg[p->package % n]++ * t->npackages +
							p->package);
			c.dom_rank[i] = (uint32_t)dom_pos[l3];
			/* A core's rank in its domain: count first threads. */
			if (p->smt == 0)
				c.rank[i] = seen_cores[l3]++;
		}
		/* Siblings take their core's rank. */
		for (uint32_t i = 0; i < n; i++)
			if (t->cpu[i].smt != 0)
				for (uint32_t j = 0; j < n; j++)
					if (t->cpu[j].core == t->cpu[i].core && t->cpu[j].smt == 0) {
						c.rank[i] = c.rank[j];
						break;
					}
		free(seen_cores);
		free(dom_in_pkg);
		free(dom_pos);
	}
	octx = &c;
	qsort(idx, n, sizeof *idx, m == PIN_SCATTER ? cmp_scatter : cmp_compact);
	octx = NULL;
	free(c.rank);
	free(c.dom_rank);
	return 0;
}

int topo_place(const struct topo *t, enum pin_mode mode, const int32_t *list, uint32_t nlist,
	       uint32_t workers, int32_t *cpus, enum pin_mode *effective, char *note,
	       size_t notelen, char *err, size_t errlen)
{
	note[0] = '\0';
	for (uint32_t i = 0; i < workers; i++)
		cpus[i] = -1;
	if (mode == PIN_AUTO) {
		if (t && workers <= t->ncores) {
			mode = PIN_COMPACT;
		} else {
			if (t)
				snprintf(note, notelen, "%u workers on %u physical cores: not pinned%s",
					 workers, t->ncores,
					 t->npus > t->ncores ? " (--pin compact would put some on SMT "
							       "siblings)" : "");
			else
				snprintf(note, notelen, "no topology (hwloc failed): not pinned");
			mode = PIN_NONE;
		}
	}
	*effective = mode;
	if (mode == PIN_NONE)
		return 0;
	if (!t) {
		snprintf(err, errlen, "--pin %s: the machine's topology could not be read (hwloc)",
			 topo_pin_name(mode));
		return -1;
	}
	if (mode == PIN_LIST) {
		for (uint32_t i = 0; i < nlist; i++)
			if (topo_find(t, list[i]) < 0) {
				snprintf(err, errlen, "--pin: CPU %d is not one this process may run on "
					 "(%u CPUs: see the affinity mask, taskset -p)", list[i],
					 t->npus);
				return -1;
			}
		for (uint32_t i = 0; i < workers; i++)
			cpus[i] = list[i % nlist];
		if (workers > nlist)
			snprintf(note, notelen, "%u workers on %u listed CPUs: several share a CPU",
				 workers, nlist);
		return 0;
	}
	uint32_t *idx = malloc(t->npus * sizeof *idx);
	if (!idx || order(t, mode, idx) != 0) {
		free(idx);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < workers; i++)
		cpus[i] = t->cpu[idx[i % t->npus]].os;
	free(idx);
	if (workers > t->npus)
		snprintf(note, notelen, "%u workers on %u CPUs: several share a CPU", workers,
			 t->npus);
	else if (workers > t->ncores)
		snprintf(note, notelen, "%u workers on %u physical cores: some share a core with "
			 "an SMT sibling", workers, t->ncores);
	return 0;
}
