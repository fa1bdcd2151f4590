/*
 * sort.c - parallel merge sort of n random 64-bit keys, continuation-passing
 * fork-join with a parallel merge (the Cilk "cilksort" structure).
 *
 * Two buffers, a (the keys) and b (scratch). A sort task owns a range
 * [off, off + n) of both and leaves the sorted range in a or in b (`to_b`).
 * Above `cutoff` keys its first poll spawns a sort of each half with the
 * result in the other buffer and returns TASK_JOIN(2); its second poll
 * merges the two sorted halves into the buffer it owes. A merge of more
 * than `merge_cutoff` keys splits: the middle key of the longer run, found
 * by binary search in the shorter, cuts both runs so that the two pieces
 * merge independently into disjoint parts of the output, as two child merge
 * tasks (TASK_JOIN(2)); smaller merges run serially. Each finished task
 * arrives at its parent's join; the root sorts into a and finishes the run.
 * Below `cutoff` a task sorts serially: the same top-down merge sort with
 * the same two buffers, insertion sort under 17 keys.
 *
 * The keys come from splitmix64 over a seed. Verify checks that a is
 * non-decreasing and that it holds the same multiset as the input (the sum
 * and the xor of a mixing hash of every key, taken before and after, are
 * order-independent), and that every task created was polled to
 * completion. The parameter `corrupt` damages the output on purpose, so
 * that tests can see verify catch it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "workloads/workload.h"

enum { P_N, P_CUTOFF, P_MERGE_CUTOFF, P_SEED, P_CORRUPT, P_COUNT };

static const struct knob_def sort_params[P_COUNT] = {
	/* Offsets are 32-bit: 2^31 keys (16 GiB per buffer) at most. */
	[P_N] = { "n", 2000000, 1, 2147483648.0, true, "keys to sort (64-bit, uniformly random)" },
	[P_CUTOFF] = { "cutoff", 4096, 1, 2147483648.0, true,
		       "ranges of at most this many keys are sorted serially in one task" },
	[P_MERGE_CUTOFF] = { "merge_cutoff", 8192, 2, 2147483648.0, true,
			     "merges of at most this many keys run serially in one task" },
	[P_SEED] = { "seed", 0, 0, 1e15, true, "key generator seed (0 = the run's seed)" },
	[P_CORRUPT] = { "corrupt", 0, 0, 2, true,
			"for tests: damage the sorted output so verify must fail (1 = swap two keys, "
			"2 = overwrite a key with its neighbour)" },
};

static const struct knob_enum sort_names[] = {
	{ "corrupt", (const struct knob_name[]){ { "none", 0 }, { "swap", 1 }, { "overwrite", 2 },
						  { NULL, 0 } } },
	{ NULL, NULL },
};

enum { K_SORT, K_MERGE };

struct sort_node {
	struct task task;		/* first; task.cont is the parent */
	/* K_SORT: the range [x, x + nx). K_MERGE: runs [x, x + nx) and
	 * [y, y + ny) of one buffer merge into the other at `out`. */
	uint32_t x, nx, y, ny, out;
	uint8_t kind, phase;
	/* K_SORT: the sorted range goes to b (else a). K_MERGE: the runs are
	 * in b and the output goes to a (else the other way round). */
	uint8_t in_b;
};

_Static_assert(sizeof(struct sort_node) <= TASKPOOL_BLOCK, "a sort task fits one block");

/* Per worker, owner-only while the run goes on. */
struct sort_worker {
	CACHE_ALIGNED uint64_t tasks;	/* polled to completion */
	uint64_t spawned;
};

struct sort {
	uint64_t *a, *b;
	uint32_t n, cutoff, merge_cutoff, corrupt, workers;
	uint64_t sum, xr;		/* checksum of the input */
	uint64_t seq_tasks;
	bool parallel_ran;
	struct sort_worker *w;		/* [workers] */
};

/* ---- serial pieces ---- */

static void merge_serial(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny,
			 uint64_t *out)
{
	while (nx && ny) {
		if (*y < *x) {
			*out++ = *y++;
			ny--;
		} else {
			*out++ = *x++;
			nx--;
		}
	}
	memcpy(out, x, nx * sizeof *x);
	memcpy(out + nx, y, ny * sizeof *y);
}

static void insertion_sort(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t k = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > k; j--)
			v[j] = v[j - 1];
		v[j] = k;
	}
}

