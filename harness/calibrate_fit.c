/*
 * calibrate_fit.c - the workloads' own work and the figures fitted on
 * policies' runs (calibrate.h: calibrate_workloads, calibrate_policies).
 */
#define _GNU_SOURCE
#include "calibrate_impl.h"

/* ---- the workloads' own work ---- */

static const struct calibrate_work_spec work_table[CALIBRATE_WORKLOADS] = {
	{ "fib", "n=30" },	{ "nqueens", "n=12" },	 { "uts", "preset=T3-small" },
	{ "sort", NULL },	{ "spawn-many", NULL },	 { "chained-spawn", NULL },
	{ "yield-many", NULL }, { "ping-pong", NULL },
};

static void work_start(struct runtime *rt, void *arg)
{
	const struct workload *wl = arg;
	wl->start(rt->user, rt);
}

static void work_place(struct runtime *rt, void *arg)
{
	const struct workload *wl = arg;
	wl->place(rt->user, rt);
}

/* The parameters: the defaults, `params` (one name=value) and the
 * workload's resolve. */
static int work_params(const struct workload *wl, const char *params, double *pv)
{
	char err[256];
	bool given[64] = { false };
	knob_defaults(wl->params, wl->nparams, pv);
	if (params) {
		const char *eq = strchr(params, '=');
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(eq - params), params);
		int k = knob_find(wl->params, wl->nparams, name);
		CHECK(k >= 0);
		CHECK(knob_parse_named(&wl->params[k], knob_names(wl->param_names, &wl->params[k]),
				       eq + 1, &pv[k], err, sizeof err) == 0);
		given[k] = true;
	}
	return wl->resolve ? wl->resolve(pv, given, err, sizeof err) : 0;
}

/* The CPUs the harness's default placement (--pin, auto) gives `workers`
 * workers, so that a calibration run is placed as the runs it predicts
 * are: NULL when it pins none. */
static const int32_t *default_cpus(uint32_t workers, int32_t *cpus)
{
	enum pin_mode eff;
	char note[256], err[256];
	if (topo_place(topo_machine(), PIN_AUTO, NULL, 0, workers, cpus, &eff, note, sizeof note,
		       err, sizeof err) != 0 || eff == PIN_NONE)
		return NULL;
	return cpus;
}

/* One run of policy `p` on `workers` workers, on the threads engine (its
 * workers placed as the harness places them by default) or (costs given)
 * the sim with those costs: makespan and counters. */
static int policy_run(const struct policy *p, uint32_t workers, const struct workload *wl,
		      const double *pv, const struct sim_costs *costs, uint64_t *ns,
		      struct worker_stats *st)
{
	double kv[64];
	int32_t cpus[64];
	char err[256];
	CHECK(p && p->nknobs <= 64 && workers <= 64);
	knob_defaults(p->knobs, p->nknobs, kv);
	struct rt_config cfg = { .workers = workers, .seed = 1, .sample_period = 0,
				 .hist_digits = 2, .watchdog_ns = 0,
				 .cpus = costs ? NULL : default_cpus(workers, cpus) };
	struct engine *e = costs ? engine_sim_create(workers, costs, 0) :
				   engine_threads_create(workers);
	struct runtime *rt;
	if (!e)
		return -ENOMEM;
	int rc = rt_create(&rt, &cfg, p, kv, e, err, sizeof err);
	if (rc) {
		e->ops->destroy(e);
		return rc;
	}
	rt->user = wl->create(pv, workers, 1);
	if (!rt->user) {
		rt_destroy(rt);
		e->ops->destroy(e);
		return -ENOMEM;
	}
	if (wl->place) {
		rt->place = work_place;
		rt->place_arg = (void *)wl;
	}
	rc = e->ops->run(e, rt, work_start, (void *)wl);
	if (rc == 0 && wl->verify(rt->user, err, sizeof err) != 0)
		rc = -EPROTO;
	*ns = rt->end_ns - rt->start_ns;
	rt_total_stats(rt, st);
	wl->destroy(rt->user);
	rt_destroy(rt);
	e->ops->destroy(e);
	return rc;
}

/* One 1-worker run under volt (the work's reference). */
static int work_run(const struct workload *wl, const double *pv, const struct sim_costs *costs,
		    uint64_t *ns, struct worker_stats *st)
{
	return policy_run(policy_find("volt"), 1, wl, pv, costs, ns, st);
}

