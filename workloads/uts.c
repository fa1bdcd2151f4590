/*
 * uts.c - Unbalanced Tree Search (Olivier et al., LCPC 2006), one task per
 * tree node, continuation-passing fork-join.
 *
 * The tree is implicit: a node is a 20-byte SHA-1 state (uts.h); how many
 * children it has is a function of its state and depth, and child i's state
 * is SHA1(state || i). The shape of the tree follows the UTS reference code
 * (the BOTS and trolando/lace copies, benchmarks/uts/uts.c):
 *
 *   geometric  children = floor(log(1 - u) / log(1 - p)), p = 1 / (1 + b),
 *              u the node's probability, b set by the shape function from
 *              b0, the depth d and the depth limit D (the root always uses
 *              b0): linear b0 (1 - d/D); exponential decrease
 *              b0 d^(-ln b0 / ln D); cyclic b0^sin(2 pi d / D), 0 past 5D;
 *              fixed b0 below D, else 0
 *   binomial   the root has floor(b0) children; every other node has m
 *              children with probability q, else none
 *   hybrid     geometric while d < D/2 (UTS's default shift depth 0.5),
 *              binomial below
 *
 * Children per node are capped at 100, except at the root of a binomial
 * tree. Tree type and shape use UTS's own numbering (-t and -a), so a UTS
 * command line translates parameter by parameter.
 *
 * A node's first poll counts it (per-worker counters: nodes, leaves,
 * deepest level), spawns one task per child and returns TASK_JOIN(k); when
 * every child has arrived, its second poll arrives at its own parent. The
 * root's completion finishes the run. At depth `cutoff` and below (if set)
 * a task searches its whole subtree serially. Verify compares node count,
 * depth and leaf count with the published figures for the named trees
 * (docs/sources.md; T2 and T4 from the UTS distribution's
 * sample_trees.sh) and with a sequential search for custom trees, and
 * checks that every task spawned was polled to completion.
 */
#include <errno.h>
#include <math.h>
#include <nettle/sha1.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/uts.h"
#include "workloads/workload.h"

enum { P_PRESET, P_TYPE, P_SHAPE, P_B0, P_DEPTH, P_Q, P_M, P_SEED, P_CUTOFF, P_COUNT };

enum uts_type { UTS_BIN = 0, UTS_GEO = 1, UTS_HYBRID = 2 };
enum uts_shape { UTS_LINEAR = 0, UTS_EXPDEC = 1, UTS_CYCLIC = 2, UTS_FIXED = 3 };

#define UTS_MAX_CHILDREN 100u
/* Refuse trees expected to be larger than this (hours of search). */
#define UTS_MAX_EXPECTED 2e10

static const struct knob_def uts_params[P_COUNT] = {
	[P_PRESET] = { "preset", 3, 0, 9, true,
		       "named tree, overriding the raw parameters: 0 = custom (type, shape, b0, depth, "
		       "q, m, seed), 1 = small d=4, 2 = small d=6, 3 = medium, 4 = T1, 5 = T3, "
		       "6 = T3-small, 7 = T5, 8 = T2, 9 = T4" },
	[P_TYPE] = { "type", 1, 0, 2, true,
		     "custom tree type (UTS -t): 0 = binomial, 1 = geometric, 2 = hybrid" },
	[P_SHAPE] = { "shape", 3, 0, 3, true,
		      "custom geometric shape (UTS -a): 0 = linear, 1 = exponential decrease, "
		      "2 = cyclic, 3 = fixed" },
	[P_B0] = { "b0", 4, 0, 10000, false, "custom root branching factor (UTS -b)" },
	[P_DEPTH] = { "depth", 6, 1, 1e6, true, "custom geometric depth limit D (UTS -d)" },
	[P_Q] = { "q", 0.234375, 0, 1, false,
		  "custom binomial: probability that a node has m children (UTS -q)" },
	[P_M] = { "m", 4, 0, 100, true, "custom binomial: children of a non-leaf node (UTS -m)" },
	[P_SEED] = { "seed", 0, 0, 2147483647, true, "custom root seed (UTS -r)" },
	[P_CUTOFF] = { "cutoff", 0, 0, 1e6, true,
		       "nodes at this depth search their subtree serially in one task (0 = none: "
		       "every node is a task)" },
};