/* Sort a[0, n) into b (to_b) or in place, with the other as scratch. */
static void msort_serial(uint64_t *a, uint64_t *b, size_t n, bool to_b)
{
	if (n <= 16) {
		if (to_b) {
			memcpy(b, a, n * sizeof *a);
			insertion_sort(b, n);
		} else {
			insertion_sort(a, n);
		}
		return;
	}
	size_t h = n / 2;
	msort_serial(a, b, h, !to_b);
	msort_serial(a + h, b + h, n - h, !to_b);
	if (to_b)
		merge_serial(a, h, a + h, n - h, b);
	else
		merge_serial(b, h, b + h, n - h, a);
}

/* First index of v[0, n) holding a key >= k. */
static uint32_t lower_bound(const uint64_t *v, uint32_t n, uint64_t k)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How a merge too large to run serially splits: piece 0 is
 * [x, x + mx) with [y, y + my) at out, piece 1 the rest. */
struct split {
	uint32_t x[2], nx[2], y[2], ny[2], out[2];
};

static void merge_split(const uint64_t *src, uint32_t x, uint32_t nx, uint32_t y, uint32_t ny,
			uint32_t out, struct split *sp)
{
	if (nx < ny) {
		uint32_t t = x;
		x = y;
		y = t;
		t = nx;
		nx = ny;
		ny = t;
	}
	/* nx + ny > merge_cutoff >= 2 and nx >= ny give nx >= 2, so both
	 * pieces are non-empty and smaller than the whole. */
	uint32_t mx = nx / 2;
	uint32_t my = lower_bound(src + y, ny, src[x + mx]);
	*sp = (struct split){
		.x = { x, x + mx }, .nx = { mx, nx - mx },
		.y = { y, y + my }, .ny = { my, ny - my },
		.out = { out, out + mx + my },
	};
}

/* ---- tasks ---- */

static const struct task_vtable sort_vt;

static struct sort_node *node_new(struct runtime *rt, struct worker *w, struct sort_node *parent,
				  uint8_t kind, uint8_t in_b)
{
	struct sort_node *c = rt_task_alloc(rt, w, sizeof *c);
	task_init(&c->task, &sort_vt);
	c->task.cont = parent ? &parent->task : NULL;
	c->kind = kind;
	c->phase = 0;
	c->in_b = in_b;
	return c;
}

/*
 * Merge runs of buffer b (src_b) or a into the other buffer: serially, or
 * as two child merge tasks of `self`. Returns the children spawned (0 or 2).
 */
static uint32_t merge_step(struct worker *w, struct sort *s, struct sort_node *self, bool src_b,
			   uint32_t x, uint32_t nx, uint32_t y, uint32_t ny, uint32_t out)
{
	const uint64_t *src = src_b ? s->b : s->a;
	uint64_t *dst = src_b ? s->a : s->b;
	if ((uint64_t)nx + ny <= s->merge_cutoff) {
		merge_serial(src + x, nx, src + y, ny, dst + out);
		return 0;
	}
	struct split sp;
	merge_split(src, x, nx, y, ny, out, &sp);
	for (int i = 1; i >= 0; i--) {
		struct sort_node *c = node_new(w->rt, w, self, K_MERGE, src_b);
		c->x = sp.x[i];
		c->nx = sp.nx[i];
		c->y = sp.y[i];
		c->ny = sp.ny[i];
		c->out = sp.out[i];
		rt_spawn(w, &c->task);
	}
	s->w[w->index].spawned += 2;
	return 2;
}

static void corrupt_output(struct sort *s);

static enum task_poll sort_poll(struct task *t, struct worker *w)
{
	struct sort_node *nd = (struct sort_node *)t;
	struct sort *s = w->rt->user;