/* The cap on a fit's threads runs (calibration.runs_max), at least reps. */
static uint32_t runs_cap(const struct calibration *cal, uint32_t reps)
{
	uint32_t max = cal->runs_max ? cal->runs_max : CALIBRATE_RUNS_MAX;
	return reps > max ? reps : max;
}

/* The probes of the host's common state (calibration.state_samples). */
static uint32_t state_samples(const struct calibration *cal)
{
	uint32_t n = cal->state_samples;
	return n && n < CALIBRATE_STATE_SAMPLES ? n : CALIBRATE_STATE_SAMPLES;
}

int calibrate_workloads(struct calibration *cal, uint32_t reps, FILE *log)
{
	return calibrate_workloads_of(cal, reps, log, work_table, CALIBRATE_WORKLOADS);
}

int calibrate_sim_run(const struct calibrate_work_spec *spec, const struct sim_costs *costs,
		      uint64_t *ns, uint64_t *polls)
{
	const struct workload *wl = workload_find(spec->workload);
	double pv[64];
	struct worker_stats st;
	if (!wl || wl->nparams > 64 || work_params(wl, spec->params, pv) != 0)
		return -EINVAL;
	struct sim_costs c = *costs;
	c.work_per_spawn = wl->work_per_spawn;
	int rc = work_run(wl, pv, &c, ns, &st);
	*polls = st.polls;
	return rc;
}

static int regime_runs(const struct cal *c, struct calibration *cal, const struct policy *p,
		       uint32_t workers, const struct workload *wl, const double *pv, uint32_t reps,
		       uint32_t cap, const struct calibrate_work *ref, double share,
		       struct calibrate_fit *fit);

static bool in_band(const struct calibrate_probed_run *r, double lo, double hi);

/*
 * The host's common state, before any threads run is taken: the round trip
 * and the compute probe, state_samples times CALIBRATE_STATE_GAP_NS
 * apart, and the state most of them were in (calibrate_select_regime on the
 * samples as if each were a run): the regime every fit then keeps to. Left to
 * the first fit's own runs, the regime was whatever the host was in during
 * that fraction of a second, now and then one it left for minutes (a
 * calibration in the 415 ns regime at the fast compute speed, and not a cell
 * of the part after it in that state).
 */
static void host_state(const struct cal *c, struct calibration *cal)
{
	/* [0]: the compute probe of a 1-worker run (the first CPU), [1]: of a
	 * 2-worker run (the slower of both); the round trip the same in both. */
	struct calibrate_probed_run r[2][CALIBRATE_STATE_SAMPLES];
	struct calibrate_fit fit[2] = { { 0 }, { 0 } };
	int32_t cpus[2];
	const int32_t *place = default_cpus(2, cpus);
	const uint32_t samples = state_samples(cal);
	cal->state_samples = samples;	/* as made, for the file's header */
	for (uint32_t i = 0; i < samples; i++) {
		if (i) {
			struct timespec gap = { 0, (long)CALIBRATE_STATE_GAP_NS };
			nanosleep(&gap, NULL);
		}
		double rt = noise_c2c_ns(place, 2);
		for (uint32_t k = 0; k < 2; k++) {
			r[k][i].ns = 0;
			r[k][i].c2c_before = r[k][i].c2c_after = rt;
			r[k][i].speed_before = r[k][i].speed_after = noise_speed_ns(place, k + 1);
		}
	}
	/* The round trip and the 2-worker speed most probes shared; then, of
	 * the probes in that round trip, the 1-worker speed most shared. */
	if (calibrate_select_regime(r[1], samples, 0, 0, 0, 0, &fit[1]) != 0 ||
	    fit[1].kept == 0)
		return;		/* nothing probed: each fit's own runs decide */
	uint32_t m = 0;
	for (uint32_t i = 0; i < samples; i++)
		if (in_band(&r[0][i], fit[1].c2c_lo, fit[1].c2c_hi))
			r[0][m++] = r[0][i];
	if (calibrate_select_regime(r[0], m, 0, 0, 0, 0, &fit[0]) != 0)
		fit[0].kept = 0;
	cal->regime_lo = fit[1].c2c_lo;
	cal->regime_hi = fit[1].c2c_hi;
	for (uint32_t k = 0; k < 2; k++) {
		cal->speed_lo[k] = fit[k].kept ? fit[k].speed_lo : 0;
		cal->speed_hi[k] = fit[k].kept ? fit[k].speed_hi : 0;
	}
	cal->state_kept = fit[1].kept;
	say(c, "the host's common state: %u of %u probes %.0f ms apart, round trip %.0f..%.0f ns, "
	    "compute probe %.0f..%.0f ns on 2 CPUs (the slower), and of these %u at %.0f..%.0f "
	    "ns on the first", fit[1].kept, samples,
	    CALIBRATE_STATE_GAP_NS / 1e6, fit[1].c2c_lo, fit[1].c2c_hi, fit[1].speed_lo,
	    fit[1].speed_hi, fit[0].kept, cal->speed_lo[0], cal->speed_hi[0]);
}

