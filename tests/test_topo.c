/*
 * test_topo.c - the topology (core/topo.h) and worker pinning.
 *
 *  - the machine's topology as hwloc reads it agrees with the kernel: one
 *    PU per CPU of the affinity mask, counts that match the table;
 *  - placements on a synthetic two-package machine (2 packages x 2 L3 x 2
 *    cores x 2 threads): compact fills physical cores in order before any
 *    SMT sibling, scatter alternates packages and L3 domains, auto pins
 *    only when the workers fit on physical cores, a listed CPU outside the
 *    machine is refused, --pin text is parsed or refused;
 *  - pinning, from inside tasks: every task records sched_getcpu() and the
 *    worker polling it, and each worker's tasks ran on its CPU (compact,
 *    and a reversed list).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

#include "core/topo.h"
#include "run_util.h"

static void machine_matches_kernel(void)
{
	const struct topo *t = topo_machine();
	ASSERT(t);
	cpu_set_t set;
	ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
	ASSERT_EQ(t->npus, CPU_COUNT(&set));
	ASSERT(t->ncores >= 1 && t->ncores <= t->npus);
	ASSERT(t->threads_per_core >= 1 && t->npackages >= 1 && t->nnuma >= 1);
	uint32_t maxcore = 0, maxpkg = 0;
	for (uint32_t i = 0; i < t->npus; i++) {
		ASSERT(CPU_ISSET(t->cpu[i].os, &set));
		ASSERT_EQ(topo_find(t, t->cpu[i].os), i);
		ASSERT(t->cpu[i].smt < t->threads_per_core);
		maxcore = t->cpu[i].core > maxcore ? t->cpu[i].core : maxcore;
		maxpkg = t->cpu[i].package > maxpkg ? t->cpu[i].package : maxpkg;
	}
	ASSERT_EQ(maxcore + 1, t->ncores);
	ASSERT_EQ(maxpkg + 1, t->npackages);
	ASSERT_EQ(topo_find(t, 100000), -1);
	fprintf(stderr, "    %s: %u packages, %u NUMA nodes, %u L3, %u cores, %u threads\n",
		t->source, t->npackages, t->nnuma, t->nl3, t->ncores, t->npus);
}

/* 2 packages x 2 L3 x 2 cores x 2 threads; OS numbers as Linux gives them
 * on many servers: the first threads of all cores, then the siblings. */
static void synthetic(struct topo *t, struct topo_cpu *c)
{
	memset(t, 0, sizeof *t);
	t->npackages = 2, t->nnuma = 2, t->nl3 = 4, t->ncores = 8, t->npus = 16;
	t->threads_per_core = 2;
	t->cpu = c;
	for (uint32_t i = 0; i < 16; i++) {	/* hwloc order: package, L3, core, PU */
		uint32_t core = i / 2, smt = i % 2;
		c[i] = (struct topo_cpu){ .os = (int32_t)(core + 8 * smt), .package = core / 4,
					  .numa = core / 4, .l3 = core / 2, .core = core,
					  .smt = smt };
	}
}

static void placements(void)
{
	struct topo t;
	struct topo_cpu c[16];
	int32_t cpus[20];
	enum pin_mode eff;
	char note[256], err[256];
	synthetic(&t, c);

	/* Compact: cores 0..7 (OS 0..7), then their siblings (OS 8..15). */
	ASSERT_EQ(topo_place(&t, PIN_COMPACT, NULL, 0, 16, cpus, &eff, note, sizeof note, err,
			     sizeof err), 0);
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(cpus[i], i);
	ASSERT(strstr(note, "SMT"));
	ASSERT_EQ(topo_place(&t, PIN_COMPACT, NULL, 0, 8, cpus, &eff, note, sizeof note, err,
			     sizeof err), 0);
	ASSERT_STR_EQ(note, "");

	/* Scatter: the first four workers in four L3 domains, packages
	 * alternating; all eight on distinct cores before any sibling. */
	ASSERT_EQ(topo_place(&t, PIN_SCATTER, NULL, 0, 16, cpus, &eff, note, sizeof note, err,
			     sizeof err), 0);
	bool l3_seen[4] = { false };
	for (int i = 0; i < 4; i++) {
		const struct topo_cpu *x = &c[topo_find(&t, cpus[i])];
		ASSERT(!l3_seen[x->l3]);
		l3_seen[x->l3] = true;
		ASSERT_EQ(x->package, (uint32_t)i % 2);
	}
	bool core_seen[8] = { false };
	for (int i = 0; i < 8; i++) {
		const struct topo_cpu *x = &c[topo_find(&t, cpus[i])];
		ASSERT_EQ(x->smt, 0);
		ASSERT(!core_seen[x->core]);
		core_seen[x->core] = true;
	}
	for (int i = 8; i < 16; i++)
		ASSERT_EQ(c[topo_find(&t, cpus[i])].smt, 1);

	/* Auto: compact up to the physical cores, else none with a note. */
	ASSERT_EQ(topo_place(&t, PIN_AUTO, NULL, 0, 8, cpus, &eff, note, sizeof note, err,
			     sizeof err), 0);
	ASSERT_EQ(eff, PIN_COMPACT);
	ASSERT_EQ(cpus[7], 7);
	ASSERT_EQ(topo_place(&t, PIN_AUTO, NULL, 0, 9, cpus, &eff, note, sizeof note, err,
			     sizeof err), 0);
	ASSERT_EQ(eff, PIN_NONE);
	ASSERT_EQ(cpus[0], -1);
	ASSERT(strstr(note, "not pinned"));

	/* More workers than CPUs: they cycle, with a note. */
	ASSERT_EQ(topo_place(&t, PIN_COMPACT, NULL, 0, 20, cpus, &eff, note, sizeof note, err,
			     sizeof err), 0);
	ASSERT_EQ(cpus[16], 0);
	ASSERT(strstr(note, "share a CPU"));

	/* Lists. */
	int32_t list[8];
	uint32_t nlist;
	enum pin_mode m;
	ASSERT_EQ(topo_parse_pin("list:3,1,8-9", &m, list, 8, &nlist, err, sizeof err), 0);
	ASSERT_EQ(m, PIN_LIST);
	ASSERT_EQ(nlist, 4);
	ASSERT_EQ(list[3], 9);
	ASSERT_EQ(topo_place(&t, m, list, nlist, 5, cpus, &eff, note, sizeof note, err,
			     sizeof err), 0);
	ASSERT_EQ(cpus[0], 3);
	ASSERT_EQ(cpus[4], 3);
	list[1] = 99;
	ASSERT(topo_place(&t, m, list, nlist, 2, cpus, &eff, note, sizeof note, err,
			  sizeof err) != 0);
	ASSERT(strstr(err, "CPU 99"));
	static const char *const bad[] = { "list:", "list:1,", "list:a", "list:3-1", "everywhere",
					   "compact,", NULL };
	for (int i = 0; bad[i]; i++)
		ASSERT(topo_parse_pin(bad[i], &m, list, 8, &nlist, err, sizeof err) != 0);
	ASSERT_EQ(topo_parse_pin("scatter", &m, list, 8, &nlist, err, sizeof err), 0);
	ASSERT_EQ(m, PIN_SCATTER);
}

