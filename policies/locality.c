/*
 * locality.c - Volt with locality-aware stealing (seed 004, sections 4.3
 * and 6.1: "first try to steal from the same socket, then from a different
 * socket"; TBB's and hierarchical NUMA work stealing).
 *
 * Workers are grouped into domains. A thief tries every victim of its own
 * domain once, from a random start, before any victim of another domain,
 * and the remote ones again from a random start. Everything else is Volt's
 * design and Volt's code (volt_internal.h): this file replaces only the
 * victim loop of the steal step. Counters: steals counts every successful
 * steal, steals_remote those from another domain.
 *
 * Domains come from the machine where it has more than one among the CPUs
 * the workers map to: CPUs sharing a level-3 cache, else NUMA nodes, from
 * the harness's hwloc topology (core/topo.h; sysfs if hwloc fails), read in
 * init. Otherwise, or with topology=0, worker i is in domain i /
 * domain_size. A worker pinned by --pin maps to its CPU; an unpinned one is
 * taken to run on the (i mod ncpu)-th CPU, which holds only as far as the
 * scheduler keeps worker threads where they are numbered.
 *
 * Each worker's victim order is a table built at init (its own domain's
 * workers, then the others), so domains need not be contiguous ranges of
 * worker indices.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/topo.h"
#include "policies/volt_internal.h"

static const struct knob_def locality_knobs[LOC_NKNOBS] = {
	VOLT_KNOB_ENTRIES(1e7, 0, 128),
	[LOC_DOMAIN_SIZE] = { "domain_size", 2, 1, 1024, true,
			      "workers per domain when the machine has one domain (or topology=0): "
			      "worker i is in domain i / domain_size" },
	[LOC_TOPOLOGY] = { "topology", LOC_TOPO_AUTO, 0, 2, true,
			   "domains from: 0 = domain_size only; 1 = L3 caches, else NUMA nodes, else "
			   "domain_size; 2 = NUMA nodes, else domain_size" },
};

static const struct knob_enum locality_names[] = {
	{ "interval", (const struct knob_name[]){ { "adaptive", 0 }, { NULL, 0 } } },
	{ "topology", (const struct knob_name[]){ { "domain-size", LOC_TOPO_OFF },
						   { "auto", LOC_TOPO_AUTO },
						   { "numa", LOC_TOPO_NUMA }, { NULL, 0 } } },
	{ NULL, NULL },
};

/* Owner-private, one per worker: its victim order. */
struct loc_worker {
	CACHE_ALIGNED const uint32_t *order;	/* nlocal same-domain victims, then nremote */
	uint32_t nlocal, nremote;
	uint32_t domain;
};

_Static_assert(sizeof(struct loc_worker) % CACHE_LINE == 0, "owner state padded to lines");

struct locality {
	uint32_t ndomains;
	const char *source;		/* "L3 caches", "NUMA nodes" or "domain_size" */
	struct loc_worker *lw;		/* [nworkers] */
	uint32_t *orders;		/* [nworkers * (nworkers - 1)] */
};

static inline struct locality *L(const struct runtime *rt)
{
	return volt_steal_arg(rt);
}

/* ---- topology ---- */

/* Read a small sysfs file into buf; false if it cannot be read. */
static bool read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n > 0;
}

/*
 * Parse a CPU list ("0-3,8,10-11") into out[], in order, at most max CPUs.
 * Returns the count, or -1 on a malformed list.
 */
static int parse_cpulist(const char *s, uint32_t *out, uint32_t max)
{
	int k = 0;
	while (*s && *s != '\n') {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			return -1;
		s = end;
		if (*s == '-') {
			hi = strtoul(s + 1, &end, 10);
			if (end == s + 1 || hi < lo)
				return -1;
			s = end;
		}
		for (unsigned long c = lo; c <= hi && (uint32_t)k < max; c++)
			out[k++] = (uint32_t)c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return k;
}

/* The first CPU of a CPU list, or -1. */
static long first_cpu(const char *list)
{
	uint32_t c;
	return parse_cpulist(list, &c, 1) == 1 ? (long)c : -1;
}

/* Key of CPU `cpu` at `level`: the first CPU sharing its L3, or its NUMA
 * node number. -1 if sysfs does not say. */
static long cpu_key(const char *root, enum locality_level level, uint32_t cpu)
{
	char path[4096], text[4096];
	if (level == LOC_LEVEL_L3) {
		for (int idx = 0; idx < 16; idx++) {
			snprintf(path, sizeof path, "%s/cpu/cpu%u/cache/index%d/level", root, cpu, idx);
			if (!read_text(path, text, sizeof text))
				break;
			if (atoi(text) != 3)
				continue;
			snprintf(path, sizeof path, "%s/cpu/cpu%u/cache/index%d/shared_cpu_list", root,
				 cpu, idx);
			return read_text(path, text, sizeof text) ? first_cpu(text) : -1;
		}
		return -1;
	}
	/* cpu/cpuN holds a nodeK entry for its NUMA node. */
	snprintf(path, sizeof path, "%s/cpu/cpu%u", root, cpu);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	long key = -1;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
			key = atol(e->d_name + 4);
			break;
		}
	closedir(d);
	return key;
}