int calibrate_workloads_of(struct calibration *cal, uint32_t reps, FILE *log,
			   const struct calibrate_work_spec *spec, uint32_t nspec)
{
	struct cal c = { .log = log };
	reps = reps ? reps : 1;
	uint32_t cap = runs_cap(cal, reps);
	double *seq = calloc(reps, sizeof *seq);
	int rc = seq ? 0 : -ENOMEM;
	c.e = rc ? NULL : engine_threads_create(1);
	if (!rc && !c.e)
		rc = -ENOMEM;
	/* What the sim charges a 1-worker run besides the work: the
	 * mechanisms, the lock, the cache model (its aged cold starts). */
	struct sim_costs nowork = cal->costs;
	nowork.work = 0;
	nowork.nwork = 0;
	cal->nwork = 0;
	if (rc == 0 && cal->regime_hi == 0 && cal->cpus >= 2)
		host_state(&c, cal);
	for (uint32_t i = 0; i < nspec && i < CALIBRATE_WORKLOADS && rc == 0; i++) {
		struct calibrate_work *cw = &cal->work[cal->nwork];
		const struct workload *wl = workload_find(spec[i].workload);
		double pv[64];
		CHECK(wl && wl->nparams <= 64);
		memset(cw, 0, sizeof *cw);
		cw->workload = spec[i].workload;
		cw->params = spec[i].params;
		if (work_params(wl, cw->params, pv) != 0)
			continue;
		uint64_t sim_ns = 0;
		uint32_t n = 0;
		struct worker_stats sst;
		/* The sequential baseline, for comparison only: its median. */
		for (; rc == 0 && n < reps; n++) {
			void *inst = wl->create(pv, 1, 1);
			if (!inst) {
				rc = -ENOMEM;
				break;
			}
			uint64_t t0 = now(&c);
			wl->run_sequential(inst);
			uint64_t t1 = now(&c);
			uint64_t tasks = wl->tasks(inst);
			seq[n] = tasks ? (double)(t1 - t0) / (double)tasks : 0;
			wl->destroy(inst);
		}
		/* The median 1-worker run under volt in the calibration's
		 * round-trip regime, as the validation's figure is. */
		struct calibrate_fit rf;
		if (rc == 0)
			rc = regime_runs(&c, cal, policy_find("volt"), 1, wl, pv, reps, cap, NULL, 0,
					 &rf);
		if (rc == 0)
			rc = work_run(wl, pv, &nowork, &sim_ns, &sst);
		if (rc)
			break;
		double polls = sst.polls ? (double)sst.polls : 1;
		cw->polls = sst.polls;
		cw->per_spawn = wl->work_per_spawn;
		cw->seq_ns_per_task = median(seq, n);
		cw->run_ns_per_poll = rf.run_ns / polls;
		cw->mech_ns_per_poll = (double)sim_ns / polls;
		/* The same difference, spread over the spawns instead when the
		 * work comes with each child. */
		double units = cw->per_spawn ? (sst.spawns ? (double)sst.spawns : 1) : polls;
		cw->ns = fmax((rf.run_ns - (double)sim_ns) / units, 0);
		say(&c, "work.%s (%s): %.1f ns per %s (median of %u of %u 1-worker runs in the "
		    "regime %.0f..%.0f ns, compute probe %.0f..%.0f ns, %.1f ns per poll; the sim "
		    "without work %.1f; sequential %.1f ns per task)", cw->workload,
		    cw->params ? cw->params : "defaults", cw->ns, cw->per_spawn ? "spawn" : "poll",
		    rf.kept, rf.runs, rf.c2c_lo, rf.c2c_hi, rf.speed_lo, rf.speed_hi,
		    cw->run_ns_per_poll, cw->mech_ns_per_poll, cw->seq_ns_per_task);
		cal->nwork++;
	}
	if (c.e)
		c.e->ops->destroy(c.e);
	free(seq);
	return rc;
}