/* ---- pinning, seen from inside tasks ---------------------------------- */

#define PIN_TASKS 64

struct pin_task {
	struct task task;
	int cpu;
	uint32_t worker;
};

static _Atomic uint32_t pin_left;

static enum task_poll pin_poll(struct task *t, struct worker *w)
{
	struct pin_task *p = (struct pin_task *)t;
	p->cpu = sched_getcpu();
	p->worker = w->index;
	rt_compute(w, 20000);	/* long enough for an unpinned thread to move */
	/* Relaxed: only elects the finisher; the join orders the records. */
	if (atomic_fetch_sub_explicit(&pin_left, 1, memory_order_relaxed) == 1)
		rt_finish(w->rt, w);
	return TASK_DONE;
}

static const struct task_vtable pin_vt = { .name = "pin probe", .poll = pin_poll };

static void pin_start(struct runtime *rt, void *arg)
{
	struct pin_task *tasks = arg;
	for (int i = 0; i < PIN_TASKS; i++) {
		task_init(&tasks[i].task, &pin_vt);
		rt_spawn_remote(rt, &tasks[i].task);
	}
}

static void run_pinned(const int32_t *cpus, uint32_t workers)
{
	const struct policy *p = policy_find("static-partition");	/* round-robin deal */
	ASSERT(p);
	double kv[64];
	apply_settings(p->knobs, p->nknobs, kv, NULL);
	struct rt_config cfg = { .workers = workers, .seed = 1, .hist_digits = 2,
				 .watchdog_ns = 20000000000ull, .cpus = cpus };
	char err[256];
	struct engine *e = engine_threads_create(workers);
	struct runtime *rt;
	ASSERT(e);
	if (rt_create(&rt, &cfg, p, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	struct pin_task *tasks = aligned_alloc(CACHE_LINE, PIN_TASKS * sizeof *tasks);
	ASSERT(tasks);
	memset(tasks, 0, PIN_TASKS * sizeof *tasks);
	atomic_store(&pin_left, PIN_TASKS);
	ASSERT_EQ(e->ops->run(e, rt, pin_start, tasks), 0);
	uint32_t per[2] = { 0, 0 };
	for (int i = 0; i < PIN_TASKS; i++) {
		ASSERT(tasks[i].worker < workers);
		if (tasks[i].cpu != cpus[tasks[i].worker])
			TEST_FAIL("a task on worker %u ran on CPU %d, pinned to %d", tasks[i].worker,
				  tasks[i].cpu, cpus[tasks[i].worker]);
		per[tasks[i].worker < 2 ? tasks[i].worker : 0]++;
	}
	for (uint32_t w = 0; w < workers && w < 2; w++)
		ASSERT(per[w] > 0);	/* every worker was seen */
	free(tasks);
	rt_destroy(rt);
	e->ops->destroy(e);
}

static void pinned_tasks_run_there(void)
{
	const struct topo *t = topo_machine();
	ASSERT(t);
	uint32_t workers = t->npus >= 2 ? 2 : 1;
	int32_t cpus[2];
	enum pin_mode eff;
	char note[256], err[256];
	ASSERT_EQ(topo_place(t, PIN_COMPACT, NULL, 0, workers, cpus, &eff, note, sizeof note,
			     err, sizeof err), 0);
	fprintf(stderr, "    compact: workers on CPUs %d%s%d\n", cpus[0], workers > 1 ? ", " : "",
		workers > 1 ? cpus[1] : -1);
	run_pinned(cpus, workers);
	if (workers == 2) {
		int32_t rev[2] = { cpus[1], cpus[0] };
		run_pinned(rev, 2);
	}
}

int main(void)
{
	RUN(machine_matches_kernel);
	RUN(placements);
	RUN(pinned_tasks_run_there);
	return 0;
}
