/*
 * test_policy_static.c - the static-partition policy: fib correct on 1, 2,
 * 3 and 8 workers without a single steal attempt, all of it on the worker
 * the root was dealt to; round-robin dealing as even as possible and in
 * order; random dealing uniform and serially independent (chi-square, fixed
 * seed); whole subtrees polled on the worker their root was dealt to; a
 * full ring that overflows into its own worker's inbox; a remote push to a
 * parked worker that wakes exactly that worker.
 */
#include <math.h>
#include <sched.h>
#include <time.h>

#include "run_util.h"

static const struct policy *sp(void)
{
	const struct policy *p = policy_find("static-partition");
	ASSERT(p);
	return p;
}

/* ---- fib ---- */

struct per_worker {
	uint32_t n;
	uint64_t polls[8];
	uint64_t steal_attempts[8];
};

static void inspect_workers(struct runtime *rt, void *arg)
{
	struct per_worker *pw = arg;
	pw->n = rt->nworkers;
	for (uint32_t i = 0; i < rt->nworkers && i < 8; i++) {
		pw->polls[i] = rt->workers[i].st.polls;
		pw->steal_attempts[i] = rt->workers[i].st.steal_attempts;
	}
}

static void fib25_on(uint32_t workers, const char *order)
{
	const char *knobs[] = { order, NULL };
	static const char *const params[] = { "n=25", NULL };
	struct run_result r;
	struct per_worker pw;
	run_workload_inspect("static-partition", "fib", workers, knobs, params, 1, &r,
			     inspect_workers, &pw);
	if (r.verify_rc != 0)
		TEST_FAIL("%u workers, %s: %s", workers, order, r.err);
	ASSERT_U64_EQ(r.tasks, 242785);
	ASSERT_U64_EQ(r.total.completions, 242785);
	ASSERT_U64_EQ(r.total.steal_attempts, 0);
	ASSERT_U64_EQ(r.total.steals, 0);
	ASSERT_U64_EQ(r.total.tasks_stolen, 0);
	/* Internal nodes polled twice, leaves once (a join completed during
	 * the parent's poll is that same second poll). */
	ASSERT_U64_EQ(r.total.polls, 242785 + (242785 - 1) / 2);
	/* The root was the first remote task, dealt to worker 0; nothing of
	 * its tree ever left it. */
	ASSERT_U64_EQ(pw.polls[0], r.total.polls);
	/* Exactly the root came from the inbox; the FIFO ring overflows into
	 * the same worker's inbox, the LIFO stack never does. */
	if (strcmp(order, "order=1") == 0) {
		ASSERT_U64_EQ(r.total.global_tasks, 1);
		ASSERT_U64_EQ(r.total.overflows, 0);
	} else {
		ASSERT_U64_EQ(r.total.global_tasks, 1 + r.total.overflow_tasks);
	}
	ASSERT_U64_EQ(r.total.local_pops + r.total.global_batches, r.total.polls);
}

static void fib25_all(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 8 };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		fib25_on(counts[i], "order=0");
		fib25_on(counts[i], "order=1");
	}
}

/* ---- hand-driven dealing ---- */

static struct runtime *hand_runtime(uint32_t workers, uint64_t seed, const char *const *knobs,
				    struct engine **e)
{
	return hand_runtime_for(sp(), workers, seed, 20000000000ull, knobs, e);
}

static void hand_destroy(struct runtime *rt, struct engine *e)
{
	rt_destroy(rt);
	e->ops->destroy(e);
}

/*
 * Deal n dummy tasks remotely, then drain every worker by hand (the test
 * thread as each owner in turn): dealt[k] is the worker task k landed on.
 * Checks that each worker finds its tasks in the order they were dealt
 * (the runtimes below set inbox_interval=0: a forced inbox check would
 * rightly take a newer inbox task ahead of older ones already moved into
 * the ring).
 */