/* ---- fitted figures: each policy's own per poll, the lock transfer ---- */

/* Were both of a run's probes within the ratio of the band lo..hi? */
static bool in_band(const struct calibrate_probed_run *r, double lo, double hi)
{
	double a = fmin(r->c2c_before, r->c2c_after), b = fmax(r->c2c_before, r->c2c_after);
	return isfinite(a) && isfinite(b) && a > 0 && a * CALIBRATE_REGIME_RATIO >= lo &&
	       b <= CALIBRATE_REGIME_RATIO * hi;
}

/* Widen the range lo..hi (hi 0: empty) to hold the compute probes a and b
 * where they were made. */
static void speed_range(double *lo, double *hi, double a, double b)
{
	double p[2] = { a, b };
	for (int k = 0; k < 2; k++)
		if (isfinite(p[k]) && p[k] > 0) {
			*lo = *hi > 0 ? fmin(*lo, p[k]) : p[k];
			*hi = fmax(*hi, p[k]);
		}
}

/* Were both of a run's compute probes within CALIBRATE_SPEED_RATIO of the
 * band slo..shi? Yes for any run if shi is 0 (no band), and for a run whose
 * probes were not made. */
static bool in_speed(const struct calibrate_probed_run *r, double slo, double shi)
{
	double lo = 0, hi = 0;
	speed_range(&lo, &hi, r->speed_before, r->speed_after);
	if (shi <= 0 || hi <= 0)
		return true;
	return lo * CALIBRATE_SPEED_RATIO >= slo && hi <= CALIBRATE_SPEED_RATIO * shi;
}

/* The runs in the band lo..hi and the compute band slo..shi: the median of
 * their makespans into fit->run_ns, their number into kept, their probes'
 * range into c2c_lo..c2c_hi and speed_lo..speed_hi; returns the sum of
 * their makespans. `v` holds n. */
static double select_band(const struct calibrate_probed_run *r, uint32_t n, double lo, double hi,
			  double slo, double shi, double *v, struct calibrate_fit *fit)
{
	double sum = 0;
	fit->kept = 0;
	fit->run_ns = fit->c2c_lo = INFINITY;
	fit->c2c_hi = fit->speed_lo = fit->speed_hi = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!in_band(&r[i], lo, hi) || !in_speed(&r[i], slo, shi))
			continue;
		speed_range(&fit->speed_lo, &fit->speed_hi, r[i].speed_before, r[i].speed_after);
		v[fit->kept++] = r[i].ns;
		sum += r[i].ns;
		fit->c2c_lo = fmin(fit->c2c_lo, fmin(r[i].c2c_before, r[i].c2c_after));
		fit->c2c_hi = fmax(fit->c2c_hi, fmax(r[i].c2c_before, r[i].c2c_after));
	}
	if (fit->kept)
		fit->run_ns = median(v, fit->kept);
	return sum;
}

/* The most populous regime: of the bands centred on each run whose two
 * probes agree (within the ratio), and whose two compute probes agree
 * (within theirs), the one holding the most runs (a tie: the one with the
 * faster median). A run without compute probes centres a band only when
 * no run has them (its band would hold every speed); it may still fall in
 * another's. */
static double select_populous(const struct calibrate_probed_run *r, uint32_t n, double *v,
			      struct calibrate_fit *fit)
{
	double sum = 0;
	bool probed = false;
	for (uint32_t i = 0; i < n; i++) {
		double lo = 0, hi = 0;
		speed_range(&lo, &hi, r[i].speed_before, r[i].speed_after);
		probed |= hi > 0;
	}
	fit->kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		double a = fmin(r[i].c2c_before, r[i].c2c_after);
		double b = fmax(r[i].c2c_before, r[i].c2c_after);
		if (!(isfinite(a) && isfinite(b) && a > 0 && b <= CALIBRATE_REGIME_RATIO * a))
			continue;
		double sa = 0, sb = 0, smid = 0;
		speed_range(&sa, &sb, r[i].speed_before, r[i].speed_after);
		if (sb > 0) {
			if (sb > CALIBRATE_SPEED_RATIO * sa)
				continue;	/* its speed moved during it */
			smid = sqrt(sa * sb);
		} else if (probed) {
			continue;	/* a band at every speed: not where others were probed */
		}
		double mid = sqrt(a * b);
		struct calibrate_fit in;
		double s = select_band(r, n, mid, mid, smid, smid, v, &in);
		if (in.kept > fit->kept || (in.kept == fit->kept && in.run_ns < fit->run_ns)) {
			*fit = in;
			sum = s;
		}
	}
	return sum;
}