/* The preset names are those of the preset table below (0 = custom). */
static const struct knob_enum uts_names[] = {
	{ "preset", (const struct knob_name[]){ { "custom", 0 }, { "small-d4", 1 }, { "small-d6", 2 },
						 { "medium", 3 }, { "T1", 4 }, { "T3", 5 },
						 { "T3-small", 6 }, { "T5", 7 }, { "T2", 8 },
						 { "T4", 9 }, { NULL, 0 } } },
	{ "type", (const struct knob_name[]){ { "binomial", UTS_BIN }, { "geometric", UTS_GEO },
					       { "hybrid", UTS_HYBRID }, { NULL, 0 } } },
	{ "shape", (const struct knob_name[]){ { "linear", UTS_LINEAR },
						{ "exponential", UTS_EXPDEC },
						{ "cyclic", UTS_CYCLIC }, { "fixed", UTS_FIXED },
						{ NULL, 0 } } },
	{ NULL, NULL },
};

struct uts_tree {
	enum uts_type type;
	enum uts_shape shape;
	double b0, q;
	uint32_t gen_mx, m, seed;
};

struct uts_count {
	uint64_t nodes, leaves, depth;	/* depth: the deepest level seen */
	uint64_t tasks;			/* nodes a parallel run makes tasks of */
};

struct uts_preset {
	const char *name;
	struct uts_tree tree;
	struct uts_count expect;	/* tasks unused */
};

#define GEO(shape_, b0_, d_, seed_) \
	{ .type = UTS_GEO, .shape = (shape_), .b0 = (b0_), .gen_mx = (d_), .seed = (seed_) }
#define BIN(b0_, q_, m_, seed_) \
	{ .type = UTS_BIN, .b0 = (b0_), .q = (q_), .m = (m_), .seed = (seed_) }
#define COUNT(nodes_, depth_, leaves_) { .nodes = (nodes_), .depth = (depth_), .leaves = (leaves_) }

static const struct uts_preset uts_presets[] = {
	[1] = { "small-d4", GEO(UTS_FIXED, 4, 4, 19), COUNT(944, 4, 744) },
	[2] = { "small-d6", GEO(UTS_FIXED, 4, 6, 19), COUNT(16000, 6, 12839) },
	[3] = { "medium", GEO(UTS_FIXED, 4, 8, 19), COUNT(257042, 8, 205878) },
	[4] = { "T1", GEO(UTS_FIXED, 4, 10, 19), COUNT(4130071, 10, 3305118) },
	[5] = { "T3", BIN(2000, 0.124875, 8, 42), COUNT(4112897, 1572, 3599034) },
	[6] = { "T3-small", BIN(2000, 0.124875, 8, 0), COUNT(143529, 250, 125837) },
	[7] = { "T5", GEO(UTS_LINEAR, 4, 20, 34), COUNT(4147582, 20, 2181318) },
	[8] = { "T2", GEO(UTS_CYCLIC, 6, 16, 502), COUNT(4117769, 81, 2342762) },
	[9] = { "T4",
		{ .type = UTS_HYBRID, .shape = UTS_LINEAR, .b0 = 6, .gen_mx = 16, .q = 0.234375,
		  .m = 4, .seed = 1 },
		COUNT(4132453, 134, 3108986) },
};

#undef GEO
#undef BIN
#undef COUNT

/* ---- the splittable RNG (uts.h) ---- */

void uts_rng_root(uint8_t out[UTS_STATE_BYTES], uint32_t seed)
{
	uint8_t buf[20] = { 0 };
	buf[16] = (uint8_t)(seed >> 24);
	buf[17] = (uint8_t)(seed >> 16);
	buf[18] = (uint8_t)(seed >> 8);
	buf[19] = (uint8_t)seed;
	struct sha1_ctx ctx;
	sha1_init(&ctx);
	sha1_update(&ctx, sizeof buf, buf);
	sha1_digest(&ctx, UTS_STATE_BYTES, out);
}

