/*
 * test_wl_uts.c - the UTS workload: the SHA-1 splittable RNG against the
 * root vectors of docs/sources.md; node, depth and leaf counts of
 * the small, medium and T3-small trees through the runtime (volt, 2
 * workers) and the sequential search; a custom tree against the
 * sequential search; the cutoff; and the checks themselves.
 */
#include <nettle/sha1.h>

#include "run_util.h"
#include "workloads/uts.h"

struct uts_seen {
	double nodes, depth, leaves;
};

static void read_metrics(void *inst, struct uts_seen *s)
{
	const struct workload *wl = workload_find("uts");
	struct wl_metric m[WL_MAX_METRICS];
	size_t n = wl->metrics(inst, m, WL_MAX_METRICS);
	s->nodes = s->depth = s->leaves = -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(m[i].name, "nodes") == 0)
			s->nodes = m[i].value;
		else if (strcmp(m[i].name, "depth") == 0)
			s->depth = m[i].value;
		else if (strcmp(m[i].name, "leaves") == 0)
			s->leaves = m[i].value;
	}
}

static void inspect(struct runtime *rt, void *arg)
{
	read_metrics(rt->user, arg);
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void rng_vectors(void)
{
	uint8_t s[UTS_STATE_BYTES];
	char h[2 * UTS_STATE_BYTES + 1];

	uts_rng_root(s, 0);
	hex(s, sizeof s, h);
	ASSERT_STR_EQ(h, "6768033e216468247bd031a0a2d9876d79818f8f");
	ASSERT_EQ(uts_rng_rand(s), 2038534031);

	uts_rng_root(s, 19);
	hex(s, sizeof s, h);
	ASSERT_STR_EQ(h, "c6988ab70cc9559ae4d6cba254e29a845a85f86b");
	ASSERT_EQ(uts_rng_rand(s), 1518729323);
	ASSERT_NEAR(uts_rng_prob(s), 1518729323 / 2147483648.0, 0);

	/* Child i hashes the parent's 20 bytes and i as 4 big-endian bytes:
	 * children differ from each other and from one hashed little-endian. */
	uint8_t c0[UTS_STATE_BYTES], c1[UTS_STATE_BYTES], c256[UTS_STATE_BYTES];
	uint8_t le[UTS_STATE_BYTES], buf[UTS_STATE_BYTES + 4];
	uts_rng_child(s, 0, c0);
	uts_rng_child(s, 1, c1);
	uts_rng_child(s, 256, c256);
	ASSERT(memcmp(c0, c1, sizeof c0) != 0);
	memcpy(buf, s, UTS_STATE_BYTES);
	memcpy(buf + UTS_STATE_BYTES, "\x00\x00\x01\x00", 4);
	struct sha1_ctx ctx;
	sha1_init(&ctx);
	sha1_update(&ctx, sizeof buf, buf);
	sha1_digest(&ctx, sizeof le, le);
	ASSERT(memcmp(c256, le, sizeof le) == 0);
	memcpy(buf + UTS_STATE_BYTES, "\x00\x01\x00\x00", 4);
	sha1_init(&ctx);
	sha1_update(&ctx, sizeof buf, buf);
	sha1_digest(&ctx, sizeof le, le);
	ASSERT(memcmp(c256, le, sizeof le) != 0);
}

struct tree_case {
	const char *preset;
	uint64_t nodes, depth, leaves;
};

/* docs/sources.md, "Unbalanced Tree Search". */
static const struct tree_case trees[] = {
	{ "preset=1", 944, 4, 744 },
	{ "preset=2", 16000, 6, 12839 },
	{ "preset=3", 257042, 8, 205878 },
	{ "preset=6", 143529, 250, 125837 },
};

static void trees_parallel(void)
{
	for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
		const struct tree_case *tc = &trees[i];
		const char *const params[] = { tc->preset, NULL };
		struct run_result r;
		struct uts_seen s;
		run_workload_inspect("volt", "uts", 2, NULL, params, 1, &r, inspect, &s);
		if (r.verify_rc != 0)
			TEST_FAIL("%s: %s", tc->preset, r.err);
		ASSERT_U64_EQ(s.nodes, tc->nodes);
		ASSERT_U64_EQ(s.depth, tc->depth);
		ASSERT_U64_EQ(s.leaves, tc->leaves);
		/* One task per node, each completed once, all but the root
		 * spawned by a worker; internal nodes are polled twice. */
		ASSERT_U64_EQ(r.tasks, tc->nodes);
		ASSERT_U64_EQ(r.total.completions, tc->nodes);
		ASSERT_U64_EQ(r.total.spawns, tc->nodes - 1);
		ASSERT_U64_EQ(r.total.polls,
			      tc->nodes + (tc->nodes - tc->leaves) + r.total.repolls);
		fprintf(stderr, "    %s: %llu nodes, steals %llu\n", tc->preset,
			(unsigned long long)tc->nodes, (unsigned long long)r.total.steals);
	}
}