int locality_cpu_domains(const char *root, enum locality_level level, uint32_t *dom, uint32_t max)
{
	char path[4096], text[4096];
	snprintf(path, sizeof path, "%s/cpu/online", root);
	if (!read_text(path, text, sizeof text))
		return -1;
	uint32_t *cpus = calloc(max ? max : 1, sizeof *cpus);
	long *keys = calloc(max ? max : 1, sizeof *keys);
	int n = cpus && keys ? parse_cpulist(text, cpus, max) : -1;
	uint32_t ndom = 0;
	for (int j = 0; j < n; j++) {
		long key = cpu_key(root, level, cpus[j]);
		if (key < 0) {
			n = -1;
			break;
		}
		uint32_t d = 0;
		while (d < ndom && keys[d] != key)
			d++;
		if (d == ndom)
			keys[ndom++] = key;
		dom[j] = d;
	}
	free(cpus);
	free(keys);
	return n;
}

/*
 * Worker domains from the harness's topology (core/topo.h, hwloc), the one
 * --pin places workers with: worker i on its pinned CPU, or unpinned on the
 * (i mod ncpu)-th CPU of the process. False if hwloc has no such level or
 * the workers land in one domain.
 */
static bool domains_from_topo(const struct runtime *rt, uint32_t n, enum locality_level level,
			      uint32_t *dom)
{
	const struct topo *t = topo_machine();
	if (!t || (level == LOC_LEVEL_L3 && t->nl3 == 0))
		return false;
	uint32_t *key = malloc(n * sizeof *key);
	if (!key)
		return false;
	uint32_t ndom = 0;
	bool several = false;
	for (uint32_t i = 0; i < n; i++) {
		int32_t cpu = rt->cfg.cpus ? rt->cfg.cpus[i] : -1;
		int k = cpu >= 0 ? topo_find(t, cpu) : -1;
		const struct topo_cpu *c = &t->cpu[k >= 0 ? (uint32_t)k : i % t->npus];
		uint32_t v = level == LOC_LEVEL_L3 ? c->l3 : c->numa, d = 0;
		while (d < ndom && key[d] != v)
			d++;
		if (d == ndom)
			key[ndom++] = v;
		dom[i] = d;
		several |= d != dom[0];
	}
	free(key);
	return several;
}

/*
 * Worker domains from the machine: the topology above, else sysfs with
 * worker i on the (i mod ncpu)-th online CPU. False (dom untouched) if
 * neither says or the workers land in a single domain.
 */
static bool domains_from_topology(const struct runtime *rt, uint32_t n,
				  enum locality_level level, uint32_t *dom)
{
	if (domains_from_topo(rt, n, level, dom))
		return true;
	enum { MAX_CPUS = 4096 };
	uint32_t *cpu_dom = malloc(MAX_CPUS * sizeof *cpu_dom);
	if (!cpu_dom)
		return false;
	int ncpu = locality_cpu_domains("/sys/devices/system", level, cpu_dom, MAX_CPUS);
	bool several = false;
	if (ncpu > 0) {
		for (uint32_t i = 0; i < n; i++) {
			dom[i] = cpu_dom[i % (uint32_t)ncpu];
			several |= dom[i] != dom[0];
		}
	}
	free(cpu_dom);
	return several;
}

/* ---- the victim loop ---- */

/* Try each of victims[0..len) once, from a random start. */
static struct task *sweep(struct worker *w, const uint32_t *victims, uint32_t len)
{
	if (len == 0)
		return NULL;
	uint32_t start = rng_below(&w->rng, len);
	for (uint32_t i = 0; i < len; i++) {
		uint32_t j = start + i < len ? start + i : start + i - len;
		struct task *t = volt_steal_from(w, victims[j]);
		if (t)
			return t;
	}
	return NULL;
}

static struct task *locality_steal(struct worker *w, void *arg)
{
	const struct loc_worker *lw = &((struct locality *)arg)->lw[w->index];
	if (!volt_steal_begin(w))
		return NULL;
	struct task *t = sweep(w, lw->order, lw->nlocal);
	if (t)
		return t;
	t = sweep(w, lw->order + lw->nlocal, lw->nremote);
	if (t)
		w->st.steals_remote++;
	return t;
}