static void deal_and_drain(struct runtime *rt, uint32_t n, uint32_t *dealt)
{
	struct task *t = calloc(n, sizeof *t);
	ASSERT(t);
	for (uint32_t k = 0; k < n; k++) {
		task_init(&t[k], &dummy_vt);
		dealt[k] = UINT32_MAX;
		rt_spawn_remote(rt, &t[k]);
	}
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct task *x;
		long last = -1;
		rt->policy->tick_begin(&rt->workers[i]);
		while ((x = rt->policy->find_work(&rt->workers[i]))) {
			long k = x - t;
			ASSERT(k >= 0 && k < (long)n);
			ASSERT_EQ(dealt[k], UINT32_MAX);	/* found once */
			ASSERT(k > last);			/* in dealing order */
			last = k;
			dealt[k] = i;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		ASSERT(dealt[k] != UINT32_MAX);
	free(t);
}

/* Round-robin: task k to worker k mod n, so counts differ by at most one
 * and the first n % k workers hold the extra ones. */
static void round_robin_even(void)
{
	static const uint32_t workers[] = { 1, 3, 4, 7 };
	static const uint32_t tasks[] = { 10, 1000, 7, 3 };
	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 4; b++) {
			uint32_t k = workers[a], n = tasks[b];
			struct engine *e;
			static const char *const knobs[] = { "inbox_interval=0", NULL };
			struct runtime *rt = hand_runtime(k, 1, knobs, &e);
			uint32_t *dealt = calloc(n, sizeof *dealt);
			deal_and_drain(rt, n, dealt);
			uint32_t count[8] = { 0 };
			for (uint32_t j = 0; j < n; j++) {
				ASSERT_EQ(dealt[j], j % k);
				count[dealt[j]]++;
			}
			for (uint32_t i = 0; i < k; i++)
				ASSERT_EQ(count[i], n / k + (i < n % k));
			ASSERT_U64_EQ(rt->workers[0].st.steal_attempts, 0);
			free(dealt);
			hand_destroy(rt, e);
		}
}

/*
 * Random routing: 8 workers, 80,000 remote spawns, seed fixed (so this is
 * deterministic). Uniform: chi-square of the counts (7 degrees of freedom)
 * below 24.32 (p = 0.001) and above 1.24 (p = 0.01 from below: round-robin
 * would give exactly 0). Independent: chi-square of consecutive pairs (64
 * cells, 63 degrees of freedom) below 103.4 (p = 0.001). The same seed
 * deals the same way twice; another seed deals differently.
 */
static void random_uniform(void)
{
	static const char *const knobs[] = { "routing=1", "inbox_interval=0", NULL };
	const uint32_t k = 8, n = 80000;
	uint32_t *dealt = calloc(n, sizeof *dealt), *again = calloc(n, sizeof *again);
	ASSERT(dealt && again);
	struct engine *e;
	struct runtime *rt = hand_runtime(k, 42, knobs, &e);
	deal_and_drain(rt, n, dealt);
	hand_destroy(rt, e);

	double count[8] = { 0 }, pair[8][8] = { { 0 } };
	for (uint32_t j = 0; j < n; j++) {
		count[dealt[j]]++;
		if (j)
			pair[dealt[j - 1]][dealt[j]]++;
	}
	double chi = 0, chi_pairs = 0, want = (double)n / k, want_pair = (double)(n - 1) / (k * k);
	for (uint32_t i = 0; i < k; i++) {
		chi += (count[i] - want) * (count[i] - want) / want;
		for (uint32_t j = 0; j < k; j++)
			chi_pairs += (pair[i][j] - want_pair) * (pair[i][j] - want_pair) / want_pair;
	}
	fprintf(stderr, "    chi-square %.2f (7 dof), pairs %.2f (63 dof)\n", chi, chi_pairs);
	ASSERT(chi < 24.32);
	ASSERT(chi > 1.24);
	ASSERT(chi_pairs < 103.4);

	rt = hand_runtime(k, 42, knobs, &e);
	deal_and_drain(rt, n, again);
	hand_destroy(rt, e);
	ASSERT(memcmp(dealt, again, n * sizeof *dealt) == 0);
	rt = hand_runtime(k, 43, knobs, &e);
	deal_and_drain(rt, n, again);
	hand_destroy(rt, e);
	uint32_t same = 0;
	for (uint32_t j = 0; j < n; j++)
		same += dealt[j] == again[j];
	ASSERT(same < n / 4);	/* about n / 8 by chance */
	free(dealt);
	free(again);
}

