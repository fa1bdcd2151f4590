/*
 * main.c - harness entry point.
 *
 * Exit status: 0 success; 1 a run failed (wrong answer, runtime or engine
 * failure, result file not written); 2 bad input, reported before any work
 * starts and before any file is created. Data goes to stdout, progress and
 * errors to stderr.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "core/c2c.h"
#include "core/calibrate.h"
#include "driver.h"
#include "policies/policy.h"
#include "provenance.h"
#include "report.h"
#include "workloads/workload.h"

#ifndef HARNESS_RESULTS_DIR
#define HARNESS_RESULTS_DIR "results"
#endif

enum { EXIT_RUN_FAILED = 1, EXIT_BAD_INPUT = 2 };

/* Errors are one line: a reason from a hook that contains a newline would
 * break scripts that read the first line of stderr. */
static void print_error(const char *msg)
{
	fputs("harness: ", stderr);
	for (const char *p = msg; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, stderr);
	fputc('\n', stderr);
}

/*
 * A variant's name as a file-name component: volt[lifo_cap=0,interval=61]
 * becomes volt-lifo_cap=0-interval=61 (no brackets, which a shell would take
 * for a glob).
 */
static const char *file_name(const struct run_config *cfg, char *buf, size_t len)
{
	size_t o = 0;
	for (const char *p = cfg->name; *p && o + 1 < len; p++)
		if (*p != ']')
			buf[o++] = *p == '[' || *p == ',' ? '-' : *p;
	buf[o] = '\0';
	return buf;
}

static int prepare_output(const struct cli *c, const struct run_config *cfg,
			  const struct provenance *pv, struct result_file *rf, char *err,
			  size_t len)
{
	char path[PATH_MAX], stamp[32], name[CLI_NAME_MAX * 3];
	int rc;

	if (c->json_path)
		return result_file_open(rf, c->json_path, err, len);
	provenance_stamp(pv, stamp, sizeof stamp);
	rc = result_default_path(path, sizeof path, HARNESS_RESULTS_DIR, cfg->wl->name,
				 file_name(cfg, name, sizeof name), cfg->workers, stamp, err, len);
	if (rc)
		return rc;
	return result_file_open(rf, path, err, len);
}

static int finish_output(const struct run_config *cfg, const struct run_result *res,
			 const struct provenance *pv, struct result_file *rf, char *err,
			 size_t len)
{
	json_t *doc = report_json(cfg, res, pv);
	int rc;

	if (!doc) {
		result_file_abort(rf);
		snprintf(err, len, "out of memory building the result document");
		return -1;
	}
	rc = result_file_commit(rf, doc, err, len);
	json_decref(doc);
	if (rc == 0)
		printf("\nresult: %s\n", rf->path);
	return rc;
}

/*
 * The main latency histogram (end-to-end for request workloads, else the
 * scheduling delay) in HdrHistogram's percentile-distribution
 * text format (values in microseconds), through a temporary file and a
 * rename like the result file.
 */
static int write_hdr(const char *path, const struct run_result *res, char *err, size_t len)
{
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, len, "cannot create %.900s: %s", tmp, strerror(errno));
		return -1;
	}
	const struct hist *h = res->has_end_to_end ? &res->end_to_end : &res->sched_delay;
	int rc = hist_write_percentiles(h, f, 5, 1000.0, false);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		snprintf(err, len, "cannot write %.900s: %s", path, strerror(-rc));
		return -1;
	}
	printf("histogram: %s (%s, us)\n", path,
	       res->has_end_to_end ? "end-to-end latency" : "scheduling delay");
	return 0;
}

static struct run_config make_config(const struct cli *c, const struct cli_policy *cp)
{
	return (struct run_config){
		.policy = cp->policy,
		.name = cp->name,
		.wl = c->wl,
		.knobs = cp->knobs,
		.params = c->params,
		.workers = c->workers,
		.trials = c->trials,
		.warmup = c->warmup,
		.seed = c->seed,
		.sample_period = c->sample_period,
		.hist_digits = c->hist_digits,
		.watchdog_ns = c->watchdog_ns,
		/* The baseline runs on the real clock: a simulated run leaves it
		 * out so that its result depends on its inputs only. */
		.baseline = !c->no_baseline && !c->sim,
		.sim = c->sim,
		.costs = &c->costs,
		.trace_path = c->trace_path,
		.trace_events = c->trace_events,
	};
}

