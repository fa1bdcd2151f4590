/*
 * instr_run.c - run workloads under policies one after another in one
 * process, on the threads engine with one worker, for counting the
 * instructions of the worker step under callgrind
 * (scripts/bench_instructions.sh):
 *
 *   valgrind --tool=callgrind --toggle-collect=worker_step \
 *            --zero-before=instr_config_start \
 *            --dump-after=instr_config_done build/tests/instr_run
 *
 * Each configuration runs twice (fixed seed 1, the workload's default
 * scheduling-delay sampling, no watchdog): once unmeasured, then, after
 * instr_config_start(), once measured. It is verified, prints one line
 * "config POLICY WORKLOAD PARAMS tasks N" and then calls
 * instr_config_done(), after which callgrind writes that configuration's
 * counts to a dump file of its own; the dumps come in the order of the
 * lines. Without valgrind it just runs them (a quick check that every
 * configuration verifies).
 *
 *   instr_run [POLICY,...|all] [WORKLOAD:name=v,name=v ...]
 *
 * Defaults: every policy that is not test-only, and fib:n=18,
 * nqueens:n=7 and spawn-many:n=2000.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime.h"
#include "policies/policy.h"
#include "test.h"
#include "workloads/workload.h"

/* Callgrind dumps after each return from here (--dump-after). */
/* Callgrind zeroes its counts on each call of this (--zero-before): what
 * the configuration's unmeasured first run did is not counted. */
__attribute__((noinline)) void instr_config_start(void);
__attribute__((noinline)) void instr_config_start(void)
{
	__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) void instr_config_done(const char *label);
__attribute__((noinline)) void instr_config_done(const char *label)
{
	/* Keeps the call from being folded away. */
	__asm__ volatile("" : : "r"(label) : "memory");
}

static void start_cb(struct runtime *rt, void *arg)
{
}

/* Everything is in place before the worker starts, so that its first tick
 * finds the roots: no idle ticks whose number depends on when the thread
 * got to run, and the counts repeat exactly. */
static void place_cb(struct runtime *rt, void *arg)
{
	const struct workload *wl = arg;
	if (wl->place)
		wl->place(rt->user, rt);
	wl->start(rt->user, rt);
}

/* "n=18,cutoff=0" over the workload's defaults. */
static void parse_params(const struct workload *wl, const char *spec, double *pv)
{
	knob_defaults(wl->params, wl->nparams, pv);
	char buf[256];
	ASSERT(strlen(spec) < sizeof buf);
	strcpy(buf, spec);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			TEST_FAIL("instr_run: %s: expected name=value", tok);
		*eq = '\0';
		int i = knob_find(wl->params, wl->nparams, tok);
		char err[256];
		if (i < 0)
			TEST_FAIL("instr_run: workload %s has no parameter %s", wl->name, tok);
		if (knob_parse(&wl->params[i], eq + 1, &pv[i], err, sizeof err) != 0)
			TEST_FAIL("instr_run: %s", err);
	}
}

/* One run of the configuration; returns the workload's task count. */
static uint64_t run_once(const struct policy *p, const struct workload *wl, const char *params)
{
	double kv[64], pv[64];
	ASSERT(p->nknobs <= 64 && wl->nparams <= 64);
	knob_defaults(p->knobs, p->nknobs, kv);
	parse_params(wl, params, pv);

	struct rt_config cfg = { .workers = 1, .seed = 1, .sample_period = wl->sample_period,
				 .hist_digits = 3, .watchdog_ns = 0 };
	char err[256];
	if (p->check && p->check(&cfg, kv, err, sizeof err) != 0)
		TEST_FAIL("%s: %s", p->name, err);
	struct engine *e = engine_threads_create(1);
	ASSERT(e);
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	rt->user = wl->create(pv, 1, 1);
	ASSERT(rt->user);
	rt->place = place_cb;
	rt->place_arg = (void *)wl;
	ASSERT_EQ(e->ops->run(e, rt, start_cb, (void *)wl), 0);
	if (wl->verify(rt->user, err, sizeof err) != 0)
		TEST_FAIL("%s under %s: %s", wl->name, p->name, err);
	uint64_t tasks = wl->tasks(rt->user);
	wl->destroy(rt->user);
	rt_destroy(rt);
	e->ops->destroy(e);
	return tasks;
}

/*
 * A configuration: one run unmeasured, then the measured one. The first
 * run of a process's configuration pays for what the allocator and the
 * task pool's reserve (core/taskpool.c) hold from the configurations
 * before it, such as a global queue's buffer growing where the last
 * configuration's memory was freed or kept; the second finds them as its
 * first left them, as a harness's measured trials follow its warm-up.
 */
static void run_one(const struct policy *p, const struct workload *wl, const char *params)
{
	uint64_t warm = run_once(p, wl, params);
	instr_config_start();
	uint64_t tasks = run_once(p, wl, params);
	ASSERT_U64_EQ(tasks, warm);

	char label[512];
	snprintf(label, sizeof label, "%s %s %s", p->name, wl->name, params[0] ? params : "-");
	printf("config %s tasks %llu\n", label, (unsigned long long)tasks);
	fflush(stdout);
	instr_config_done(label);
}

int main(int argc, char **argv)
{
	static const char *const default_wls[] = { "fib:n=18", "nqueens:n=7",
						   "spawn-many:n=2000" };
	const char *policies = argc > 1 ? argv[1] : "all";
	const char *const *wls = default_wls;
	int nwls = 3;
	if (argc > 2) {
		wls = (const char *const *)argv + 2;
		nwls = argc - 2;
	}

	const struct policy *sel[64];
	size_t nsel = 0;
	if (strcmp(policies, "all") == 0) {
		for (size_t i = 0; policy_table[i]; i++)
			if (!policy_table[i]->test_only)
				sel[nsel++] = policy_table[i];
	} else {
		char buf[512];
		ASSERT(strlen(policies) < sizeof buf);
		strcpy(buf, policies);
		for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			const struct policy *p = policy_find(tok);
			if (!p)
				TEST_FAIL("instr_run: unknown policy %s", tok);
			ASSERT(nsel < 64);
			sel[nsel++] = p;
		}
	}

	for (size_t i = 0; i < nsel; i++)
		for (int j = 0; j < nwls; j++) {
			char name[64];
			const char *colon = strchr(wls[j], ':');
			size_t len = colon ? (size_t)(colon - wls[j]) : strlen(wls[j]);
			ASSERT(len < sizeof name);
			memcpy(name, wls[j], len);
			name[len] = '\0';
			const struct workload *wl = workload_find(name);
			if (!wl)
				TEST_FAIL("instr_run: unknown workload %s", name);
			run_one(sel[i], wl, colon ? colon + 1 : "");
		}
	return 0;
}