static void *make(const char *const *params, uint32_t workers)
{
	const struct workload *wl = workload_find("uts");
	double p[16];
	ASSERT(wl && wl->nparams <= 16);
	apply_settings(wl->params, wl->nparams, p, params);
	void *inst = wl->create(p, workers, 1);
	ASSERT(inst);
	return inst;
}

static void trees_sequential(void)
{
	const struct workload *wl = workload_find("uts");
	for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
		const struct tree_case *tc = &trees[i];
		const char *const params[] = { tc->preset, NULL };
		char err[256];
		void *inst = make(params, 1);
		wl->run_sequential(inst);
		struct uts_seen s;
		read_metrics(inst, &s);
		ASSERT_U64_EQ(s.nodes, tc->nodes);
		ASSERT_U64_EQ(s.depth, tc->depth);
		ASSERT_U64_EQ(s.leaves, tc->leaves);
		ASSERT_U64_EQ(wl->tasks(inst), tc->nodes);
		if (wl->verify(inst, err, sizeof err) != 0)
			TEST_FAIL("%s sequential: %s", tc->preset, err);
		wl->destroy(inst);
	}
}

/* A custom geometric tree (linear shape) through the runtime against the
 * sequential search of the same parameters. */
static void custom_tree(void)
{
	static const char *const params[] = { "preset=0", "type=1", "shape=0", "depth=14",
					      "b0=4", "seed=1", NULL };
	const struct workload *wl = workload_find("uts");
	void *inst = make(params, 1);
	wl->run_sequential(inst);
	struct uts_seen seq;
	read_metrics(inst, &seq);
	wl->destroy(inst);
	ASSERT(seq.nodes > 10000);	/* a tree worth searching */
	ASSERT_U64_EQ(seq.depth, 14);

	struct run_result r;
	struct uts_seen par;
	run_workload_inspect("volt", "uts", 3, NULL, params, 1, &r, inspect, &par);
	if (r.verify_rc != 0)
		TEST_FAIL("%s", r.err);
	ASSERT_U64_EQ(par.nodes, seq.nodes);
	ASSERT_U64_EQ(par.depth, seq.depth);
	ASSERT_U64_EQ(par.leaves, seq.leaves);
	ASSERT_U64_EQ(r.total.completions, seq.nodes);
}

/* With cutoff 3, nodes at depth 3 search their subtree serially: the tasks
 * are the nodes of depth 0..3, the counts stay those of the whole tree. */
static void cutoff(void)
{
	static const char *const params[] = { "preset=3", "cutoff=3", NULL };
	static const char *const shallow[] = { "preset=0", "type=1", "shape=3", "b0=4",
					       "depth=3", "seed=19", NULL };
	const struct workload *wl = workload_find("uts");
	/* The same tree cut at depth 3 is the task tree: its nodes are the
	 * tasks (the shape is fixed below the limit, so the first three levels
	 * agree, and the level-3 nodes are its leaves). */
	void *inst = make(shallow, 1);
	wl->run_sequential(inst);
	struct uts_seen top;
	read_metrics(inst, &top);
	wl->destroy(inst);

	struct run_result r;
	struct uts_seen s;
	run_workload_inspect("volt", "uts", 2, NULL, params, 1, &r, inspect, &s);
	if (r.verify_rc != 0)
		TEST_FAIL("%s", r.err);
	ASSERT_U64_EQ(s.nodes, 257042);
	ASSERT_U64_EQ(s.depth, 8);
	ASSERT_U64_EQ(s.leaves, 205878);
	ASSERT_U64_EQ(r.tasks, top.nodes);
	ASSERT_U64_EQ(r.total.completions, top.nodes);
}

static void checks(void)
{
	const struct workload *wl = workload_find("uts");
	char err[256] = "";
	double p[16];

	/* A supercritical binomial tree (q m = 2) never dies out. */
	static const char *const super[] = { "preset=0", "type=0", "q=0.5", "m=4", NULL };
	apply_settings(wl->params, wl->nparams, p, super);
	ASSERT(wl->check(p, err, sizeof err) != 0);
	ASSERT(strstr(err, "q*m") != NULL);
	/* The presets, T3 (q m = 0.999) included, pass. */
	for (int i = 1; i <= 9; i++) {
		char pre[32];
		snprintf(pre, sizeof pre, "preset=%d", i);
		const char *const ps[] = { pre, NULL };
		apply_settings(wl->params, wl->nparams, p, ps);
		if (wl->check(p, err, sizeof err) != 0)
			TEST_FAIL("%s refused: %s", pre, err);
	}
	/* An instance that never ran fails verify: its counts are zero. */
	static const char *const small[] = { "preset=1", NULL };
	void *inst = make(small, 1);
	err[0] = '\0';
	ASSERT(wl->verify(inst, err, sizeof err) != 0);
	ASSERT(strstr(err, "944") != NULL);
	wl->destroy(inst);
}

int main(void)
{
	RUN(rng_vectors);
	RUN(trees_parallel);
	RUN(trees_sequential);
	RUN(custom_tree);
	RUN(cutoff);
	RUN(checks);
	return 0;
}
