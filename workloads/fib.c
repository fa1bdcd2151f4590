/*
 * fib.c - continuation-passing fork-join Fibonacci.
 *
 * Every node of fib(n) is a task. Its first poll spawns both children and
 * returns TASK_JOIN(2); each child, when done, writes its result into the
 * parent's slot and arrives at the parent's join (core/task.h); the last
 * arrival re-schedules the parent, whose second poll adds the two results
 * and completes. Below `cutoff` a node computes serially in its
 * first poll. Each child also hands up the number of task nodes under it,
 * so the root knows the size of the tree it ran; the run verifies both the
 * value and that count (2 fib(n+1) - 1 without a cutoff), so a lost or
 * doubled task fails it.
 *
 * A node is as small as a hand-written continuation: everything its polls
 * read is in the node (the cutoff travels down with n), and a leaf or a
 * second poll touches only its node and its parent's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

enum { P_N, P_CUTOFF, P_COUNT };

static const struct knob_def fib_params[P_COUNT] = {
	[P_N] = { "n", 30, 0, 60, true, "compute fib(n); every node of the call tree is a task" },
	[P_CUTOFF] = { "cutoff", 0, 0, 60, true,
		       "nodes with n below this recurse serially inside one task (0 = none)" },
};

struct fib_node {
	struct task task;		/* first; task.cont is the parent */
	uint64_t result[2];		/* written by the children */
	uint32_t nodes[2];		/* task nodes under each child, likewise */
	uint32_t shape;			/* n, height and slot (shape_of) */
};

/*
 * A node's shape in one word: n (bits 0-7), its height n - leaf_below
 * (leaf_below = max(2, cutoff): a node with n below it is a leaf) plus 128
 * (bits 8-15, so that bit 15 is set exactly when the node forks), and the
 * slot of the parent's result it fills (bit 16). n <= 60, so both fit a
 * byte. A fork's children are n - 2 and n - 1 at heights 2 and 1 lower: a
 * child's word is one subtraction from its parent's (a fork's height is at
 * least 0, so the height byte does not borrow).
 */
#define SHAPE_FORKS 0x8000u
#define SHAPE_SLOT_SHIFT 16
#define SHAPE_CHILD(d) ((d) | (d) << 8)	/* n and height both d lower */

static inline uint32_t shape_of(uint32_t n, uint32_t leaf_below, uint32_t slot)
{
	return n | (n + 128 - leaf_below) << 8 | slot << SHAPE_SLOT_SHIFT;
}

static inline uint32_t shape_n(uint32_t shape)
{
	return shape & 0xff;
}

struct fib {
	uint32_t n, cutoff;
	uint64_t expect_value, expect_nodes;
	uint64_t value;
	uint64_t nodes;			/* task nodes the last run counted */
};