	if (nd->phase == 0) {
		s->w[w->index].tasks++;
		if (nd->kind == K_MERGE) {
			if (merge_step(w, s, nd, nd->in_b, nd->x, nd->nx, nd->y, nd->ny, nd->out)) {
				nd->phase = 2;
				return TASK_JOIN(2);
			}
		} else if (nd->nx <= s->cutoff) {
			msort_serial(s->a + nd->x, s->b + nd->x, nd->nx, nd->in_b);
		} else {
			/* Each half sorted into the other buffer, then merged
			 * back into the one this task owes. */
			uint32_t h = nd->nx / 2;
			for (int i = 1; i >= 0; i--) {
				struct sort_node *c = node_new(w->rt, w, nd, K_SORT, !nd->in_b);
				c->x = i ? nd->x + h : nd->x;
				c->nx = i ? nd->nx - h : h;
				rt_spawn(w, &c->task);
			}
			s->w[w->index].spawned += 2;
			nd->phase = 1;
			return TASK_JOIN(2);
		}
	} else if (nd->phase == 1) {
		/* A sort whose halves are done (the join's acquire shows their
		 * keys): merge them, here or in child tasks. */
		uint32_t h = nd->nx / 2;
		if (merge_step(w, s, nd, !nd->in_b, nd->x, h, nd->x + h, nd->nx - h, nd->x)) {
			nd->phase = 2;
			return TASK_JOIN(2);
		}
	}

	if (!nd->task.cont) {
		corrupt_output(s);
		rt_finish(w->rt, w);
		return TASK_DONE;
	}
	rt_join_arrive(w->rt, w, nd->task.cont);
	return TASK_DONE;
}

static void sort_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct sort_node));
}

static const struct task_vtable sort_vt = {
	.name = "sort",
	.poll = sort_poll,
	.drop = sort_drop,
};

/* ---- the same computation as plain calls ---- */

static void merge_body(struct sort *s, bool src_b, uint32_t x, uint32_t nx, uint32_t y,
		       uint32_t ny, uint32_t out, uint64_t *tasks);

static void merge_rec(struct sort *s, bool src_b, uint32_t x, uint32_t nx, uint32_t y,
		      uint32_t ny, uint32_t out, uint64_t *tasks)
{
	++*tasks;
	merge_body(s, src_b, x, nx, y, ny, out, tasks);
}

static void merge_body(struct sort *s, bool src_b, uint32_t x, uint32_t nx, uint32_t y,
		       uint32_t ny, uint32_t out, uint64_t *tasks)
{
	const uint64_t *src = src_b ? s->b : s->a;
	if ((uint64_t)nx + ny <= s->merge_cutoff) {
		merge_serial(src + x, nx, src + y, ny, (src_b ? s->a : s->b) + out);
		return;
	}
	struct split sp;
	merge_split(src, x, nx, y, ny, out, &sp);
	for (int i = 1; i >= 0; i--)
		merge_rec(s, src_b, sp.x[i], sp.nx[i], sp.y[i], sp.ny[i], sp.out[i], tasks);
}

static void sort_rec(struct sort *s, uint32_t x, uint32_t n, bool to_b, uint64_t *tasks)
{
	++*tasks;
	if (n <= s->cutoff) {
		msort_serial(s->a + x, s->b + x, n, to_b);
		return;
	}
	uint32_t h = n / 2;
	sort_rec(s, x + h, n - h, !to_b, tasks);
	sort_rec(s, x, h, !to_b, tasks);
	merge_body(s, !to_b, x, h, x + h, n - h, x, tasks);
}

/* ---- the workload ---- */

/* Order-independent fingerprint of a multiset of keys. */
static void checksum(const uint64_t *v, size_t n, uint64_t *sum, uint64_t *xr)
{
	uint64_t s = 0, x = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = rng_mix64(v[i]);
		s += h;
		x ^= rng_mix64(h);
	}
	*sum = s;
	*xr = x;
}

static void corrupt_output(struct sort *s)
{
	if (!s->corrupt || s->n < 2)
		return;
	uint32_t i = s->n / 2 - 1;
	/* Distinct neighbours, so that either damage changes something. */
	while (i + 2 < s->n && s->a[i] == s->a[i + 1])
		i++;
	if (s->corrupt == 1) {
		uint64_t t = s->a[i];
		s->a[i] = s->a[i + 1];
		s->a[i + 1] = t;
	} else {
		s->a[i] = s->a[i + 1];
	}
}

static void sort_free(struct sort *s)
{
	free(s->a);
	free(s->b);
	free(s->w);
	free(s);
}