int calibrate_select_regime(const struct calibrate_probed_run *r, uint32_t n, double prefer_lo,
			    double prefer_hi, double prefer_slo, double prefer_shi,
			    struct calibrate_fit *fit)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	fit->kept = 0;
	if (prefer_hi > 0)
		select_band(r, n, prefer_lo, prefer_hi, prefer_slo, prefer_shi, v, fit);
	if (fit->kept == 0)
		select_populous(r, n, v, fit);
	if (fit->kept == 0) {	/* nothing probed: the median of all */
		fit->speed_lo = fit->speed_hi = 0;
		for (uint32_t i = 0; i < n; i++) {
			v[i] = r[i].ns;
			speed_range(&fit->speed_lo, &fit->speed_hi, r[i].speed_before,
				    r[i].speed_after);
		}
		fit->run_ns = n ? median(v, n) : 0;
		fit->c2c_lo = fit->c2c_hi = 0;
	}
	free(v);
	return 0;
}

double calibrate_at_fit_speed(double ns, double scale, double share)
{
	/* At the work fit's speed the share the compute speed governs took
	 * `part` (scale times its time now); the rest is lines moving
	 * between the cores, which the round-trip band holds. */
	double part = share > 0 ? fmin(share, ns * scale) : ns * scale;
	return ns + part * (1 - 1 / scale);
}

/*
 * The threads runs a figure is taken from, each with the round trip probed
 * before and after (between the CPUs two workers would run on: a slow
 * regime slows a 1-worker run too): until at least `reps` of them in one
 * regime add up to the calibration's runs_min_ns, or `cap` runs are made. The regime
 * is the calibration's when it has one, else the most populous; at the
 * cap, calibrate_select_regime's choice. The calibration's regime is the
 * first one its runs were taken in: the runs after keep to it where they
 * can.
 *
 * With `ref` (volt's 1-worker run of this workload at the work's fit),
 * each run is brought to the machine's speed then: volt's 1-worker run of
 * the workload is made just before it, between the same probes, and the
 * run is scaled by volt's then over volt's now: all of it, or with `share`
 * (ns, at that speed) only that much of it, the part the compute speed
 * governs (calibrate_at_fit_speed); the rest, lines moving between the
 * cores (a 2-worker run's lock handoffs and transfers), goes with the
 * round trip, which the regime holds. A pair a few hundred ms long sees
 * one state of the host, which drifts by a third over minutes within one
 * regime; the figure is the median of the scaled runs, and fit->scale the
 * median factor.
 */