void uts_rng_child(const uint8_t parent[UTS_STATE_BYTES], uint32_t i,
		   uint8_t out[UTS_STATE_BYTES])
{
	uint8_t buf[UTS_STATE_BYTES + 4];
	memcpy(buf, parent, UTS_STATE_BYTES);
	buf[20] = (uint8_t)(i >> 24);
	buf[21] = (uint8_t)(i >> 16);
	buf[22] = (uint8_t)(i >> 8);
	buf[23] = (uint8_t)i;
	struct sha1_ctx ctx;
	sha1_init(&ctx);
	sha1_update(&ctx, sizeof buf, buf);
	sha1_digest(&ctx, UTS_STATE_BYTES, out);
}

/* ---- the tree shape ---- */

/* Target branching factor of a geometric node at `depth` (UTS's shape
 * functions, with its constants). */
static double geo_b(const struct uts_tree *t, uint32_t depth)
{
	if (depth == 0)
		return t->b0;
	double d = (double)depth, mx = (double)t->gen_mx;
	switch (t->shape) {
	case UTS_EXPDEC:
		return t->b0 * pow(d, -log(t->b0) / log(mx));
	case UTS_CYCLIC:
		if (d > 5 * mx)
			return 0.0;
		return pow(t->b0, sin(2.0 * 3.141592653589793 * d / mx));
	case UTS_FIXED:
		return depth < t->gen_mx ? t->b0 : 0.0;
	case UTS_LINEAR:
	default:
		return t->b0 * (1.0 - d / mx);
	}
}

static bool uts_is_geo(const struct uts_tree *t, uint32_t depth)
{
	return t->type == UTS_GEO || (t->type == UTS_HYBRID && (double)depth < 0.5 * t->gen_mx);
}

static uint32_t uts_children(const struct uts_tree *t, const uint8_t s[UTS_STATE_BYTES],
			     uint32_t depth)
{
	if (t->type == UTS_BIN && depth == 0)
		return (uint32_t)floor(t->b0);	/* the one node the cap spares */
	uint32_t k;
	if (uts_is_geo(t, depth)) {
		double p = 1.0 / (1.0 + geo_b(t, depth));
		double x = floor(log(1.0 - uts_rng_prob(s)) / log(1.0 - p));
		/* !(x > 0) also catches -0 and NaN (b = 0 gives log(0)). */
		k = !(x > 0) ? 0 : x >= UTS_MAX_CHILDREN ? UTS_MAX_CHILDREN : (uint32_t)x;
	} else {
		k = uts_rng_prob(s) < t->q ? t->m : 0;
	}
	return k > UTS_MAX_CHILDREN ? UTS_MAX_CHILDREN : k;
}

/* Expected number of nodes (ignoring the cap), summed level by level until
 * the levels vanish or the sum passes `limit`. */
static double uts_expected_size(const struct uts_tree *t, double limit)
{
	double level = 1, sum = 0;
	for (uint32_t d = 0; level > 1e-12 && sum <= limit && d < 100000000u; d++) {
		sum += level;
		double b;
		if (t->type == UTS_BIN && d == 0)
			b = floor(t->b0);
		else if (uts_is_geo(t, d))
			b = geo_b(t, d);
		else
			b = t->q * t->m;
		level *= b > 0 ? b : 0;
	}
	return sum;
}

/* ---- serial search ---- */

struct uts_frame {
	uint8_t state[UTS_STATE_BYTES];
	uint32_t depth, k, next;
};

/* A DFS stack, grown on demand; owner-private. */
struct uts_stack {
	struct uts_frame *f;
	size_t cap;
};

/*
 * Search the subtree below `state` depth-first with an explicit stack (deep
 * trees such as large binomial ones would overflow the call stack), adding
 * to c. Nodes no deeper than task_depth count as tasks.
 */
