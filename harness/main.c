/*
 * main.c - harness entry point.
 *
 * Exit status: 0 success; 1 a run failed (wrong answer, runtime or engine
 * failure, result file not written); 2 bad input, reported before any work
 * starts and before any file is created. Data goes to stdout, progress and
 * errors to stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "core/c2c.h"
#include "calibrate.h"
#include "costcache.h"
#include "build_info.h"
#include "git_rev.h"
#include "driver.h"
#include "outfile.h"
#include "policies/policy.h"
#include "provenance.h"
#include "report.h"
#include "workloads/workload.h"

/* Without --json, results go under ./results of the working directory. */
#define RESULTS_DIR "results"

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
 * for a glob), `volt load=0.5` volt-load=0.5.
 */
static const char *file_name(const struct run_config *cfg, char *buf, size_t len)
{
	size_t o = 0;
	for (const char *p = cfg->name; *p && o + 1 < len; p++)
		if (*p != ']')
			buf[o++] = *p == '[' || *p == ',' || *p == ' ' ? '-' : *p;
	buf[o] = '\0';
	return buf;
}

/*
 * Every file a run writes, opened before any work (outfile.h): per policy a
 * result file, and the --hdr and --trace files if asked for. Static: each
 * outfile holds two paths.
 */
static struct outfile out_json[CLI_MAX_POLICIES], out_hdr[CLI_MAX_POLICIES],
	out_trace[CLI_MAX_POLICIES];

static void abort_outputs(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		outfile_abort(&out_json[i]);
		outfile_abort(&out_hdr[i]);
		outfile_abort(&out_trace[i]);
	}
}

/*
 * With several policies, each output PATH stands for one file per variant,
 * its name before the extension: r.json gives r.volt.json and
 * r.volt-lifo_cap=0.json; a name without an extension gets it at the end.
 */
static void output_path(char *buf, size_t len, const char *path, size_t n,
			const struct run_config *cfg)
{
	char name[CLI_NAME_MAX * 3];
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');

	if (n == 1)
		snprintf(buf, len, "%s", path);
	else if (dot && dot != (slash ? slash + 1 : path))
		snprintf(buf, len, "%.*s.%s%s", (int)(dot - path), path,
			 file_name(cfg, name, sizeof name), dot);
	else
		snprintf(buf, len, "%s.%s", path, file_name(cfg, name, sizeof name));
}

/*
 * Every output path of a run, with what it holds: per policy the --json,
 * --hdr and --trace files given (the default result names are made when
 * opened). Sets each configuration's trace_path.
 */
static size_t output_paths(const struct cli *c, struct run_config *cfgs, size_t n,
			   char (*paths)[PATH_MAX], const char **whats, struct outfile **files)
{
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		if (c->json_path) {
			output_path(paths[np], PATH_MAX, c->json_path, n, &cfgs[i]);
			whats[np] = "result";
			files[np++] = &out_json[i];
		}
		if (c->hdr_path) {
			output_path(paths[np], PATH_MAX, c->hdr_path, n, &cfgs[i]);
			whats[np] = "histogram";
			files[np++] = &out_hdr[i];
		}
		if (c->trace_path) {
			output_path(paths[np], PATH_MAX, c->trace_path, n, &cfgs[i]);
			cfgs[i].trace_path = paths[np];
			whats[np] = "trace";
			files[np++] = &out_trace[i];
		}
	}
	return np;
}

/*
 * What opening the outputs would refuse, found without creating anything:
 * two outputs naming one file, an output naming the cost file the run
 * reads, a path outfile_check refuses. Shared by the run and --check, so
 * that --check says ok only for outputs the run accepts. 0, or
 * EXIT_BAD_INPUT with one line on stderr.
 */
static int check_outputs(const struct cli *c, char (*paths)[PATH_MAX], const char **whats,
			 size_t np)
{
	char err[2 * PATH_MAX + 128];

	for (size_t i = 0; i < np; i++)
		for (size_t j = i + 1; j < np; j++)
			if (outfile_same(paths[i], paths[j])) {
				snprintf(err, sizeof err, "the %s and the %s would both be written to "
					 "%.900s", whats[i], whats[j], paths[j]);
				print_error(err);
				return EXIT_BAD_INPUT;
			}
	for (size_t i = 0; i < np && c->costs_path; i++)
		if (outfile_same(paths[i], c->costs_file)) {
			snprintf(err, sizeof err, "the %s would overwrite the cost file %.900s that "
				 "--costs reads", whats[i], c->costs_file);
			print_error(err);
			return EXIT_BAD_INPUT;
		}
	for (size_t i = 0; i < np; i++)
		if (outfile_check(whats[i], paths[i], err, sizeof err)) {
			print_error(err);
			return EXIT_BAD_INPUT;
		}
	/* A default result goes under ./results, made if missing. */
	if (!c->no_json && !c->json_path) {
		struct stat st;
		const char *dir = stat(RESULTS_DIR, &st) == 0 ? RESULTS_DIR : ".";
		if (access(dir, W_OK | X_OK) != 0) {
			snprintf(err, sizeof err, "cannot write the result under %s: %s", RESULTS_DIR,
				 strerror(errno));
			print_error(err);
			return EXIT_BAD_INPUT;
		}
	}
	return 0;
}