/* ---- ops ---- */

static int locality_check(const struct rt_config *cfg, const double *k, char *err, size_t len)
{
	if (cfg->workers > IDLE_MAX_WORKERS) {
		snprintf(err, len,
			 "policy locality supports at most %d workers (volt's 64-bit parked bitmap), "
			 "got %u",
			 IDLE_MAX_WORKERS, cfg->workers);
		return -EINVAL;
	}
	return volt_check(cfg, k, err, len);
}

static void locality_free(struct locality *l)
{
	if (!l)
		return;
	free(l->lw);
	free(l->orders);
	free(l);
}

static int locality_init(struct runtime *rt)
{
	int rc = volt_init(rt);
	if (rc != 0)
		return rc;
	uint32_t n = rt->nworkers;
	const double *k = rt->knobs;
	struct locality *l = calloc(1, sizeof *l);
	uint32_t *dom = calloc(n, sizeof *dom);
	if (l) {
		l->lw = aligned_alloc(CACHE_LINE, n * sizeof *l->lw);
		l->orders = malloc((n > 1 ? (size_t)n * (n - 1) : 1) * sizeof *l->orders);
	}
	if (!l || !dom || !l->lw || !l->orders) {
		locality_free(l);
		free(dom);
		volt_destroy(rt);
		return -ENOMEM;
	}
	memset(l->lw, 0, n * sizeof *l->lw);

	enum locality_topology topo = (enum locality_topology)k[LOC_TOPOLOGY];
	/* The sim's workers run on no CPU of this machine: their domains come
	 * from domain_size alone, so that a simulated result is the same on
	 * every host (this one's L3 caches once split 2 sim workers in two). */
	if (rt->engine->ops->one_thread)
		topo = LOC_TOPO_OFF;
	if (topo == LOC_TOPO_AUTO && domains_from_topology(rt, n, LOC_LEVEL_L3, dom))
		l->source = "L3 caches";
	else if (topo != LOC_TOPO_OFF && domains_from_topology(rt, n, LOC_LEVEL_NODE, dom))
		l->source = "NUMA nodes";
	else {
		uint32_t size = (uint32_t)k[LOC_DOMAIN_SIZE];
		for (uint32_t i = 0; i < n; i++)
			dom[i] = i / size;
		l->source = "domain_size";
	}
	for (uint32_t i = 0; i < n; i++)
		if (dom[i] + 1 > l->ndomains)
			l->ndomains = dom[i] + 1;

	/* Victim orders: same domain first, then the rest, by index (each
	 * part is swept from a random start). */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *o = l->orders + (size_t)i * (n - 1);
		struct loc_worker *lw = &l->lw[i];
		uint32_t m = 0;
		for (uint32_t j = 0; j < n; j++)
			if (j != i && dom[j] == dom[i])
				o[m++] = j;
		lw->nlocal = m;
		for (uint32_t j = 0; j < n; j++)
			if (dom[j] != dom[i])
				o[m++] = j;
		lw->nremote = m - lw->nlocal;
		lw->order = o;
		lw->domain = dom[i];
	}
	free(dom);
	volt_set_steal(rt, locality_steal, l);
	return 0;
}

static void locality_destroy(struct runtime *rt)
{
	if (!rt->pstate)
		return;
	locality_free(L(rt));
	volt_destroy(rt);
}

uint32_t locality_domain_of(const struct runtime *rt, uint32_t worker)
{
	return L(rt)->lw[worker].domain;
}

uint32_t locality_domain_count(const struct runtime *rt)
{
	return L(rt)->ndomains;
}

static void locality_dump(struct runtime *rt, FILE *f)
{
	struct locality *l = L(rt);
	volt_dump(rt, f);
	fprintf(f, "  locality: %u domains from %s:", l->ndomains, l->source);
	for (uint32_t i = 0; i < rt->nworkers; i++)
		fprintf(f, " %u", l->lw[i].domain);
	fputc('\n', f);
}

const struct policy policy_locality = {
	.name = "locality",
	.summary = "volt whose thieves try every victim of their own domain (L3, NUMA node or "
		   "domain_size) before any remote one",
	.knobs = locality_knobs,
	.nknobs = LOC_NKNOBS,
	.knob_names = locality_names,
	.check = locality_check,
	.init = locality_init,
	.destroy = locality_destroy,
	.schedule_local = volt_schedule_local,
	.schedule_remote = volt_schedule_remote,
	.tick_begin = volt_tick_begin,
	.find_work = volt_find_work_hooked,
	.step = volt_step_hooked,
	.tick_end = volt_tick_end,
	.park = volt_park,
	.unparked = volt_unparked,
	.check_idle = volt_check_idle,
	.dump = locality_dump,
};