static void *sort_create(const double *p, uint32_t workers, uint64_t seed)
{
	struct sort *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->n = (uint32_t)p[P_N];
	s->cutoff = (uint32_t)p[P_CUTOFF];
	s->merge_cutoff = (uint32_t)p[P_MERGE_CUTOFF];
	s->corrupt = (uint32_t)p[P_CORRUPT];
	s->workers = workers ? workers : 1;
	size_t bytes = ((size_t)s->n * sizeof(uint64_t) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	s->a = aligned_alloc(CACHE_LINE, bytes);
	s->b = aligned_alloc(CACHE_LINE, bytes);
	s->w = aligned_alloc(CACHE_LINE, s->workers * sizeof *s->w);
	if (!s->a || !s->b || !s->w) {
		sort_free(s);
		return NULL;
	}
	memset(s->w, 0, s->workers * sizeof *s->w);
	/* Untimed: the keys, and scratch pages touched once so that no run
	 * pays for first-touch faults. */
	uint64_t base = rng_mix64(p[P_SEED] != 0 ? (uint64_t)p[P_SEED] : seed);
	for (uint32_t i = 0; i < s->n; i++)
		s->a[i] = rng_mix64(base + i);
	memset(s->b, 0, bytes);
	checksum(s->a, s->n, &s->sum, &s->xr);
	return s;
}

static void sort_start(void *inst, struct runtime *rt)
{
	struct sort *s = inst;
	s->parallel_ran = true;
	struct sort_node *root = node_new(rt, NULL, NULL, K_SORT, 0);
	root->x = 0;
	root->nx = s->n;
	rt_spawn_remote(rt, &root->task);
}

static void sort_run_sequential(void *inst)
{
	struct sort *s = inst;
	s->seq_tasks = 0;
	sort_rec(s, 0, s->n, false, &s->seq_tasks);
	corrupt_output(s);
}

static void sort_totals(const struct sort *s, uint64_t *tasks, uint64_t *created)
{
	if (!s->parallel_ran) {
		*tasks = *created = s->seq_tasks;
		return;
	}
	*tasks = 0;
	*created = 1;	/* the root */
	for (uint32_t i = 0; i < s->workers; i++) {
		*tasks += s->w[i].tasks;
		*created += s->w[i].spawned;
	}
}

static uint64_t sort_tasks(void *inst)
{
	uint64_t tasks, created;
	sort_totals(inst, &tasks, &created);
	return tasks;
}

static int sort_verify(void *inst, char *err, size_t len)
{
	struct sort *s = inst;
	for (uint32_t i = 1; i < s->n; i++)
		if (s->a[i - 1] > s->a[i]) {
			snprintf(err, len, "sort: keys %u and %u out of order (%#llx > %#llx)", i - 1,
				 i, (unsigned long long)s->a[i - 1], (unsigned long long)s->a[i]);
			return -1;
		}
	uint64_t sum, xr;
	checksum(s->a, s->n, &sum, &xr);
	if (sum != s->sum || xr != s->xr) {
		snprintf(err, len, "sort: the output is sorted but not a permutation of the input "
			 "(checksum %#llx/%#llx, input %#llx/%#llx)", (unsigned long long)sum,
			 (unsigned long long)xr, (unsigned long long)s->sum,
			 (unsigned long long)s->xr);
		return -1;
	}
	uint64_t tasks, created;
	sort_totals(s, &tasks, &created);
	if (tasks != created) {
		snprintf(err, len, "sort: %llu tasks polled to completion, %llu created",
			 (unsigned long long)tasks, (unsigned long long)created);
		return -1;
	}
	return 0;
}

static size_t sort_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct sort *s = inst;
	size_t k = 0;
	if (k < max)
		out[k++] = (struct wl_metric){ "keys", (double)s->n };
	if (k < max)
		out[k++] = (struct wl_metric){ "tasks", (double)sort_tasks(s) };
	return k;
}

static void sort_destroy(void *inst)
{
	sort_free(inst);
}

static const char *const sort_quick[] = { "n=100000", "cutoff=1024", "merge_cutoff=2048", NULL };

const struct workload workload_sort = {
	.name = "sort",
	.summary = "parallel merge sort of random 64-bit keys with parallel merges (fork-join)",
	.params = sort_params,
	.nparams = P_COUNT,
	.param_names = sort_names,
	.sample_period = 16,
	.quick_params = sort_quick,
	.create = sort_create,
	.start = sort_start,
	.run_sequential = sort_run_sequential,
	.verify = sort_verify,
	.tasks = sort_tasks,
	.metrics = sort_metrics,
	.destroy = sort_destroy,
};
