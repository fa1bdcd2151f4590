/*
 * test_policy_locality.c - the locality policy: fib correct on 1, 2, 3 and
 * 8 workers; the domain mapping from domain_size; thieves that drain their
 * own domain before any remote victim (driven by hand, with steals_remote
 * counting exactly the remote ones); a random start within the domain; the
 * sysfs topology reader on a fabricated tree; the worker limit.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "policies/volt_internal.h"
#include "run_util.h"

/* ---- fib ---- */

static void fib25_on(uint32_t workers)
{
	static const char *const params[] = { "n=25", NULL };
	struct run_result r;
	run_workload("locality", "fib", workers, NULL, params, &r);
	if (r.verify_rc != 0)
		TEST_FAIL("%u workers: %s", workers, r.err);
	ASSERT_U64_EQ(r.tasks, 242785);
	ASSERT_U64_EQ(r.total.completions, 242785);
	ASSERT_U64_EQ(r.total.spawns, 242785 - 1);
	/* Internal nodes polled twice, leaves once (a join completed during
	 * the parent's poll is that same second poll). */
	ASSERT_U64_EQ(r.total.polls, 242785 + (242785 - 1) / 2);
	ASSERT(r.total.steals_remote <= r.total.steals);
	if (workers == 1)
		ASSERT_U64_EQ(r.total.steal_attempts, 0);
	fprintf(stderr, "    %u workers: steals %llu (remote %llu), parks %llu\n", workers,
		(unsigned long long)r.total.steals, (unsigned long long)r.total.steals_remote,
		(unsigned long long)r.total.parks);
}

static void fib25_all(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 8 };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		fib25_on(counts[i]);
}

/* ---- hand-driven runtimes ---- */

static struct runtime *hand_runtime(uint32_t workers, const char *const *knobs,
				    struct engine **e)
{
	return hand_runtime_for(&policy_locality, workers, 7, 0, knobs, e);
}

static void hand_destroy(struct runtime *rt, struct engine *e)
{
	rt_destroy(rt);
	e->ops->destroy(e);
}