/*
 * Check and open every output before the run: no two may name one file,
 * each must be writable. Returns 0, or EXIT_BAD_INPUT with one line on
 * stderr and nothing left behind.
 */
static int open_outputs(const struct cli *c, struct run_config *cfgs, size_t n,
			const struct provenance *pv)
{
	static char paths[3 * CLI_MAX_POLICIES][PATH_MAX];
	const char *whats[3 * CLI_MAX_POLICIES];
	struct outfile *files[3 * CLI_MAX_POLICIES];
	char err[2 * PATH_MAX + 128], stamp[32];
	size_t np = output_paths(c, cfgs, n, paths, whats, files);
	int rc = check_outputs(c, paths, whats, np);

	if (rc)
		return rc;
	for (size_t i = 0; i < np; i++)
		if (outfile_open(files[i], whats[i], paths[i], err, sizeof err)) {
			print_error(err);
			abort_outputs(n);
			return EXIT_BAD_INPUT;
		}
	/* The default result names are new files under ./results: created
	 * last, so that a bad explicit path leaves no directory behind. */
	provenance_stamp(pv, stamp, sizeof stamp);
	for (size_t i = 0; i < n && !c->no_json && !c->json_path; i++) {
		char stem[PATH_MAX], name[CLI_NAME_MAX * 3];
		if (result_default_stem(stem, sizeof stem, RESULTS_DIR, cfgs[i].wl->name,
					file_name(&cfgs[i], name, sizeof name), cfgs[i].workers,
					c->sim ? "sim" : c->real ? "real" : "threads", stamp, err,
					sizeof err) ||
		    outfile_open_new(&out_json[i], "result", stem, ".json", err, sizeof err)) {
			print_error(err);
			abort_outputs(n);
			return EXIT_BAD_INPUT;
		}
	}
	for (size_t i = 0; i < n && c->trace_path; i++)
		cfgs[i].trace_file = outfile_stream(&out_trace[i]);
	return 0;
}

/* --quiet: the summary goes nowhere (an output on "-" kept its own copy of
 * stdout); errors and stall reports still reach stderr. */
static void mute_stdout(void)
{
	fflush(stdout);
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
}

/*
 * HARNESS_TEST_RESULTS=DIR, which the test suite sets (tests/with_results.sh):
 * every result document is also written to DIR/result-<pid>-<n>.json, so
 * that the suite validates each result it makes, wherever the test sent it
 * (a file, stdout, a sweep's directory), against docs/result.schema.json.
 * Written under a temporary name and renamed: a reader sees whole files.
 */
