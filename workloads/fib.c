/*
 * fib.c - continuation-passing fork-join Fibonacci.
 *
 * Every node of fib(n) is a task. Its first poll spawns both children and
 * returns TASK_JOIN(2); each child, when done, writes its result into the
 * parent's slot and arrives at the parent's join (core/task.h); the last
 * arrival re-schedules the parent, whose second poll adds the two results
 * and completes. Below `cutoff` a node computes serially in its
 * first poll. The run verifies both the value and the number of task nodes
 * (2 fib(n+1) - 1 without a cutoff), so a lost or doubled task fails it.
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
	uint8_t n, slot, spawned;
};

struct counter {
	CACHE_ALIGNED uint64_t v;
};

struct fib {
	uint32_t n, cutoff, workers;
	uint64_t expect_value, expect_nodes;
	uint64_t value;
	uint64_t seq_nodes;		/* nodes of the last sequential run, 0 if none */
	bool parallel_ran;
	struct counter *nodes;		/* [workers]: nodes polled, per worker */
	struct runtime *rt;
};

static uint64_t fib_serial(uint32_t n)
{
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static const struct task_vtable fib_vt;

_Static_assert(sizeof(struct fib_node) <= TASKPOOL_BLOCK, "a fib node fits one block");

static struct fib_node *node_new(struct runtime *rt, struct worker *w, uint32_t n,
				 struct fib_node *parent, uint8_t slot)
{
	struct fib_node *c = rt_task_alloc(rt, w, sizeof *c);
	task_init(&c->task, &fib_vt);
	c->task.cont = parent ? &parent->task : NULL;
	c->n = (uint8_t)n;
	c->slot = slot;
	c->spawned = 0;
	return c;
}

static enum task_poll fib_poll(struct task *t, struct worker *w)
{
	struct fib_node *node = (struct fib_node *)t;
	struct fib *f = w->rt->user;
	uint64_t value;

	if (!node->spawned) {
		f->nodes[w->index].v++;
		if (node->n < 2) {
			value = node->n;
		} else if (node->n < f->cutoff) {
			value = fib_serial(node->n);
		} else {
			node->spawned = 1;
			rt_spawn(w, &node_new(w->rt, w, node->n - 2, node, 1)->task);
			rt_spawn(w, &node_new(w->rt, w, node->n - 1, node, 0)->task);
			return TASK_JOIN(2);
		}
	} else {
		value = node->result[0] + node->result[1];
	}

	struct fib_node *parent = (struct fib_node *)node->task.cont;
	if (!parent) {
		f->value = value;
		rt_finish(w->rt, w);
		return TASK_DONE;
	}
	/* The arrival's release carries this write to the parent's next poll. */
	parent->result[node->slot] = value;
	rt_join_arrive(w->rt, w, &parent->task);
	return TASK_DONE;
}

static void fib_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct fib_node));
}

static const struct task_vtable fib_vt = {
	.name = "fib",
	.poll = fib_poll,
	.drop = fib_drop,
};

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
	return 0;
}

static void *fib_create(const double *p, uint32_t workers, uint64_t seed)
{
	struct fib *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->n = (uint32_t)p[P_N];
	f->cutoff = (uint32_t)p[P_CUTOFF];
	f->workers = workers;
	f->expect_value = fib_iter(f->n);
	f->expect_nodes = count_nodes(f->n, f->cutoff);
	f->nodes = aligned_alloc(CACHE_LINE, (workers ? workers : 1) * sizeof *f->nodes);
	if (!f->nodes) {
		free(f);
		return NULL;
	}
	memset(f->nodes, 0, (workers ? workers : 1) * sizeof *f->nodes);
	return f;
}

static void fib_start(void *inst, struct runtime *rt)
{
	struct fib *f = inst;
	f->rt = rt;
	f->parallel_ran = true;
	rt_spawn_remote(rt, &node_new(rt, NULL, f->n, NULL, 0)->task);
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
	f->seq_nodes = 0;
	f->value = fib_rec(f->n, f->cutoff, &f->seq_nodes);
}

static uint64_t fib_tasks(void *inst)
{
	struct fib *f = inst;
	if (!f->parallel_ran)
		return f->seq_nodes;
	uint64_t total = 0;
	for (uint32_t i = 0; i < f->workers; i++)
		total += f->nodes[i].v;
	return total;
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
		snprintf(err, len, "fib(%u) cutoff %u polled %llu task nodes, expected %llu", f->n,
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
	struct fib *f = inst;
	free(f->nodes);
	free(f);
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