/* A full FIFO ring sheds its older half and the new task into the same
 * worker's inbox: the other worker finds nothing, the owner finds all of
 * them, each once. */
static void overflow_stays_home(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(2, 1, NULL, &e);
	const struct policy *p = rt->policy;
	const uint32_t n = 300;
	struct task *t = calloc(n, sizeof *t);
	for (uint32_t k = 0; k < n; k++) {
		task_init(&t[k], &dummy_vt);
		rt_spawn(&rt->workers[0], &t[k]);
	}
	ASSERT_U64_EQ(rt->workers[0].st.overflows, 1);
	ASSERT_U64_EQ(rt->workers[0].st.overflow_tasks, RING_OVERFLOW_BATCH + 1);
	ASSERT_EQ(inject_len(&rt->inject), 0);	/* nothing went global */
	ASSERT(p->find_work(&rt->workers[1]) == NULL);
	uint8_t *seen = calloc(n, 1);
	uint32_t found = 0;
	struct task *x;
	while ((x = p->find_work(&rt->workers[0]))) {
		long k = x - t;
		ASSERT(k >= 0 && k < (long)n && !seen[k]);
		seen[k] = 1;
		found++;
	}
	ASSERT_EQ(found, n);
	ASSERT(p->find_work(&rt->workers[1]) == NULL);
	free(seen);
	free(t);
	hand_destroy(rt, e);
}

/* ---- subtrees stay home: whole runs ---- */

#define ROOTS 24
#define DEPTH 7			/* 2^8 - 1 = 255 nodes per tree */
#define TREE_NODES 255u

struct tree_run {
	_Atomic uint32_t done, mismatches;
	_Atomic uint32_t root_worker[ROOTS];
	_Atomic uint64_t polls_on[8];
};

struct node {
	struct task task;
	struct tree_run *run;
	uint32_t root, depth;
	uint32_t home;		/* the worker its root was first polled on */
};

static const struct task_vtable node_vt;

static struct node *node_new(struct runtime *rt, struct worker *w, struct tree_run *run,
			     uint32_t root, uint32_t depth, uint32_t home)
{
	struct node *x = rt_task_alloc(rt, w, sizeof *x);
	task_init(&x->task, &node_vt);
	x->run = run;
	x->root = root;
	x->depth = depth;
	x->home = home;
	return x;
}

static enum task_poll node_poll(struct task *t, struct worker *w)
{
	struct node *x = (struct node *)t;
	struct tree_run *run = x->run;
	if (x->depth == 0) {
		x->home = w->index;
		atomic_store(&run->root_worker[x->root], w->index);
	}
	if (w->index != x->home)
		atomic_fetch_add(&run->mismatches, 1);
	atomic_fetch_add(&run->polls_on[w->index], 1);
	if (x->depth < DEPTH)
		for (int c = 0; c < 2; c++)
			rt_spawn(w, &node_new(w->rt, w, run, x->root, x->depth + 1, x->home)->task);
	if (atomic_fetch_add(&run->done, 1) + 1 == ROOTS * TREE_NODES)
		rt_finish(w->rt, w);
	return TASK_DONE;
}

static void node_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct node));
}

static const struct task_vtable node_vt = { .name = "tree", .poll = node_poll, .drop = node_drop };

static void start_trees(struct runtime *rt, void *arg)
{
	struct tree_run *run = arg;
	rt->start_ns = rt_now(rt, NULL);
	for (uint32_t r = 0; r < ROOTS; r++)
		rt_spawn_remote(rt, &node_new(rt, NULL, run, r, 0, UINT32_MAX)->task);
}