static uint64_t fib_serial(uint32_t n)
{
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

/*
 * A node's poll is chosen when the node is made, as a hand-written
 * continuation would be: a node that forks starts with fib_fork_vt and
 * switches to fib_join_vt for its second poll; a leaf (n < 2, or below
 * the cutoff) has fib_leaf_vt. No poll tests which kind of node or which
 * poll it is.
 */
static const struct task_vtable fib_fork_vt, fib_join_vt, fib_leaf_vt;

_Static_assert(sizeof(struct fib_node) <= TASKPOOL_BLOCK, "a fib node fits one block");

static inline void node_init(struct fib_node *c, uint32_t shape, struct fib_node *parent)
{
	task_init(&c->task, shape & SHAPE_FORKS ? &fib_fork_vt : &fib_leaf_vt);
	c->task.cont = parent ? &parent->task : NULL;
	c->shape = shape;
}

/* The root is done: the answer and the node count. */
static __attribute__((noinline)) enum task_poll fib_root_done(struct worker *w, uint64_t value,
							       uint64_t nodes)
{
	struct fib *f = w->rt->user;
	f->value = value;
	f->nodes = nodes;
	rt_finish(w->rt, w);
	return TASK_DONE;
}

/* A node is done: hand its value and count to the parent, whose join it
 * completes (the root ends the run instead). */
static inline enum task_poll fib_done(struct fib_node *node, struct worker *w, uint64_t value,
				      uint32_t nodes)
{
	struct fib_node *parent = (struct fib_node *)node->task.cont;
	if (__builtin_expect(!parent, 0))
		return fib_root_done(w, value, nodes);
	/* The arrival's release carries these writes to the parent's next poll. */
	uint32_t slot = node->shape >> SHAPE_SLOT_SHIFT;
	parent->result[slot] = value;
	parent->nodes[slot] = nodes;
	return rt_join_arrive_done(w, &parent->task);
}

/* The first poll of a node at or above the cutoff: both children, then
 * the join; the second poll is fib_join_poll. */
static enum task_poll fib_fork_poll(struct task *t, struct worker *w)
{
	struct fib_node *node = (struct fib_node *)t;
	struct runtime *rt = w->rt;
	/* The blocks first: only w and node live across a pool refill. */
	struct fib_node *a = rt_task_alloc(rt, w, sizeof *a), *b = rt_task_alloc(rt, w, sizeof *b);
	uint32_t shape = node->shape & ~(1u << SHAPE_SLOT_SHIFT);
	node->task.vt = &fib_join_vt;
	node_init(a, shape - SHAPE_CHILD(2) + (1u << SHAPE_SLOT_SHIFT), node);
	node_init(b, shape - SHAPE_CHILD(1), node);
	rt_spawn2(w, &a->task, &b->task);
	return TASK_JOIN(2);
}

/* The second poll: both children have arrived. */
static enum task_poll fib_join_poll(struct task *t, struct worker *w)
{
	struct fib_node *node = (struct fib_node *)t;
	return fib_done(node, w, node->result[0] + node->result[1],
			1 + node->nodes[0] + node->nodes[1]);
}

/* A node below the cutoff: the subtree in plain calls, in one poll. */
static __attribute__((noinline)) enum task_poll fib_serial_node(struct fib_node *node,
								 struct worker *w)
{
	return fib_done(node, w, fib_serial(shape_n(node->shape)), 1);
}

/* A leaf: n < 2, or a node below the cutoff (fib_serial_node). */
static enum task_poll fib_leaf_poll(struct task *t, struct worker *w)
{
	struct fib_node *node = (struct fib_node *)t;
	uint32_t n = shape_n(node->shape);
	if (__builtin_expect(n >= 2, 0))
		return fib_serial_node(node, w);
	return fib_done(node, w, n, 1);
}

/* Three polls, one workload: each a TASKPOOL_BLOCK block, freed by the core. */
static const struct task_vtable fib_fork_vt = { .name = "fib", .poll = fib_fork_poll, .pooled = true };
static const struct task_vtable fib_join_vt = { .name = "fib", .poll = fib_join_poll, .pooled = true };
static const struct task_vtable fib_leaf_vt = { .name = "fib", .poll = fib_leaf_poll, .pooled = true };

/* Task nodes of fib(n) with the given cutoff. */
static uint64_t count_nodes(uint32_t n, uint32_t cutoff)
{
	uint64_t c[64];
	for (uint32_t i = 0; i <= n; i++)
		c[i] = (i < 2 || i < cutoff) ? 1 : 1 + c[i - 1] + c[i - 2];
	return c[n];
}

static uint64_t fib_iter(uint32_t n)
{
	uint64_t a = 0, b = 1;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s = a + b;
		a = b;
		b = s;
	}
	return a;
}

