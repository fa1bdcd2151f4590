/* real.c - the real engine: a trial run by a policy's real runtime (real.h). */
#include "harness/real.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/driver.h"
#include "harness/fail.h"
#include "policies/policy.h"

extern char **environ;

/* The workloads the peers run, the parameters each passes on (the others
 * must be at values the peers take as they are, or, for open-loop, shape
 * the schedule the harness writes for the peer), and the peers that have
 * each: the async shapes only where a runtime has async tasks (Tokio, Go),
 * not Rayon's or oneTBB's fork-join. */
static const struct {
	const char *workload;
	const char *const pass[4];	/* parameters handed to the peer */
	const char *fixed;		/* a parameter that must be 0, or NULL */
	const char *peers;		/* the peers that have it, space separated; NULL: all */
} shapes[] = {
	{ "fib", { "n", NULL }, "cutoff", NULL },
	{ "spawn-many", { "n", "work_ns", "from", NULL }, NULL, NULL },
	{ "nqueens", { "n", NULL }, "cutoff", NULL },
	{ "chained-spawn", { "n", NULL }, NULL, "tokio go" },
	{ "yield-many", { "tasks", "yields", NULL }, NULL, "tokio go" },
	{ "ping-pong", { "pairs", "rounds", "third", NULL }, NULL, "tokio go" },
	{ "open-loop", { "load", "service_us", NULL }, "io_us", "tokio go" },
};

/* open-loop's schedule, as the workload draws it (workloads/open_loop.c;
 * internal, as tests/test_wl_open_loop.c uses them): the real engine hands
 * the peer the very requests the models run. */
uint32_t open_loop__requests(const double *p, uint32_t workers);
uint32_t open_loop__warmup(const double *p, uint32_t workers, uint32_t n);
uint64_t open_loop__schedule(const double *p, uint32_t workers, uint64_t seed,
			     uint64_t *offset, uint64_t *service);

static bool shape_has(int s, const char *peer)
{
	const char *l = shapes[s].peers;
	size_t n = strlen(peer);
	if (!l)
		return true;
	for (const char *p = strstr(l, peer); p; p = strstr(p + 1, peer))
		if ((p == l || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static int shape_of(const struct workload *wl)
{
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		if (strcmp(shapes[i].workload, wl->name) == 0)
			return (int)i;
	return -1;
}

static double param_value(const struct workload *wl, const double *params, const char *name)
{
	for (size_t i = 0; i < wl->nparams; i++)
		if (strcmp(wl->params[i].name, name) == 0)
			return params[i];
	return NAN;
}

int real_check(const struct policy *p, const struct workload *wl, const double *params,
	       char *err, size_t len)
{
	char have[256] = "";
	size_t off = 0;

	if (!p->peer) {
		for (size_t i = 0; policy_table[i]; i++)
			if (policy_table[i]->peer && off < sizeof have)
				off += (size_t)snprintf(have + off, sizeof have - off, "%s%s (%s)",
							off ? ", " : "", policy_table[i]->name,
							policy_table[i]->peer);
		for (size_t i = 0; policy_real_only[i] && off < sizeof have; i++)
			off += (size_t)snprintf(have + off, sizeof have - off, ", %s (no model)",
						policy_real_only[i]->name);
		return fail(-EINVAL, err, len, "policy %s has no real runtime to run "
			    "(--engine=real runs: %s)", p->name, have);
	}
	int s = shape_of(wl);
	if (s < 0) {
		char names[256] = "";
		size_t o = 0;
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0] && o < sizeof names; i++)
			o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "",
					      shapes[i].workload);
		return fail(-EINVAL, err, len, "workload %s has no peer program yet (--engine=real "
			    "runs %s; peers/README.md)", wl->name, names);
	}
	if (!shape_has(s, p->peer))
		return fail(-EINVAL, err, len, "workload %s under %s: %s has no async tasks, only "
			    "fork-join (its peer runs fib, nqueens and spawn-many)", wl->name, p->name,
			    strcmp(p->peer, "tbb") == 0 ? "oneTBB" : "Rayon");
	if (shapes[s].fixed && param_value(wl, params, shapes[s].fixed) != 0)
		return fail(-EINVAL, err, len, "--engine=real runs %s with %s=0 only (%s)", wl->name,
			    shapes[s].fixed, strcmp(shapes[s].fixed, "io_us") == 0
			    ? "the peers' requests compute only, no timer I/O"
			    : "every node a task, as the peers do");
	if (strcmp(p->peer, "go") == 0 && strcmp(wl->name, "spawn-many") == 0 &&
	    param_value(wl, params, "from") != 0)
		return fail(-EINVAL, err, len, "spawn-many from=1 under go: Go has no spawn from "
			    "outside its workers (every goroutine is started by another)");
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int rc = real_peers_dir(dir, sizeof dir);
	if (rc)
		return fail(rc, err, len, "cannot find the peers' directory: %s", strerror(-rc));
	snprintf(path, sizeof path, "%s/peer-%s", dir, p->peer);
	if (access(path, X_OK) != 0)
		return fail(-ENOENT, err, len, "%s: %s (build the peers: scripts/peers.sh; "
			    "HARNESS_PEERS names another directory)", path, strerror(errno));
	return 0;
}