static void uts_dfs(const struct uts_tree *t, const uint8_t state[UTS_STATE_BYTES],
		    uint32_t depth, uint32_t task_depth, struct uts_stack *st, struct uts_count *c)
{
	size_t top = 0;
	if (st->cap == 0) {
		st->cap = 256;
		st->f = malloc(st->cap * sizeof *st->f);
		CHECK_MSG(st->f, "out of memory for the UTS search stack");
	}
	memcpy(st->f[0].state, state, UTS_STATE_BYTES);
	st->f[0].depth = depth;
	for (;;) {
		/* Visit the node on top of the stack. */
		struct uts_frame *f = &st->f[top];
		c->nodes++;
		c->tasks += f->depth <= task_depth;
		if (f->depth > c->depth)
			c->depth = f->depth;
		f->k = uts_children(t, f->state, f->depth);
		f->next = 0;
		if (f->k == 0)
			c->leaves++;
		/* Find the next child to visit, popping finished nodes. */
		while (st->f[top].next == st->f[top].k) {
			if (top == 0)
				return;
			top--;
		}
		if (top + 1 == st->cap) {
			st->cap *= 2;
			st->f = realloc(st->f, st->cap * sizeof *st->f);
			CHECK_MSG(st->f, "out of memory for the UTS search stack");
		}
		struct uts_frame *parent = &st->f[top];
		struct uts_frame *child = &st->f[top + 1];
		uts_rng_child(parent->state, parent->next++, child->state);
		child->depth = parent->depth + 1;
		top++;
	}
}

/* ---- the workload ---- */

struct uts_node {
	struct task task;		/* first; task.cont is the parent */
	uint8_t state[UTS_STATE_BYTES];
	uint32_t depth;
	uint8_t spawned;
};

_Static_assert(sizeof(struct uts_node) <= TASKPOOL_BLOCK, "a UTS node fits one block");

/* Per worker, owner-only while the run goes on. */
struct uts_worker {
	CACHE_ALIGNED struct uts_count c;	/* c.tasks: tasks polled to completion */
	uint64_t spawned;			/* child tasks spawned */
	struct uts_stack stack;			/* for serial subtrees */
};

struct uts {
	struct uts_tree tree;
	uint32_t preset, cutoff, workers;
	bool parallel_ran;
	bool have_expect;
	bool expect_tasks;		/* expect.tasks known (custom trees) */
	struct uts_count expect;
	struct uts_count seq;		/* the last sequential run */
	struct uts_worker *w;		/* [workers] */
	struct runtime *rt;
};

static uint32_t uts_task_depth(const struct uts *u)
{
	return u->cutoff ? u->cutoff : UINT32_MAX;
}

static void uts_tree_of(const double *p, struct uts_tree *t)
{
	uint32_t preset = (uint32_t)p[P_PRESET];
	if (preset) {
		*t = uts_presets[preset].tree;
		return;
	}
	t->type = (enum uts_type)p[P_TYPE];
	t->shape = (enum uts_shape)p[P_SHAPE];
	t->b0 = p[P_B0];
	t->gen_mx = (uint32_t)p[P_DEPTH];
	t->q = p[P_Q];
	t->m = (uint32_t)p[P_M];
	t->seed = (uint32_t)p[P_SEED];
}

/*
 * A preset stands for its tree: write the tree's parameters into the raw
 * ones, so the run's header and result file say what was searched. The
 * parameters that do not apply to the preset's type (depth and shape of a
 * binomial tree, q and m of a geometric one) keep their defaults. Setting
 * a tree parameter beside a preset is refused: the preset would override
 * it.
 */
static int uts_resolve(double *p, const bool *given, char *err, size_t len)
{
	uint32_t preset = (uint32_t)p[P_PRESET];
	if (!preset)
		return 0;
	for (int k = P_TYPE; k <= P_SEED; k++)
		if (given[k]) {
			snprintf(err, len, "uts: preset=%s fixes the tree; %s can be set only with "
				 "preset=custom", uts_presets[preset].name, uts_params[k].name);
			return -EINVAL;
		}
	const struct uts_tree *t = &uts_presets[preset].tree;
	p[P_TYPE] = t->type;
	p[P_B0] = t->b0;
	p[P_SEED] = t->seed;
	if (t->type != UTS_BIN) {
		p[P_SHAPE] = t->shape;
		p[P_DEPTH] = t->gen_mx;
	}
	if (t->type != UTS_GEO) {
		p[P_Q] = t->q;
		p[P_M] = t->m;
	}
	return 0;
}

static const struct task_vtable uts_vt;

static struct uts_node *node_new(struct runtime *rt, struct worker *w, struct uts_node *parent)
{
	struct uts_node *c = rt_task_alloc(rt, w, sizeof *c);
	task_init(&c->task, &uts_vt);
	c->task.cont = parent ? &parent->task : NULL;
	c->spawned = 0;
	return c;
}