static int regime_runs(const struct cal *c, struct calibration *cal, const struct policy *p,
		       uint32_t workers, const struct workload *wl, const double *pv, uint32_t reps,
		       uint32_t cap, const struct calibrate_work *ref, double share,
		       struct calibrate_fit *fit)
{
	const double prefer_lo = cal->regime_lo, prefer_hi = cal->regime_hi;
	const int k = workers >= 2;
	const double prefer_slo = cal->speed_lo[k], prefer_shi = cal->speed_hi[k];
	const double min_ns = (double)(cal->runs_min_ns ? cal->runs_min_ns : CALIBRATE_RUNS_MIN_NS);
	const struct policy *volt = policy_find("volt");
	struct calibrate_probed_run *r = calloc(cap, sizeof *r);
	double *v = calloc(cap, sizeof *v), *scale = calloc(cap, sizeof *scale);
	int32_t cpus[2];
	/* The probe between the CPUs the two workers run on. */
	const int32_t *place = default_cpus(2, cpus);
	int rc = 0;
	uint32_t n = 0;
	double all = 0;
	if (!r || !v || !scale) {
		free(r);
		free(v);
		free(scale);
		return -ENOMEM;
	}
	for (;;) {
		struct worker_stats st;
		uint64_t ns = 0, vns = 0;
		r[n].c2c_before = noise_c2c_ns(place, 2);
		r[n].speed_before = noise_speed_ns(place, workers);
		if (ref)
			rc = policy_run(volt, 1, wl, pv, NULL, &vns, &st);
		if (rc == 0)
			rc = policy_run(p, workers, wl, pv, NULL, &ns, &st);
		r[n].speed_after = noise_speed_ns(place, workers);
		r[n].c2c_after = noise_c2c_ns(place, 2);
		scale[n] = ref && vns ? ref->run_ns_per_poll * (double)ref->polls / (double)vns : 1;
		r[n].ns = calibrate_at_fit_speed((double)ns, scale[n], share);
		all += r[n].ns;
		n++;
		if (rc || n == cap)
			break;
		struct calibrate_fit in;
		double sum = prefer_hi > 0 ? select_band(r, n, prefer_lo, prefer_hi, prefer_slo,
							 prefer_shi, v, &in)
					   : select_populous(r, n, v, &in);
		if (!isfinite(r[n - 1].c2c_before)) {	/* no probe on this machine */
			in.kept = n;
			sum = all;
		}
		if (in.kept >= reps && sum >= min_ns)
			break;
	}
	if (rc == 0)
		rc = calibrate_select_regime(r, n, prefer_lo, prefer_hi, prefer_slo, prefer_shi, fit);
	fit->runs = n;
	fit->scale = n ? median(scale, n) : 1;
	if (rc == 0 && fit->kept < reps)
		say(c, "%s: only %u of %u %u-worker %s runs in one round-trip regime", p->name,
		    fit->kept, n, workers, wl->name);
	if (rc == 0 && cal->regime_hi == 0 && fit->kept) {
		cal->regime_lo = fit->c2c_lo;
		cal->regime_hi = fit->c2c_hi;
	}
	if (rc == 0 && cal->speed_hi[k] == 0 && fit->kept) {
		cal->speed_lo[k] = fit->speed_lo;
		cal->speed_hi[k] = fit->speed_hi;
	}
	free(r);
	free(v);
	free(scale);
	return rc;
}

/*
 * Fit the cost at `off` in cal->costs (a uint64_t of struct sim_costs) so
 * that the 2-worker sim of `p` on the workload lands on the median of its
 * 2-worker threads runs in the calibration's round-trip regime
 * (regime_runs): from 0 (if the sim is as slow as the run already, the cost
 * stays 0) and `first`, secant steps until within 2% (at most 6). The runs
 * are brought to the work fit's speed in the share the sim without the
 * cost accounts for: what the fitted cost is to explain, lines moving
 * between the cores, does not go with the compute speed (go's 2-worker
 * fib is two-thirds lock transfers), and scaling it as well moved the
 * figure by the drift of the host's speed.
 */
static int fit_2w(struct cal *c, struct calibration *cal, const struct policy *p,
		  const struct workload *wl, const double *pv, uint32_t reps, uint32_t cap,
		  size_t off, double first, const struct calibrate_work *ref,
		  struct calibrate_fit *fit)
{
	uint64_t sim;
	struct worker_stats st;
	memset(fit, 0, sizeof *fit);
	struct sim_costs costs = cal->costs;
	sim_costs_use_work(&costs, wl->name, wl->work_per_spawn);
	uint64_t *cost = (uint64_t *)((char *)&costs + off);
	*cost = 0;
	/* The sim without the figure: what the costs measured at the work
	 * fit's speed account for, the share of the runs brought to it. */
	int rc = policy_run(p, 2, wl, pv, &costs, &sim, &st);
	if (rc)
		return rc;
	double x0 = 0, x1 = first, s0 = (double)sim, s1 = s0, x = 0;
	if ((rc = regime_runs(c, cal, p, 2, wl, pv, reps, cap, ref, s0, fit)))
		return rc;
	double run = fit->run_ns;
	fit->sim0_ns = s0;
	if (s0 < run) {
		for (int k = 0; k < 6; k++) {
			*cost = whole_ns(x1);
			if ((rc = policy_run(p, 2, wl, pv, &costs, &sim, &st)))
				return rc;
			s1 = (double)sim;
			x = x1;
			if (fabs(s1 - run) < 0.02 * run || s1 == s0)
				break;
			double next = x1 + (run - s1) * (x1 - x0) / (s1 - s0);
			x0 = x1;
			s0 = s1;
			x1 = fmin(fmax(next, 1), (double)SIM_COST_MAX_NS);
		}
	}
	fit->fitted = true;
	fit->policy = p->name;
	fit->sim_ns = s1;
	*(uint64_t *)((char *)&cal->costs + off) = x < 1 ? 0 : whole_ns(x);
	return 0;
}