/*
 * Every selected policy, from output files to summary: one policy gets the
 * full summary, several get their trials interleaved and one comparison
 * table. Each policy's result goes to its own file.
 */
static int run_policies(const struct cli *c, const struct provenance *pv)
{
	size_t n = c->npolicies;
	struct run_config cfgs[CLI_MAX_POLICIES] = { 0 };
	struct result_file rf[CLI_MAX_POLICIES];
	struct run_result res[CLI_MAX_POLICIES];
	char err[1024];
	int status = 0;

	static char trace_paths[CLI_MAX_POLICIES][PATH_MAX];
	char name[CLI_NAME_MAX * 3];
	for (size_t i = 0; i < n; i++) {
		cfgs[i] = make_config(c, &c->policies[i]);
		rf[i] = (struct result_file){ .fd = -1, .slot = -1 };
		if (c->trace_path && n > 1) {
			snprintf(trace_paths[i], sizeof trace_paths[i], "%s.%s", c->trace_path,
				 file_name(&cfgs[i], name, sizeof name));
			cfgs[i].trace_path = trace_paths[i];
		}
	}
	for (size_t i = 0; i < n && !c->no_json; i++) {
		if (prepare_output(c, &cfgs[i], pv, &rf[i], err, sizeof err)) {
			print_error(err);
			while (i--)
				result_file_abort(&rf[i]);
			return EXIT_RUN_FAILED;
		}
	}
	report_header(stdout, cfgs, n, pv);
	fflush(stdout);
	int rc = driver_run_many(cfgs, n, res, err, sizeof err);
	if (rc) {
		for (size_t i = 0; i < n && !c->no_json; i++)
			result_file_abort(&rf[i]);
		print_error(err);
		return rc == -ETIMEDOUT ? DRIVER_EXIT_STALL : EXIT_RUN_FAILED;
	}
	if (n == 1)
		report_summary(stdout, &cfgs[0], &res[0]);
	else
		report_compare(stdout, cfgs, res, n);
	for (size_t i = 0; i < n && c->trace_path; i++)
		printf("trace: %s (Chrome trace events: open in Perfetto)\n", cfgs[i].trace_path);
	for (size_t i = 0; i < n; i++) {
		if (c->no_json) {
			if (i == 0)
				printf("\nresult: none (--no-json)\n");
		} else if (finish_output(&cfgs[i], &res[i], pv, &rf[i], err, sizeof err)) {
			print_error(err);
			status = EXIT_RUN_FAILED;
		}
		if (c->hdr_path) {
			char path[PATH_MAX];
			if (n == 1)
				snprintf(path, sizeof path, "%s", c->hdr_path);
			else
				snprintf(path, sizeof path, "%s.%s", c->hdr_path,
					 file_name(&cfgs[i], name, sizeof name));
			if (write_hdr(path, &res[i], err, sizeof err)) {
				print_error(err);
				status = EXIT_RUN_FAILED;
			}
		}
		run_result_free(&res[i]);
	}
	fflush(stdout);
	return status;
}

/*
 * --explore N / --explore-seed S: simulated runs with perturbed tie-breaks,
 * each in a child process so that a task run twice (which aborts) is
 * reported with its seed like any other finding.
 */
static int explore_one_child(const struct run_config *cfg)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char err[1024];
		int rc = driver_explore_one(cfg, err, sizeof err);
		if (rc)
			fprintf(stderr, "harness: %s\n", err);
		fflush(NULL);
		_exit(rc == 0 ? 0 : rc == -ETIMEDOUT ? 3 : rc == -EPROTO ? 4 : 1);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static const char *explore_what(int code)
{
	switch (code) {
	case 1: return "a wrong answer or a lost task";
	case 3: return "a stall";
	case 4: return "a broken idle invariant (a lost wakeup in the making)";
	default: return code > 128 ? "a crash (a failed check, e.g. a task run twice)" : "a failure";
	}
}