static int copy_for_tests(json_t *doc, char *err, size_t len)
{
	static unsigned n;
	const char *dir = getenv("HARNESS_TEST_RESULTS");
	char path[PATH_MAX], tmp[PATH_MAX + 8];

	if (!dir || !*dir)
		return 0;
	if (snprintf(path, sizeof path, "%s/result-%ld-%u.json", dir, (long)getpid(), n++) >=
	    (int)sizeof path) {
		snprintf(err, len, "HARNESS_TEST_RESULTS: path too long");
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = f ? report_write(f, doc, false) : -errno;
	if (f && fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		snprintf(err, len, "HARNESS_TEST_RESULTS: cannot write %.900s: %s", path,
			 strerror(-rc));
	}
	return rc;
}

static int finish_json(const struct run_config *cfg, const struct run_result *res,
		       const struct provenance *pv, struct outfile *o, bool indent, char *err,
		       size_t len)
{
	json_t *doc = report_json(cfg, res, pv);
	int rc;

	if (!doc) {
		outfile_abort(o);
		snprintf(err, len, "out of memory building the result document");
		return -1;
	}
	rc = report_write(outfile_stream(o), doc, indent);
	if (rc) {
		json_decref(doc);
		outfile_abort(o);
		snprintf(err, len, "cannot write %.900s: %s", o->path, strerror(-rc));
		return rc;
	}
	rc = outfile_commit(o, err, len);
	if (rc == 0)
		printf("\nresult: %s\n", outfile_name(o));
	if (rc == 0)
		rc = copy_for_tests(doc, err, len);
	json_decref(doc);
	return rc;
}

/*
 * The main latency histogram (end-to-end for request workloads, else the
 * scheduling delay) in HdrHistogram's percentile-distribution
 * text format (values in microseconds).
 */
static int finish_hdr(const struct run_result *res, struct outfile *o, char *err, size_t len)
{
	const struct hist *h = res->has_end_to_end ? &res->end_to_end : &res->sched_delay;
	int rc = hist_write_percentiles(h, outfile_stream(o), 5, 1000.0, false);
	if (rc) {
		outfile_abort(o);
		snprintf(err, len, "cannot write %.900s: %s", o->path, strerror(-rc));
		return rc;
	}
	rc = outfile_commit(o, err, len);
	if (rc == 0)
		printf("histogram: %s (%s, us)\n", outfile_name(o),
		       res->has_end_to_end ? "end-to-end latency" : "scheduling delay");
	return rc;
}

static int finish_trace(const struct run_result *res, struct outfile *o, char *err, size_t len)
{
	if (!res->trace_written) {
		outfile_abort(o);
		snprintf(err, len, "no trace was recorded for %.900s", o->path);
		return -1;
	}
	int rc = outfile_commit(o, err, len);
	if (rc == 0)
		printf("trace: %s (Chrome trace events: open in Perfetto)\n", outfile_name(o));
	return rc;
}

/*
 * Another harness run measuring on this machine at the same time competes
 * for its CPUs. Each threads-engine run holds an exclusive flock on its
 * results directory (the --json file's, or ./results) until it exits; one
 * that finds it taken says so. Locking the directory itself leaves no file
 * behind, and the kernel drops the lock with the process, however it ends.
 */
static bool other_run_in_progress(const struct cli *c, char *path, size_t len)
{
	char dir[PATH_MAX];
	if (c->json_path && strcmp(c->json_path, "-") != 0) {
		snprintf(dir, sizeof dir, "%s", c->json_path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(dir, sizeof dir, ".");
	} else {
		snprintf(dir, sizeof dir, "%s", RESULTS_DIR);
		if (!c->no_json && !c->json_path)
			mkdir(dir, 0777);	/* the result goes there anyway */
	}
	snprintf(path, len, "%s", dir);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;	/* no results directory: nothing to share */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return false;	/* held until exit: fd stays open on purpose */
	close(fd);
	return errno == EWOULDBLOCK;
}

/*
 * Warning lines before the run, one per configuration that cannot give a
 * clean figure (docs/measuring.md says what each means). Threads engine
 * only: a simulated run depends on nothing but its inputs.
 */
static void print_warnings(const struct cli *c, const struct provenance *pv)
{
	char lock[PATH_MAX + 32];
	if (c->sim)
		return;
	bool other = other_run_in_progress(c, lock, sizeof lock);
	if (c->quiet)
		return;
	if (other)
		fprintf(stderr, "warning: another harness run is in progress (it holds a lock on "
			"%s): its threads compete with this run's\n", lock);
	if (c->pin_note[0])
		fprintf(stderr, "warning: %s\n", c->pin_note);
	if (pv->cores_online > 0 && c->workers > (uint32_t)pv->cores_online)
		fprintf(stderr, "warning: %u workers on %ld online CPUs: workers take turns on "
			"CPUs and every figure includes the OS's time slicing\n", c->workers,
			pv->cores_online);
	if (pv->has_topology && pv->threads_per_core > 1 && c->pin_effective == PIN_NONE &&
	    c->workers <= pv->cores)
		fprintf(stderr, "warning: workers not pinned on a machine with SMT: the OS may put "
			"two on one core's siblings (--pin compact avoids it)\n");
	if (pv->governor[0] && strcmp(pv->governor, "performance") != 0)
		fprintf(stderr, "warning: CPU frequency governor '%s', not performance: clock "
			"speed follows load (cpupower frequency-set -g performance)\n", pv->governor);
	double busy = 0.5 + 0.1 * (double)(pv->cores_online > 0 ? pv->cores_online : 1);
	if (pv->loadavg[0] > busy)
		fprintf(stderr, "warning: busy machine: load average %.2f over the last minute on "
			"%ld CPUs (other processes compete for the CPUs)\n", pv->loadavg[0],
			pv->cores_online);
}

static struct run_config make_config(const struct cli *c, const struct cli_policy *cp)
{
	return (struct run_config){
		.policy = cp->policy,
		.name = cp->name,
		.wl = c->wl,
		.knobs = cp->knobs,
		.params = cp->params ? cp->params : c->params,
		.workers = c->workers,
		.trials = c->trials,
		.trials_min = c->trials_min,
		.ci_target = c->trials_auto ? c->ci_target : 0,
		.trials_time_s = c->trials_time_s,
		.warmup = c->warmup,
		.seed = c->seed,
		.sample_period = c->sample_period,
		.hist_digits = c->hist_digits,
		.watchdog_ns = c->watchdog_ns,
		/* The baseline runs on the real clock: a simulated run leaves it
		 * out so that its result depends on its inputs only. */
		.baseline = !c->no_baseline && !c->sim,
		.sim = c->sim,
		.real = c->real,
		.quiet = c->quiet,
		.costs = &c->costs,
		.costs_file = c->costs_path ? c->costs_file : NULL,
		.costs_age_s = c->costs_age_s,
		.trace_path = c->trace_path,
		.trace_events = c->trace_events,
		.cpus = c->pinned ? c->cpus : NULL,
		.noise_mode = (enum noise_mode)c->noise_mode,
		.c2c_lo = c->c2c_lo,
		.c2c_hi = c->c2c_hi,
		.speed_lo = c->speed_lo,
		.speed_hi = c->speed_hi,
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
	struct run_result res[CLI_MAX_POLICIES];
	char err[1024];
	int status = 0;

	for (size_t i = 0; i < n; i++)
		cfgs[i] = make_config(c, &c->policies[i]);
	status = open_outputs(c, cfgs, n, pv);
	if (status)
		return status;
	/* After the outputs: bad input gets its one line, nothing before it. */
	print_warnings(c, pv);
	if (c->quiet)
		mute_stdout();
	report_header(stdout, cfgs, n, pv);
	fflush(stdout);
	int rc = driver_run_many(cfgs, n, res, err, sizeof err);
	if (rc) {
		abort_outputs(n);
		print_error(err);
		return rc == -ETIMEDOUT ? DRIVER_EXIT_STALL : EXIT_RUN_FAILED;
	}
	if (n == 1)
		report_summary(stdout, &cfgs[0], &res[0]);
	else
		report_compare(stdout, cfgs, res, n);
	for (size_t i = 0; i < n && c->trace_path; i++)
		if (finish_trace(&res[i], &out_trace[i], err, sizeof err)) {
			print_error(err);
			status = EXIT_RUN_FAILED;
		}
	for (size_t i = 0; i < n; i++) {
		if (c->no_json) {
			if (i == 0)
				printf("\nresult: none (--no-json)\n");
		} else if (finish_json(&cfgs[i], &res[i], pv, &out_json[i], c->json_indent, err,
				       sizeof err)) {
			print_error(err);
			status = EXIT_RUN_FAILED;
		}
		if (c->hdr_path && finish_hdr(&res[i], &out_hdr[i], err, sizeof err)) {
			print_error(err);
			status = EXIT_RUN_FAILED;
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
		_exit(rc == 0 ? 0 : rc == -ETIMEDOUT ? 3 : rc == -EPROTO ? 4 : rc == -ERANGE ? 5 : 1);
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
	case 4: return "a broken invariant (of the sleep protocol: a lost wakeup in the making; or of a ring: a steal taking what is not there)";
	case 5: return "a makespan below its lower bound, max(T1/P, longest task), or declared work missing from the busy time";
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
	/* Stops after last, not when seed passes it: --explore-seed
	 * 18446744073709551615 would wrap to 0 and go on forever. */
	for (uint64_t seed = first;; seed++) {
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
		if (seed % 100 == 0 && !c->quiet)
			fprintf(stderr, "explore: %llu/%llu seeds clean\n", (unsigned long long)seed,
				(unsigned long long)last);
		if (seed == last)
			break;
	}
	if (!c->quiet)
		printf("explore: %s under %s on %u workers: %llu seed%s, no lost task, double run, "
		       "stall or broken invariant\n", cfg.wl->name, cfg.policy->name, cfg.workers,
		       (unsigned long long)(last - first + 1), last > first ? "s" : "");
	return 0;
}

/*
 * --calibrate PATH: measure the sim costs (progress on stderr), print them
 * beside the defaults, write the cost file. PATH is opened before
 * measuring, so a bad path costs no time.
 */
static int run_calibrate(const char *path, bool quiet)
{
	static struct outfile of;
	static char cache[PATH_MAX];
	struct calibration cal;
	char err[2 * PATH_MAX + 128];

	/* auto: this machine's cache entry, which --costs auto reads. */
	if (strcmp(path, "auto") == 0) {
		if (costcache_path(cache, sizeof cache, true, err, sizeof err)) {
			print_error(err);
			return EXIT_BAD_INPUT;
		}
		path = cache;
	}
	if (outfile_open(&of, "cost file", path, err, sizeof err)) {
		print_error(err);
		return EXIT_BAD_INPUT;
	}
	if (quiet)
		mute_stdout();
	int rc = calibrate_costs(&cal, CALIBRATE_PASSES, CALIBRATE_REPS, quiet ? NULL : stderr);
	if (rc == 0)
		rc = calibrate_workloads(&cal, CALIBRATE_WORK_REPS, quiet ? NULL : stderr);
	if (rc == 0)
		rc = calibrate_policies(&cal, CALIBRATE_WORK_REPS, quiet ? NULL : stderr);
	if (rc) {
		outfile_abort(&of);
		snprintf(err, sizeof err, "calibration failed: %s", strerror(-rc));
		print_error(err);
		return EXIT_RUN_FAILED;
	}
	calibrate_print(&cal, stdout);
	calibrate_print_costs(outfile_stream(&of), path, &cal);
	if (outfile_commit(&of, err, sizeof err)) {
		print_error(err);
		return EXIT_RUN_FAILED;
	}
	printf("\ncosts: %s (c2c round trip %.0f ns before, %.0f ns after; use with "
	       "--engine=sim --costs %s)\n", outfile_name(&of), cal.c2c_ns, cal.c2c_end_ns, path);
	return 0;
}

/*
 * SIGPIPE is ignored (outfile_signals): stdout into `| head` that left early
 * fails with EPIPE instead of killing the run, and the result files are
 * still written. Say so once, and exit 1: the summary is incomplete.
 */
static void stdout_check(int *status)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return;
	/* The failed write's errno is long gone: one more write finds it again
	 * (EPIPE for a pipe whose reader left). */
	clearerr(stdout);
	errno = 0;
	int e = fputc('\n', stdout) == EOF || fflush(stdout) != 0 ? errno : 0;
	if (e == 0)
		e = EIO;
	char err[256];
	snprintf(err, sizeof err, "cannot write the summary to stdout: %s", strerror(e));
	print_error(err);
	if (*status == 0)
		*status = EXIT_RUN_FAILED;
}

int main(int argc, char **argv)
{
	struct provenance pv;
	struct cli c;
	char err[1024];
	int status = 0;

	driver_exit_cleanup = outfile_cleanup;
	outfile_signals();
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
	if (c.version) {
		printf("harness %s (git %s, %s build)\n", HARNESS_VERSION, BUILD_GIT_REV, BUILD_TYPE);
		cli_free(&c);
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
	if (c.check) {
		/* Everything is resolved and checked by now but the outputs,
		 * checked as a run would; nothing is created. */
		static char paths[3 * CLI_MAX_POLICIES][PATH_MAX];
		static struct run_config cfgs[CLI_MAX_POLICIES];
		const char *whats[3 * CLI_MAX_POLICIES];
		struct outfile *files[3 * CLI_MAX_POLICIES];
		for (size_t i = 0; i < c.npolicies; i++)
			cfgs[i] = make_config(&c, &c.policies[i]);
		size_t np = output_paths(&c, cfgs, c.npolicies, paths, whats, files);
		if ((status = check_outputs(&c, paths, whats, np))) {
			cli_free(&c);
			return status;
		}
		for (size_t i = 0; i < c.npolicies; i++)
			printf("ok %s %s %u workers %s\n", c.policies[i].name, c.wl->name, c.workers,
			       c.sim ? "sim" : c.real ? "real" : "threads");
		cli_free(&c);
		return 0;
	}
	if (c.calibrate_path) {
		int rc = run_calibrate(c.calibrate_path, c.quiet);
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
	pv.pin = topo_pin_name(c.pin_effective);
	pv.worker_cpus = c.pinned ? c.cpus : NULL;
	pv.nworkers = c.workers;
	status = run_policies(&c, &pv);
	stdout_check(&status);
	provenance_free(&pv);
	cli_free(&c);
	return status;
}