static void trees_on(uint32_t workers, const char *const *knobs, bool round_robin)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(workers, 5, knobs, &e);
	struct tree_run run;
	memset(&run, 0, sizeof run);
	ASSERT_EQ(e->ops->run(e, rt, start_trees, &run), 0);
	ASSERT_EQ(atomic_load(&run.done), ROOTS * TREE_NODES);
	ASSERT_EQ(atomic_load(&run.mismatches), 0);
	uint32_t roots_on[8] = { 0 };
	for (uint32_t r = 0; r < ROOTS; r++) {
		uint32_t home = atomic_load(&run.root_worker[r]);
		ASSERT(home < workers);
		if (round_robin)
			ASSERT_EQ(home, r % workers);	/* dealt in spawn order */
		roots_on[home]++;
	}
	for (uint32_t i = 0; i < workers; i++) {
		ASSERT_U64_EQ(atomic_load(&run.polls_on[i]), roots_on[i] * TREE_NODES);
		ASSERT_U64_EQ(rt->workers[i].st.polls, roots_on[i] * TREE_NODES);
		ASSERT_U64_EQ(rt->workers[i].st.steal_attempts, 0);
		/* Only the dealt roots and the ring's own overflow came
		 * through the inbox. */
		ASSERT_U64_EQ(rt->workers[i].st.global_tasks,
			      roots_on[i] + rt->workers[i].st.overflow_tasks);
	}
	hand_destroy(rt, e);
}

static void subtrees_stay_home(void)
{
	static const char *const lifo[] = { "order=1", NULL };
	static const char *const random[] = { "routing=1", NULL };
	trees_on(3, NULL, true);	/* 8 roots each */
	trees_on(4, lifo, true);	/* 6 roots each */
	trees_on(5, random, false);
}

/* ---- a remote push wakes exactly the parked worker it was dealt to ---- */

static void remote_push_wakes_its_worker(void)
{
	const uint32_t workers = 3;
	struct engine *e;
	struct runtime *rt = hand_runtime(workers, 3, NULL, &e);
	/* Parks never time out: only the targeted unpark can run the task (a
	 * lost wakeup ends the run through the watchdog: -ETIMEDOUT). The
	 * first remote task is dealt to worker 0. */
	int32_t ran_on;
	uint32_t asleep = spawn_onto_sleepers(e, rt, idle_parked, &ran_on);
	ASSERT_EQ(asleep, workers);
	ASSERT_EQ(ran_on, 0);
	ASSERT_U64_EQ(rt->workers[0].st.unparks_notify, 1);
	for (uint32_t i = 1; i < workers; i++)
		ASSERT_U64_EQ(rt->workers[i].st.unparks_notify, 0);	/* only the stop */
	for (uint32_t i = 0; i < workers; i++)
		ASSERT_U64_EQ(rt->workers[i].st.unparks_timeout, 0);
	hand_destroy(rt, e);
}

/* A parker whose re-check finds a task in its inbox takes its flag back. */
static void parker_rechecks_inbox(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(2, 1, NULL, &e);
	const struct policy *p = rt->policy;
	struct task t;
	task_init(&t, &dummy_vt);
	rt_spawn_remote(rt, &t);		/* worker 0's inbox; nobody sleeps */
	uint64_t timeout = 0;
	ASSERT(p->park(&rt->workers[1], &timeout));	/* worker 1 has nothing */
	ASSERT_U64_EQ(timeout, PARK_FOREVER);
	ASSERT(!p->park(&rt->workers[0], &timeout));	/* worker 0 has t */
	ASSERT_EQ(atomic_load(&rt->idle.num_parked), 1);
	char text[512];
	FILE *f = fmemopen(text, sizeof text, "w");
	ASSERT(f);
	p->dump(rt, f);
	fclose(f);
	ASSERT(strstr(text, "routing round-robin, 1 remote tasks dealt") != NULL);
	ASSERT(strstr(text, "worker 0: inbox 1, awake") != NULL);
	ASSERT(strstr(text, "worker 1: inbox 0, sleeping") != NULL);
	ASSERT(p->find_work(&rt->workers[0]) == &t);
	p->unparked(&rt->workers[1], PARK_TIMEOUT);
	ASSERT_EQ(atomic_load(&rt->idle.num_parked), 0);
	ASSERT_U64_EQ(rt->workers[1].st.unparks_timeout, 1);
	hand_destroy(rt, e);
}

int main(void)
{
	RUN(fib25_all);
	RUN(round_robin_even);
	RUN(random_uniform);
	RUN(overflow_stays_home);
	RUN(subtrees_stay_home);
	RUN(remote_push_wakes_its_worker);
	RUN(parker_rechecks_inbox);
	return 0;
}