static enum task_poll uts_poll(struct task *t, struct worker *w)
{
	struct uts_node *nd = (struct uts_node *)t;
	struct uts *u = w->rt->user;

	if (!nd->spawned) {
		struct uts_worker *pw = &u->w[w->index];
		if (u->cutoff && nd->depth >= u->cutoff) {
			/* The subtree's own count includes this node as a task. */
			uts_dfs(&u->tree, nd->state, nd->depth, nd->depth, &pw->stack, &pw->c);
		} else {
			pw->c.tasks++;
			pw->c.nodes++;
			if (nd->depth > pw->c.depth)
				pw->c.depth = nd->depth;
			uint32_t k = uts_children(&u->tree, nd->state, nd->depth);
			if (k == 0) {
				pw->c.leaves++;
			} else {
				nd->spawned = 1;
				pw->spawned += k;
				for (uint32_t i = 0; i < k; i++) {
					struct uts_node *c = node_new(w->rt, w, nd);
					uts_rng_child(nd->state, i, c->state);
					c->depth = nd->depth + 1;
					rt_spawn(w, &c->task);
				}
				return TASK_JOIN(k);
			}
		}
	}

	if (!nd->task.cont) {
		rt_finish(w->rt, w);
		return TASK_DONE;
	}
	rt_join_arrive(w->rt, w, nd->task.cont);
	return TASK_DONE;
}

static void uts_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct uts_node));
}

static const struct task_vtable uts_vt = {
	.name = "uts",
	.poll = uts_poll,
	.drop = uts_drop,
};

static int uts_check(const double *p, char *err, size_t len)
{
	struct uts_tree t;
	uts_tree_of(p, &t);
	if (t.type == UTS_BIN && t.b0 > TASK_JOIN_MAX) {
		snprintf(err, len, "uts: a binomial root with b0=%g children exceeds the join limit %u",
			 t.b0, TASK_JOIN_MAX);
		return -EINVAL;
	}
	double size = uts_expected_size(&t, UTS_MAX_EXPECTED);
	if (size > UTS_MAX_EXPECTED) {
		snprintf(err, len, "uts: the tree's expected size exceeds %.3g nodes%s",
			 UTS_MAX_EXPECTED, t.type != UTS_GEO && t.q * t.m >= 1 ?
			 " (q*m >= 1: the binomial part never dies out)" : "");
		return -EINVAL;
	}
	return 0;
}

static void *uts_create(const double *p, uint32_t workers, uint64_t seed)
{
	(void)seed;	/* the tree is fixed by its own seed */
	struct uts *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	uts_tree_of(p, &u->tree);
	u->preset = (uint32_t)p[P_PRESET];
	u->cutoff = (uint32_t)p[P_CUTOFF];
	u->workers = workers ? workers : 1;
	u->w = aligned_alloc(CACHE_LINE, u->workers * sizeof *u->w);
	if (!u->w) {
		free(u);
		return NULL;
	}
	memset(u->w, 0, u->workers * sizeof *u->w);
	if (u->preset) {
		u->expect = uts_presets[u->preset].expect;
		u->have_expect = true;
	}
	return u;
}

static void uts_start(void *inst, struct runtime *rt)
{
	struct uts *u = inst;
	u->rt = rt;
	u->parallel_ran = true;
	struct uts_node *root = node_new(rt, NULL, NULL);
	uts_rng_root(root->state, u->tree.seed);
	root->depth = 0;
	rt_spawn_remote(rt, &root->task);
}

/* The sequential baseline: the same tree, searched depth-first. */
static void uts_run_sequential(void *inst)
{
	struct uts *u = inst;
	uint8_t root[UTS_STATE_BYTES];
	memset(&u->seq, 0, sizeof u->seq);
	uts_rng_root(root, u->tree.seed);
	uts_dfs(&u->tree, root, 0, uts_task_depth(u), &u->w[0].stack, &u->seq);
}