static void domain_mapping(void)
{
	static const char *const ds2[] = { "topology=0", "domain_size=2", NULL };
	static const char *const ds3[] = { "topology=0", "domain_size=3", NULL };
	static const char *const ds1[] = { "topology=0", "domain_size=1", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(5, ds2, &e);
	static const uint32_t want2[] = { 0, 0, 1, 1, 2 };
	for (uint32_t i = 0; i < 5; i++)
		ASSERT_EQ(locality_domain_of(rt, i), want2[i]);
	ASSERT_EQ(locality_domain_count(rt), 3);
	char text[4096];
	FILE *f = fmemopen(text, sizeof text, "w");
	ASSERT(f);
	policy_locality.dump(rt, f);
	fclose(f);
	ASSERT(strstr(text, "locality: 3 domains from domain_size: 0 0 1 1 2\n") != NULL);
	ASSERT(strstr(text, "volt worker 4:") != NULL);	/* volt's own state first */
	hand_destroy(rt, e);

	rt = hand_runtime(8, ds3, &e);
	for (uint32_t i = 0; i < 8; i++)
		ASSERT_EQ(locality_domain_of(rt, i), i / 3);
	ASSERT_EQ(locality_domain_count(rt), 3);
	hand_destroy(rt, e);

	rt = hand_runtime(4, ds1, &e);
	for (uint32_t i = 0; i < 4; i++)
		ASSERT_EQ(locality_domain_of(rt, i), i);
	hand_destroy(rt, e);

	/* On a machine with one L3 and one node (this one), the default
	 * (topology=1) falls back to domain_size=2; elsewhere the machine's
	 * domains are used, and every worker still has one. */
	rt = hand_runtime(6, NULL, &e);
	ASSERT(locality_domain_count(rt) >= 1 && locality_domain_count(rt) <= 6);
	for (uint32_t i = 0; i < 6; i++)
		ASSERT(locality_domain_of(rt, i) < locality_domain_count(rt));
	hand_destroy(rt, e);
}

/*
 * On the sim engine the domains are domain_size's whatever the host: the
 * default topology=1 would read this machine's L3 caches, and a simulated
 * result would then change with the host that made it (on a host whose two
 * CPUs have L3s of their own, 4 sim workers came out as domains 0 1 0 1).
 */
static void sim_domains_ignore_the_host(void)
{
	static const char *const ds2[] = { "domain_size=2", NULL };
	double kv[64];
	char err[256];
	struct runtime *rt;
	struct rt_config cfg = { .workers = 4, .seed = 7, .hist_digits = 2 };
	struct engine *e = engine_sim_create(4, NULL, 0);

	ASSERT(e);
	apply_settings(policy_locality.knobs, policy_locality.nknobs, kv, ds2);
	if (rt_create(&rt, &cfg, &policy_locality, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	for (uint32_t i = 0; i < 4; i++)
		ASSERT_EQ(locality_domain_of(rt, i), i / 2);
	ASSERT_EQ(locality_domain_count(rt), 2);
	hand_destroy(rt, e);
}

/* Fill worker `victim`'s ring with tasks t[0..n) (the test thread as its
 * owner). */
static void fill_ring(struct runtime *rt, uint32_t victim, struct task *t, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		task_init(&t[k], &dummy_vt);
		ASSERT(ring_try_push(&rt->shared[victim].ring, &t[k]));
	}
}

static bool from(const struct task *x, const struct task *t, uint32_t n)
{
	return x >= t && x < t + n;
}

/*
 * Two domains of two workers: {0, 1} and {2, 3}. Workers 1 (same domain as
 * worker 0) and 2 (remote) hold tasks; worker 0 steals one at a time
 * (steal_max=1, so nothing lands in its own ring): every steal comes from
 * worker 1 while it has tasks, and steals_remote stays 0; the next one
 * comes from worker 2 and counts as remote.
 */
static void in_domain_first_one_at_a_time(void)
{
	static const char *const knobs[] = { "topology=0", "domain_size=2", "steal_max=1", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(4, knobs, &e);
	struct worker *w0 = &rt->workers[0];
	const struct policy *p = &policy_locality;
	enum { N = 6 };
	struct task near[N], far[N];
	fill_ring(rt, 1, near, N);
	fill_ring(rt, 2, far, N);

	p->tick_begin(w0);
	for (uint32_t k = 0; k < N; k++) {
		struct task *x = p->find_work(w0);
		ASSERT(from(x, near, N));
		ASSERT(x == &near[k]);		/* a thief takes the oldest */
		ASSERT_U64_EQ(w0->st.steals, k + 1);
		ASSERT_U64_EQ(w0->st.steals_remote, 0);
		ASSERT_EQ(ring_len(&w0->sh->ring), 0);
	}
	ASSERT_EQ(ring_len(&rt->shared[1].ring), 0);
	ASSERT_EQ(ring_len(&rt->shared[2].ring), N);
	struct task *x = p->find_work(w0);
	ASSERT(from(x, far, N));
	ASSERT_U64_EQ(w0->st.steals, N + 1);
	ASSERT_U64_EQ(w0->st.steals_remote, 1);
	ASSERT(!w0->searching);		/* found work: left the searching state */
	hand_destroy(rt, e);
}

/* The same with Volt's default steal-half: the stolen batches land in
 * worker 0's ring and run from there; still no remote steal until
 * worker 1 is empty. */
static void in_domain_first_steal_half(void)
{
	static const char *const knobs[] = { "topology=0", "domain_size=2", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(4, knobs, &e);
	struct worker *w0 = &rt->workers[0];
	const struct policy *p = &policy_locality;
	enum { N = 40 };
	struct task near[N], far[N];
	fill_ring(rt, 1, near, N);
	fill_ring(rt, 2, far, N);

	p->tick_begin(w0);
	for (uint32_t k = 0; k < N; k++) {
		struct task *x = p->find_work(w0);
		ASSERT(from(x, near, N));
		ASSERT_U64_EQ(w0->st.steals_remote, 0);
	}
	ASSERT_U64_EQ(w0->st.tasks_stolen, N);
	ASSERT(w0->st.steals > 1 && w0->st.steals < N);	/* halves, not ones */
	uint64_t local_steals = w0->st.steals;
	struct task *x = p->find_work(w0);
	ASSERT(from(x, far, N));
	ASSERT_U64_EQ(w0->st.steals, local_steals + 1);
	ASSERT_U64_EQ(w0->st.steals_remote, 1);
	ASSERT_U64_EQ(w0->st.tasks_stolen, N + N / 2);
	hand_destroy(rt, e);
}

/* Worker 2 (domain 1) steals from worker 3 before 0 or 1; worker 3 alone
 * in its domain with nothing there goes remote. */
static void other_domain_prefers_its_own(void)
{
	static const char *const knobs[] = { "topology=0", "domain_size=2", "steal_max=1", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(4, knobs, &e);
	const struct policy *p = &policy_locality;
	struct task a[3], b[3], c[3];
	fill_ring(rt, 0, a, 3);
	fill_ring(rt, 1, b, 3);
	fill_ring(rt, 3, c, 3);
	struct worker *w2 = &rt->workers[2];
	p->tick_begin(w2);
	for (int k = 0; k < 3; k++)
		ASSERT(from(p->find_work(w2), c, 3));
	ASSERT_U64_EQ(w2->st.steals_remote, 0);
	struct task *x = p->find_work(w2);
	ASSERT(from(x, a, 3) || from(x, b, 3));
	ASSERT_U64_EQ(w2->st.steals_remote, 1);
	hand_destroy(rt, e);
}

/* Within the domain the first victim is chosen at random: with one task on
 * each of workers 1, 2 and 3 (one domain of four), worker 0's first steal
 * hits each of them in some of 60 rounds. The seed is fixed, so this is
 * deterministic; a fixed start would always pick the same one. */
static void random_start_in_domain(void)
{
	static const char *const knobs[] = { "topology=0", "domain_size=4", "steal_max=1", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(4, knobs, &e);
	const struct policy *p = &policy_locality;
	struct worker *w0 = &rt->workers[0];
	uint32_t first[4] = { 0 };
	for (int round = 0; round < 60; round++) {
		struct task t[4];
		for (uint32_t v = 1; v < 4; v++)
			fill_ring(rt, v, &t[v], 1);
		p->tick_begin(w0);
		struct task *x = p->find_work(w0);
		ASSERT(x == &t[1] || x == &t[2] || x == &t[3]);
		first[x - t]++;
		/* Empty the other rings again (as their owners). */
		for (uint32_t v = 1; v < 4; v++)
			while (ring_pop(&rt->shared[v].ring))
				;
	}
	for (uint32_t v = 1; v < 4; v++)
		ASSERT(first[v] > 0);
	ASSERT_U64_EQ(w0->st.steals_remote, 0);
	hand_destroy(rt, e);
}

static void more_than_64_workers_refused(void)
{
	double kv[LOC_NKNOBS];
	knob_defaults(policy_locality.knobs, policy_locality.nknobs, kv);
	struct rt_config cfg = { .workers = 65, .seed = 1, .hist_digits = 3 };
	char err[256] = "";
	ASSERT(policy_locality.check(&cfg, kv, err, sizeof err) != 0);
	ASSERT(strstr(err, "64") != NULL);
	ASSERT(strstr(err, "locality") != NULL);
	cfg.workers = 64;
	ASSERT_EQ(policy_locality.check(&cfg, kv, err, sizeof err), 0);
}

/* ---- the topology reader, on a fabricated sysfs tree ---- */

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	/* mkdir -p of the parent */
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
	if (text) {
		FILE *f = fopen(path, "w");
		ASSERT(f);
		fputs(text, f);
		fclose(f);
	} else {
		mkdir(path, 0700);
	}
}

static void topology_from_sysfs(void)
{
	char root[] = "/tmp/test_locality.XXXXXX";
	ASSERT(mkdtemp(root));
	/* Six CPUs (0-3 and 8-9 online), two L3 caches {0,1,8} {2,3,9}, two
	 * NUMA nodes {0,1,2,3} {8,9}. */
	put(root, "cpu/online", "0-3,8-9\n");
	static const struct { uint32_t cpu; const char *l3, *node; } cpus[] = {
		{ 0, "0-1,8\n", "node0" }, { 1, "0-1,8\n", "node0" }, { 2, "2-3,9\n", "node0" },
		{ 3, "2-3,9\n", "node0" }, { 8, "0-1,8\n", "node1" }, { 9, "2-3,9\n", "node1" },
	};
	for (size_t i = 0; i < 6; i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "cpu/cpu%u/cache/index0/level", cpus[i].cpu);
		put(root, rel, "1\n");
		snprintf(rel, sizeof rel, "cpu/cpu%u/cache/index0/shared_cpu_list", cpus[i].cpu);
		put(root, rel, "0\n");
		snprintf(rel, sizeof rel, "cpu/cpu%u/cache/index1/level", cpus[i].cpu);
		put(root, rel, "3\n");
		snprintf(rel, sizeof rel, "cpu/cpu%u/cache/index1/shared_cpu_list", cpus[i].cpu);
		put(root, rel, cpus[i].l3);
		snprintf(rel, sizeof rel, "cpu/cpu%u/%s", cpus[i].cpu, cpus[i].node);
		put(root, rel, NULL);
	}
	uint32_t dom[8];
	ASSERT_EQ(locality_cpu_domains(root, LOC_LEVEL_L3, dom, 8), 6);
	static const uint32_t want_l3[] = { 0, 0, 1, 1, 0, 1 };
	for (int j = 0; j < 6; j++)
		ASSERT_EQ(dom[j], want_l3[j]);
	ASSERT_EQ(locality_cpu_domains(root, LOC_LEVEL_NODE, dom, 8), 6);
	static const uint32_t want_node[] = { 0, 0, 0, 0, 1, 1 };
	for (int j = 0; j < 6; j++)
		ASSERT_EQ(dom[j], want_node[j]);
	/* At most max CPUs are read. */
	ASSERT_EQ(locality_cpu_domains(root, LOC_LEVEL_L3, dom, 3), 3);

	/* A tree that does not say: no answer rather than a guess. */
	char missing[1100];
	snprintf(missing, sizeof missing, "%s/nothing", root);
	ASSERT_EQ(locality_cpu_domains(missing, LOC_LEVEL_L3, dom, 8), -1);
	put(root, "cpu/online", "0-3,10\n");	/* cpu10 has no entries */
	ASSERT_EQ(locality_cpu_domains(root, LOC_LEVEL_L3, dom, 8), -1);
	put(root, "cpu/online", "0-x\n");
	ASSERT_EQ(locality_cpu_domains(root, LOC_LEVEL_L3, dom, 8), -1);

	char cmd[1200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0);

	/* The real tree, where there is one: every online CPU has a domain. */
	if (access("/sys/devices/system/cpu/online", R_OK) == 0) {
		uint32_t real[4096];
		int n = locality_cpu_domains("/sys/devices/system", LOC_LEVEL_L3, real, 4096);
		fprintf(stderr, "    this machine: %d CPUs, L3 domains of the first ones:", n);
		for (int j = 0; j < n && j < 8; j++)
			fprintf(stderr, " %u", real[j]);
		fputc('\n', stderr);
		ASSERT(n == -1 || n >= 1);
	}
}

int main(void)
{
	RUN(fib25_all);
	RUN(domain_mapping);
	RUN(sim_domains_ignore_the_host);
	RUN(in_domain_first_one_at_a_time);
	RUN(in_domain_first_steal_half);
	RUN(other_domain_prefers_its_own);
	RUN(random_start_in_domain);
	RUN(more_than_64_workers_refused);
	RUN(topology_from_sysfs);
	return 0;
}