static int fib_check(const double *p, char *err, size_t len)
{
	if (p[P_N] > 45 && p[P_CUTOFF] < p[P_N] - 40) {
		snprintf(err, len, "fib: n=%g makes %.3g tasks; use cutoff >= %g", p[P_N],
			 (double)count_nodes((uint32_t)p[P_N], (uint32_t)p[P_CUTOFF]), p[P_N] - 40);
		return -EINVAL;
	}
	/* Implied by the limits above; the nodes travel up as 32-bit counts. */
	if (count_nodes((uint32_t)p[P_N], (uint32_t)p[P_CUTOFF]) > UINT32_MAX) {
		snprintf(err, len, "fib: n=%g cutoff=%g makes more than 2^32 tasks", p[P_N],
			 p[P_CUTOFF]);
		return -EINVAL;
	}
	return 0;
}

static void *fib_create(const double *p, uint32_t workers, uint64_t seed)
{
	struct fib *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->n = (uint32_t)p[P_N];
	f->cutoff = (uint32_t)p[P_CUTOFF];
	f->expect_value = fib_iter(f->n);
	f->expect_nodes = count_nodes(f->n, f->cutoff);
	return f;
}

static void fib_start(void *inst, struct runtime *rt)
{
	struct fib *f = inst;
	f->nodes = 0;
	struct fib_node *root = rt_task_alloc(rt, NULL, sizeof *root);
	node_init(root, shape_of(f->n, f->cutoff > 2 ? f->cutoff : 2, 0), NULL);
	rt_spawn_remote(rt, &root->task);
}

/*
 * The sequential baseline: plain recursion visiting the same nodes the
 * tasks visit, so its time per node is the denominator of the overhead.
 * Counting the nodes keeps every node a real call (without it the compiler
 * turns one of the two recursive calls into a loop and the baseline stops
 * being "the same computation"), and verify checks the count.
 */
static uint64_t fib_rec(uint32_t n, uint32_t cutoff, uint64_t *nodes)
{
	++*nodes;
	if (n < 2)
		return n;
	if (n < cutoff)
		return fib_serial(n);
	return fib_rec(n - 1, cutoff, nodes) + fib_rec(n - 2, cutoff, nodes);
}

static void fib_run_sequential(void *inst)
{
	struct fib *f = inst;
	f->nodes = 0;
	f->value = fib_rec(f->n, f->cutoff, &f->nodes);
}

/* Task nodes of the last run: counted by the tree itself (parallel) or by
 * the recursion (sequential). */
static uint64_t fib_tasks(void *inst)
{
	struct fib *f = inst;
	return f->nodes;
}

static int fib_verify(void *inst, char *err, size_t len)
{
	struct fib *f = inst;
	if (f->value != f->expect_value) {
		snprintf(err, len, "fib(%u) = %llu, expected %llu", f->n,
			 (unsigned long long)f->value, (unsigned long long)f->expect_value);
		return -1;
	}
	uint64_t nodes = fib_tasks(f);
	if (nodes != f->expect_nodes) {
		snprintf(err, len, "fib(%u) cutoff %u counted %llu task nodes, expected %llu", f->n,
			 f->cutoff, (unsigned long long)nodes, (unsigned long long)f->expect_nodes);
		return -1;
	}
	return 0;
}

static size_t fib_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct fib *f = inst;
	size_t k = 0;
	if (k < max)
		out[k++] = (struct wl_metric){ "value", (double)f->value };
	if (k < max)
		out[k++] = (struct wl_metric){ "nodes", (double)fib_tasks(f) };
	return k;
}

static void fib_destroy(void *inst)
{
	free(inst);
}

static const char *const fib_quick[] = { "n=20", NULL };

const struct workload workload_fib = {
	.name = "fib",
	.summary = "fork-join Fibonacci, every call-tree node a task (continuation passing)",
	.params = fib_params,
	.nparams = P_COUNT,
	.sample_period = 64,
	.quick_params = fib_quick,
	.check = fib_check,
	.create = fib_create,
	.start = fib_start,
	.run_sequential = fib_run_sequential,
	.verify = fib_verify,
	.tasks = fib_tasks,
	.metrics = fib_metrics,
	.destroy = fib_destroy,
};