/* The last run's figures; spawned counts child tasks (parallel only). */
static void uts_totals(const struct uts *u, struct uts_count *c, uint64_t *spawned)
{
	*spawned = 0;
	if (!u->parallel_ran) {
		*c = u->seq;
		return;
	}
	memset(c, 0, sizeof *c);
	for (uint32_t i = 0; i < u->workers; i++) {
		const struct uts_worker *pw = &u->w[i];
		c->nodes += pw->c.nodes;
		c->leaves += pw->c.leaves;
		c->tasks += pw->c.tasks;
		if (pw->c.depth > c->depth)
			c->depth = pw->c.depth;
		*spawned += pw->spawned;
	}
}

static uint64_t uts_tasks(void *inst)
{
	struct uts_count c;
	uint64_t spawned;
	uts_totals(inst, &c, &spawned);
	return c.tasks;
}

static int uts_verify(void *inst, char *err, size_t len)
{
	struct uts *u = inst;
	struct uts_count c;
	uint64_t spawned;
	const char *what = u->preset ? uts_presets[u->preset].name : "custom tree";

	uts_totals(u, &c, &spawned);
	if (!u->have_expect) {
		/* A custom tree: the sequential search is the reference. */
		uint8_t root[UTS_STATE_BYTES];
		memset(&u->expect, 0, sizeof u->expect);
		uts_rng_root(root, u->tree.seed);
		uts_dfs(&u->tree, root, 0, uts_task_depth(u), &u->w[0].stack, &u->expect);
		u->have_expect = true;
		u->expect_tasks = true;
	}
	if (c.nodes != u->expect.nodes || c.depth != u->expect.depth ||
	    c.leaves != u->expect.leaves) {
		snprintf(err, len, "uts %s: %llu nodes, depth %llu, %llu leaves; expected %llu, "
			 "%llu, %llu", what, (unsigned long long)c.nodes,
			 (unsigned long long)c.depth, (unsigned long long)c.leaves,
			 (unsigned long long)u->expect.nodes, (unsigned long long)u->expect.depth,
			 (unsigned long long)u->expect.leaves);
		return -1;
	}
	if (u->parallel_ran && c.tasks != spawned + 1) {
		snprintf(err, len, "uts %s: %llu tasks polled to completion, %llu created", what,
			 (unsigned long long)c.tasks, (unsigned long long)(spawned + 1));
		return -1;
	}
	if (u->expect_tasks && c.tasks != u->expect.tasks) {
		snprintf(err, len, "uts %s cutoff %u: %llu tasks, expected %llu", what, u->cutoff,
			 (unsigned long long)c.tasks, (unsigned long long)u->expect.tasks);
		return -1;
	}
	if (!u->cutoff && c.tasks != c.nodes) {
		snprintf(err, len, "uts %s: %llu tasks for %llu nodes without a cutoff", what,
			 (unsigned long long)c.tasks, (unsigned long long)c.nodes);
		return -1;
	}
	return 0;
}

static size_t uts_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct uts_count c;
	uint64_t spawned;
	size_t k = 0;
	uts_totals(inst, &c, &spawned);
	if (k < max)
		out[k++] = (struct wl_metric){ "nodes", (double)c.nodes };
	if (k < max)
		out[k++] = (struct wl_metric){ "depth", (double)c.depth };
	if (k < max)
		out[k++] = (struct wl_metric){ "leaves", (double)c.leaves };
	return k;
}

static void uts_destroy(void *inst)
{
	struct uts *u = inst;
	for (uint32_t i = 0; i < u->workers; i++)
		free(u->w[i].stack.f);
	free(u->w);
	free(u);
}

static const char *const uts_quick[] = { "preset=2", NULL };

const struct workload workload_uts = {
	.name = "uts",
	.summary = "Unbalanced Tree Search (SHA-1 splittable RNG), every tree node a task",
	.params = uts_params,
	.nparams = P_COUNT,
	.param_names = uts_names,
	.sample_period = 64,
	.quick_params = uts_quick,
	.work_per_spawn = true,	/* a SHA-1 per child, in the parent's poll (uts_rng_child) */
	.resolve = uts_resolve,
	.check = uts_check,
	.create = uts_create,
	.start = uts_start,
	.run_sequential = uts_run_sequential,
	.verify = uts_verify,
	.tasks = uts_tasks,
	.metrics = uts_metrics,
	.destroy = uts_destroy,
};