static int run_explore(const struct cli *c)
{
	struct run_config cfg = make_config(c, &c->policies[0]);
	uint64_t first = c->explore_seed_given ? c->explore_seed : 1;
	uint64_t last = c->explore_seed_given ? c->explore_seed : c->explore;

	cfg.explore = true;
	cfg.baseline = false;
	for (uint64_t seed = first; seed <= last; seed++) {
		cfg.explore_seed = seed;
		int code = explore_one_child(&cfg);
		if (code < 0) {
			print_error("cannot fork for --explore");
			return EXIT_RUN_FAILED;
		}
		if (code != 0) {
			printf("explore: %s under %s on %u workers: seed %llu found %s\n"
			       "reproduce: add --explore-seed %llu (instead of --explore)\n",
			       cfg.wl->name, cfg.policy->name, cfg.workers, (unsigned long long)seed,
			       explore_what(code), (unsigned long long)seed);
			return EXIT_RUN_FAILED;
		}
		if (seed % 100 == 0)
			fprintf(stderr, "explore: %llu/%llu seeds clean\n", (unsigned long long)seed,
				(unsigned long long)last);
	}
	printf("explore: %s under %s on %u workers: %llu seed%s, no lost task, double run, stall "
	       "or broken invariant\n", cfg.wl->name, cfg.policy->name, cfg.workers,
	       (unsigned long long)(last - first + 1), last > first ? "s" : "");
	return 0;
}

/*
 * --calibrate PATH: measure the sim costs (progress on stderr), print them
 * beside the defaults, write the cost file. PATH is created (as a temporary
 * file beside it) before measuring, so a bad path costs no time.
 */
static int run_calibrate(const char *path)
{
	struct calibrate_file cf;
	struct calibration cal;
	char err[1024];

	if (calibrate_file_open(&cf, path, err, sizeof err)) {
		print_error(err);
		return EXIT_BAD_INPUT;
	}
	int rc = calibrate_costs(&cal, CALIBRATE_PASSES, CALIBRATE_REPS, stderr);
	if (rc) {
		calibrate_file_abort(&cf);
		snprintf(err, sizeof err, "calibration failed: %s", strerror(-rc));
		print_error(err);
		return EXIT_RUN_FAILED;
	}
	calibrate_print(&cal, stdout);
	if (calibrate_file_commit(&cf, &cal, err, sizeof err)) {
		print_error(err);
		return EXIT_RUN_FAILED;
	}
	printf("\ncosts: %s (c2c round trip %.0f ns before, %.0f ns after; use with "
	       "--engine=sim --costs %s)\n", path, cal.c2c_ns, cal.c2c_end_ns, path);
	return 0;
}

int main(int argc, char **argv)
{
	struct provenance pv;
	struct cli c;
	char err[1024];
	int status = 0;

	if (cli_parse(&c, argc, argv, err, sizeof err)) {
		print_error(err);
		cli_free(&c);
		return EXIT_BAD_INPUT;
	}
	if (c.probe_c2c) {
		double ns;
		int rc = c2c_probe(0, 1, 20000, &ns);
		cli_free(&c);
		if (rc != 0) {
			print_error("core-to-core probe needs CPUs 0 and 1");
			return EXIT_RUN_FAILED;
		}
		printf("c2c_round_trip_ns %.1f\n", ns);
		return 0;
	}
	if (c.help || c.list) {
		if (c.help)
			cli_usage(stdout);
		else
			cli_list(stdout);
		cli_free(&c);
		return 0;
	}
	if (c.calibrate_path) {
		int rc = run_calibrate(c.calibrate_path);
		cli_free(&c);
		return rc;
	}
	if (c.explore || c.explore_seed_given) {
		int rc = run_explore(&c);
		cli_free(&c);
		return rc;
	}
	/* Simulated runs depend on nothing but their inputs: no probe. */
	if (provenance_collect(&pv, argc, argv, !c.sim)) {
		print_error("out of memory");
		cli_free(&c);
		return EXIT_RUN_FAILED;
	}
	status = run_policies(&c, &pv);
	provenance_free(&pv);
	cli_free(&c);
	return status;
}