int calibrate_policies(struct calibration *cal, uint32_t reps, FILE *log)
{
	static const struct calibrate_work_spec fit = { CALIBRATE_FIT_WORKLOAD,
							CALIBRATE_FIT_PARAMS };
	return calibrate_policies_of(cal, reps, log, &fit, NULL, CALIBRATE_FIT_LOCK_POLICY);
}

int calibrate_policy_sim_run(const struct calibrate_work_spec *spec, const char *policy,
			     uint32_t workers, const struct sim_costs *costs, uint64_t *ns,
			     uint64_t *polls)
{
	const struct workload *wl = workload_find(spec->workload);
	const struct policy *p = policy_find(policy);
	double pv[64];
	struct worker_stats st;
	if (!wl || !p || wl->nparams > 64 || work_params(wl, spec->params, pv) != 0)
		return -EINVAL;
	struct sim_costs c = *costs;
	sim_costs_use_work(&c, wl->name, wl->work_per_spawn);
	int rc = policy_run(p, workers, wl, pv, &c, ns, &st);
	*polls = st.polls;
	return rc;
}

/* Is `name` among `names` (NULL-terminated; NULL: every name)? */
static bool listed(const char *const *names, const char *name)
{
	if (!names)
		return true;
	for (; *names; names++)
		if (strcmp(*names, name) == 0)
			return true;
	return false;
}