int real_peers_dir(char *buf, size_t len)
{
	const char *env = getenv("HARNESS_PEERS");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return snprintf(buf, len, "%s", env) < (int)len ? 0 : -ENAMETOOLONG;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	return snprintf(buf, len, "%s/peers", exe) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Run argv[0] with argv, its standard output into *out (NUL-ended, the
 * caller frees), its standard error passed on. Its wait status in *status. */
static int run_capture(char *const argv[], char **out, int *status)
{
	int fd[2];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int rc;

	if (!buf)
		return -ENOMEM;
	if (pipe(fd) != 0) {
		free(buf);
		return -errno;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		free(buf);
		return -rc;
	}
	for (;;) {
		if (n + 1 == cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				rc = -ENOMEM;
				break;
			}
			buf = b;
		}
		ssize_t k = read(fd[0], buf + n, cap - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	buf[n] = '\0';
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

static uint64_t get_u64(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* A per-worker counter of the peer's line into the harness's counter
 * (peers/README.md says which stands for which). */
static void map_counter(json_t *per, const char *name, struct trial *out, uint32_t workers,
			size_t offset)
{
	json_t *a = json_object_get(per, name);
	_Static_assert(sizeof(struct worker_stats) <= 64 * sizeof(uint64_t),
		       "a trial's `reported` has a bit per counter");
	if (json_is_array(a))
		out->reported |= 1ull << (offset / sizeof(uint64_t));
	for (uint32_t i = 0; json_is_array(a) && i < workers && i < json_array_size(a); i++) {
		json_t *v = json_array_get(a, i);
		if (json_is_integer(v) && json_integer_value(v) >= 0)
			*(uint64_t *)((char *)&out->ws[i] + offset) = (uint64_t)json_integer_value(v);
	}
}

/* A peer's percentiles object ({"p50": ns, ...}) into out's metrics, each
 * as PREFIX + key + "_ns" (latency_p99_ns). */
static void put_pcts(struct trial *out, json_t *o, const char *prefix)
{
	const char *k;
	json_t *v;
	if (!json_is_object(o))
		return;
	json_object_foreach(o, k, v) {
		if (!json_is_number(v) || out->nmetrics >= WL_MAX_METRICS)
			continue;
		struct trial_metric *m = &out->metrics[out->nmetrics++];
		snprintf(m->name, sizeof m->name, "%s%s_ns", prefix, k);
		m->value = json_number_value(v);
	}
}

/* The measured trial's line of the peer's output: its figures into out. */
static int take_trial(const struct run_config *cfg, const char *peer, json_t *t,
		      struct trial *out, char *err, size_t len)
{
	const char *why = json_string_value(json_object_get(t, "why"));

	if (!json_is_true(json_object_get(t, "verified")))
		return fail(-EIO, err, len, "%s on real %s computed a wrong answer: %s",
			    cfg->wl->name, peer, why ? why : "(no reason given)");
	out->makespan_ns = get_u64(t, "ns");
	out->tasks = get_u64(t, "tasks");
	if (out->makespan_ns == 0 || out->tasks == 0)
		return fail(-EIO, err, len, "peer-%s: a trial without its time or tasks", peer);
	double span = (double)out->makespan_ns;
	out->tasks_per_s = (double)out->tasks * 1e9 / span;
	out->ns_per_task = span / (double)out->tasks;
	out->overhead_ns_per_task = NAN;
	/* The runtimes do not say per worker how busy each was: the process's
	 * CPU time over workers x wall time, the same for every worker. */
	double cpu = (double)(get_u64(t, "cpu_user_ns") + get_u64(t, "cpu_sys_ns"));
	double util = cpu / ((double)cfg->workers * span);
	if (util > 1)
		util = 1;
	memset(out->ws, 0, cfg->workers * sizeof *out->ws);
	out->reported = 0;
	for (uint32_t i = 0; i < cfg->workers; i++) {
		out->util[i] = util;
		out->ws[i].busy_ns = (uint64_t)(util * span);
	}
	out->util_total = util;
	json_t *per = json_object_get(t, "per_worker");
	if (json_is_object(per)) {
		map_counter(per, "polls", out, cfg->workers, offsetof(struct worker_stats, polls));
		map_counter(per, "steals", out, cfg->workers,
			    offsetof(struct worker_stats, tasks_stolen));
		map_counter(per, "parks", out, cfg->workers, offsetof(struct worker_stats, parks));
		map_counter(per, "overflows", out, cfg->workers,
			    offsetof(struct worker_stats, overflows));
	}
	/* The peer's latency percentiles (open-loop: its requests' completion
	 * minus intended arrival, and how late each was handed to the runtime),
	 * and Go's scheduling delay, as metrics: they are the runtime's own
	 * samples, not the harness's histograms. */
	out->nmetrics = 0;
	put_pcts(out, json_object_get(t, "latency_ns"), "latency_");
	put_pcts(out, json_object_get(t, "sched_latency_ns"), "sched_latency_");
	put_pcts(out, json_object_get(t, "late_ns"), "late_");
	out->sched_samples = out->e2e_samples = 0;
	/* No samples, as a threads run with --sample 0 (an empty histogram's
	 * percentiles are 0). */
	for (int k = 0; k < PCT_LEVELS; k++)
		out->sched_pct[k] = out->e2e_pct[k] = 0;
	return 0;
}

/* open-loop's schedule for this trial into a temporary file (its name in
 * path): "n warm", then n lines "offset_ns service_ns" (peers/README.md). */
static int write_schedule(const struct run_config *cfg, uint64_t seed, char *path, size_t plen,
			  char *err, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	uint32_t n = open_loop__requests(cfg->params, cfg->workers);
	uint32_t warm = open_loop__warmup(cfg->params, cfg->workers, n);
	uint64_t *off = malloc(n * sizeof *off), *svc = malloc(n * sizeof *svc);
	int rc = 0;

	snprintf(path, plen, "%s/harness-schedule.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = off && svc ? mkstemp(path) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		rc = fail(-errno ? -errno : -ENOMEM, err, len, "open-loop's schedule for the peer: %s",
			  strerror(errno ? errno : ENOMEM));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		goto out;
	}
	open_loop__schedule(cfg->params, cfg->workers, seed, off, svc);
	fprintf(f, "%" PRIu32 " %" PRIu32 "\n", n, warm);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 " %" PRIu64 "\n", off[i], svc[i]);
	if (fclose(f) != 0) {
		rc = fail(-errno, err, len, "open-loop's schedule for the peer: %s", strerror(errno));
		unlink(path);
	}
out:
	free(off);
	free(svc);
	return rc;
}

int real_run_trial(const struct run_config *cfg, uint64_t seed, struct trial *out, char *version,
		   size_t vlen, char *err, size_t len)
{
	const char *peer = cfg->policy->peer;
	char dir[PATH_MAX], path[PATH_MAX + 32], workers[16], vals[4][64], sched[PATH_MAX] = "";
	char *argv[24], *text = NULL;
	size_t k = 0;
	int status, rc, s = shape_of(cfg->wl);

	if (s < 0 || !peer)
		return fail(-EINVAL, err, len, "%s under %s: no peer program", cfg->wl->name,
			    cfg->policy->name);
	rc = real_peers_dir(dir, sizeof dir);
	if (rc)
		return fail(rc, err, len, "cannot find the peers' directory: %s", strerror(-rc));
	snprintf(path, sizeof path, "%s/peer-%s", dir, peer);
	if (access(path, X_OK) != 0)
		return fail(-ENOENT, err, len, "%s: %s (build the peers: scripts/peers.sh)", path,
			    strerror(errno));
	snprintf(workers, sizeof workers, "%" PRIu32, cfg->workers);
	argv[k++] = path;
	argv[k++] = "--workload";
	argv[k++] = (char *)cfg->wl->name;
	argv[k++] = "--workers";
	argv[k++] = workers;
	argv[k++] = "--trials";
	argv[k++] = "1";
	argv[k++] = "--warmup";
	/* open-loop's schedule warms up in its first requests (not recorded). */
	argv[k++] = strcmp(cfg->wl->name, "open-loop") == 0 ? "0" : "1";
	for (size_t i = 0; shapes[s].pass[i]; i++) {
		snprintf(vals[i], sizeof vals[i], "%s=%.17g", shapes[s].pass[i],
			 param_value(cfg->wl, cfg->params, shapes[s].pass[i]));
		argv[k++] = "--param";
		argv[k++] = vals[i];
	}
	if (strcmp(cfg->wl->name, "open-loop") == 0) {
		if ((rc = write_schedule(cfg, seed, sched, sizeof sched, err, len)))
			return rc;
		argv[k++] = "--schedule";
		argv[k++] = sched;
	}
	argv[k] = NULL;
	rc = run_capture(argv, &text, &status);
	if (sched[0])
		unlink(sched);
	if (rc)
		return fail(rc, err, len, "cannot run %s: %s", path, strerror(-rc));
	json_t *header = NULL, *trial = NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		json_t *j = json_loads(line, 0, NULL);
		if (!json_is_object(j)) {
			json_decref(j);
			continue;
		}
		if (!header && json_object_get(j, "peer")) {
			header = j;
		} else if (json_object_get(j, "trial") &&
			   !json_is_true(json_object_get(j, "warmup"))) {
			json_decref(trial);
			trial = j;
		} else {
			json_decref(j);
		}
	}
	free(text);
	if (trial && !json_is_true(json_object_get(trial, "verified")))
		rc = take_trial(cfg, peer, trial, out, err, len);	/* names the wrong answer */
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = fail(-EIO, err, len, "%s %s failed (%s %d; its stderr is above)", path,
			  cfg->wl->name, WIFEXITED(status) ? "exit status" : "signal",
			  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	else if (!header || !trial)
		rc = fail(-EIO, err, len, "%s printed no %s (peers/README.md)", path,
			  header ? "measured trial" : "header");
	else
		rc = take_trial(cfg, peer, trial, out, err, len);
	if (rc == 0 && version) {
		const char *v = json_string_value(json_object_get(header, "version"));
		snprintf(version, vlen, "%s", v ? v : "unknown");
	}
	json_decref(header);
	json_decref(trial);
	return rc;
}