int calibrate_policies_of(struct calibration *cal, uint32_t reps, FILE *log,
			  const struct calibrate_work_spec *fit, const char *const *policies,
			  const char *lock_policy)
{
	struct cal c = { .log = log };
	const struct workload *wl = workload_find(fit->workload);
	double pv[64];
	reps = reps ? reps : 1;
	uint32_t cap = runs_cap(cal, reps);
	CHECK(wl && wl->nparams <= 64);
	if (work_params(wl, fit->params, pv) != 0)
		return -EINVAL;
	cal->fit = *fit;
	/* The sim's costs as the file gives them, the workloads' work with
	 * them (whole ns, as written). */
	for (uint32_t i = 0; i < cal->nwork; i++) {
		char name[64];
		snprintf(name, sizeof name, "work.%s", cal->work[i].workload);
		CHECK(sim_costs_set(&cal->costs, name, whole_ns(cal->work[i].ns)) == 0);
	}
	struct sim_costs costs = cal->costs;
	cal->poll_base = cal->costs;
	sim_costs_use_work(&costs, wl->name, wl->work_per_spawn);
	cal->npolicy = 0;
	/* Volt's run at the work's fit, when it was of this very workload:
	 * each policy's run is brought to the machine's speed then, measured
	 * by a volt run just before it (on this machine a 1-worker fib's ns
	 * per poll moves by a third within minutes, within one round-trip
	 * regime), so that poll.NAME holds the policy's difference and not
	 * the machine's. */
	const struct calibrate_work *ref = NULL;
	for (uint32_t i = 0; i < cal->nwork; i++)
		if (strcmp(cal->work[i].workload, wl->name) == 0 &&
		    (cal->work[i].params == fit->params ||
		     (cal->work[i].params && fit->params &&
		      strcmp(cal->work[i].params, fit->params) == 0)) &&
		    cal->work[i].polls && cal->work[i].run_ns_per_poll > 0)
			ref = &cal->work[i];
	int rc = 0;
	for (size_t i = 0; policy_table[i] && rc == 0; i++) {
		const struct policy *p = policy_table[i];
		/* volt's is 0 by construction: the work is measured under it. */
		if (p->test_only || strcmp(p->name, "volt") == 0 || !listed(policies, p->name) ||
		    cal->npolicy == CALIBRATE_POLICIES)
			continue;
		struct calibrate_policy *cp = &cal->policy[cal->npolicy];
		uint64_t sim;
		struct worker_stats st;
		struct calibrate_fit rf;
		memset(cp, 0, sizeof *cp);
		rc = regime_runs(&c, cal, p, 1, wl, pv, reps, cap, ref, 0, &rf);
		if (rc == 0)
			rc = policy_run(p, 1, wl, pv, &costs, &sim, &st);
		if (rc)
			break;
		double polls = st.polls ? (double)st.polls : 1;
		cp->policy = p->name;
		/* The run and volt's beside it, per poll, at the median factor:
		 * what the file shows; the figure is from the scaled runs. */
		cp->target_ns_per_poll = rf.run_ns / polls;
		cp->run_ns_per_poll = cp->target_ns_per_poll / rf.scale;
		cp->volt_ns_per_poll = ref ? ref->run_ns_per_poll / rf.scale : 0;
		cp->sim_ns_per_poll = (double)sim / polls;
		cp->ns = cp->target_ns_per_poll - cp->sim_ns_per_poll;
		char name[64];
		snprintf(name, sizeof name, "poll.%s", p->name);
		CHECK(sim_costs_set(&cal->costs, name, (uint64_t)llround(cp->ns)) == 0);
		char beside[128] = "no volt run of it at the work's fit to scale by";
		if (ref)
			snprintf(beside, sizeof beside, "volt's beside them %.1f, so %.1f at the "
				 "work's fit", cp->volt_ns_per_poll, cp->target_ns_per_poll);
		say(&c, "poll.%s: %.1f ns per poll (median of %u 1-worker %s runs %.1f ns per poll, "
		    "%s; the sim %.1f)", p->name, cp->ns, rf.runs, wl->name, cp->run_ns_per_poll,
		    beside, cp->sim_ns_per_poll);
		cal->npolicy++;
	}
	if (rc || cal->cpus < 2 || !lock_policy)
		return rc;

	/*
	 * contended: volt's 2-worker run, whose tasks migrate through the
	 * global queue and whose joins arrive from the other worker, against
	 * the sim of it at the costs above; then lock_transfer: go's, whose
	 * every schedule takes the global queue's lock (wakep), with the
	 * contended figure just fitted. Each searched for by secant steps
	 * until the sim lands within 2% of the median run in the
	 * calibration's round-trip regime (regime_runs).
	 */
	const struct policy *vp = policy_find("volt");
	/* Runs a 2-worker fit makes at most, looking for `reps` in one regime. */
	uint32_t cap2 = reps * 4 > 12 ? reps * 4 : 12;
	char how[160];
	CHECK(vp);
	/* Each brought to the machine's speed at the work's fit, as poll.NAME:
	 * else the figure takes in how far that moved since, over the few
	 * events it prices (contended came out at 0 to 93 ns in calibrations
	 * of one evening without this). */
	rc = fit_2w(&c, cal, vp, wl, pv, reps, cap2, offsetof(struct sim_costs, contended), 60,
		    ref, &cal->contended_fit);
	if (rc)
		return rc;
	say(&c, "contended: %llu ns per migrated cold start or remote join (%s's 2-worker %s run "
	    "%.1f ms at the work fit's speed, factor %.2f, %s; the sim %.1f ms with it, %.1f ms "
	    "without)", (unsigned long long)cal->costs.contended, vp->name, wl->name,
	    cal->contended_fit.run_ns / 1e6, cal->contended_fit.scale,
	    fit_runs_text(&cal->contended_fit, how, sizeof how),
	    cal->contended_fit.sim_ns / 1e6, cal->contended_fit.sim0_ns / 1e6);
	const struct policy *go = policy_find(lock_policy);
	CHECK(go);
	struct calibrate_fit *lf = &cal->lock_fit;
	rc = fit_2w(&c, cal, go, wl, pv, reps, cap2, offsetof(struct sim_costs, lock_transfer),
		    fmax(cal->ns.lock_transfer, 1) * 4, ref, lf);
	if (rc)
		return rc;
	cal->lock_fitted = true;
	say(&c, "lock_transfer: %llu ns per taking after another worker (%s's 2-worker %s run "
	    "%.1f ms at the work fit's speed, factor %.2f, %s; the sim %.1f ms with it, %.1f ms "
	    "without; the queue's lines alone %.1f ns)", (unsigned long long)cal->costs.lock_transfer,
	    go->name, wl->name, lf->run_ns / 1e6, lf->scale,
	    fit_runs_text(lf, how, sizeof how), lf->sim_ns / 1e6,
	    lf->sim0_ns / 1e6, cal->ns.lock_transfer);
	return 0;
}
