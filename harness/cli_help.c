/*
 * cli_help.c - what the command line prints about itself: the text of
 * --help, the man page written from the same text (cli_man), and --list
 * (cli.h). The options' table stays in cli.c (cli_opts.h reads it).
 */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

#include "core/knob.h"
#include "policies/policy.h"
#include "harness/cli_opts.h"
#include "workloads/workload.h"

/*
 * The text of --help and of the man page (cli_man): one source, so that
 * the two cannot drift apart.
 */
static const char *const synopsis[] = {
	"--policy=NAME --workload=NAME [options]",
	"--list | --help | --version",
	NULL,
};
static const char about_text[] =
	"Runs a workload under a scheduling policy: a sequential baseline and parallel trials in "
	"a seed-shuffled order, each verified. A summary goes to stdout, progress to stderr, the "
	"full result to a JSON file (by default under ./results).";
static const char variants_text[] =
	"Variants: --policy 'volt,volt:lifo_cap=0,volt:interval=61' runs three variants of volt, "
	"named volt, volt[lifo_cap=0] and volt[interval=61] in the tables and result files; --set "
	"lifo_cap=0,1,3 crosses every selected policy that has the knob with each value (several "
	"lists: every combination); --param load=0.5,0.9 crosses every variant with each value "
	"(named volt load=0.5, with a baseline per parameter set). All variants' trials run "
	"interleaved in one shuffled order.";
static const char names_text[] =
	"Enumerated knobs and parameters take names as well as numbers (--param dist=exponential, "
	"--param preset=T1, --set interval=adaptive, --set runnext=off); --list shows them.";
static const char files_text[] =
	"Output files (--json, --hdr, --trace, --calibrate) are checked before any work. - means "
	"stdout (the summary then goes to stderr); a FIFO or device is written in place, a "
	"regular file (also one a symbolic link points to) through a temporary file renamed over "
	"it at the end, keeping its mode; stderr is refused. A default result name is taken when "
	"the result is written: concurrent runs keep one file each.";
static const char exit_text[] =
	"Bad input exits 2 with one line on stderr, before any work; a failed run exits 1; a run "
	"the watchdog stopped exits 3; a signal leaves no temporary file behind.";

/* A paragraph wrapped at 78 columns, each line after `indent` spaces. */
static void wrap(FILE *f, const char *text, int indent)
{
	const char *p = text;
	int col = 0;

	while (*p) {
		size_t w = strcspn(p, " ");
		if (col && col + 1 + (int)w > 78 - indent) {
			fputc('\n', f);
			col = 0;
		}
		if (col == 0) {
			fprintf(f, "%*s", indent, "");
		} else {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

void cli_usage(FILE *f)
{
	for (size_t i = 0; synopsis[i]; i++)
		fprintf(f, "%s harness %s\n", i ? "      " : "usage:", synopsis[i]);
	fputc('\n', f);
	wrap(f, about_text, 0);
	fprintf(f, "\noptions (--opt=value or --opt value):\n");
	for (size_t i = 0; i < cli_opt_count(); i++) {
		const char *name, *arg, *help;
		char lhs[40];
		cli_opt_text(i, &name, &arg, &help);
		snprintf(lhs, sizeof lhs, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
		fprintf(f, "  %-22s %s\n", lhs, help);
	}
	fputc('\n', f);
	wrap(f, variants_text, 0);
	fputc('\n', f);
	wrap(f, names_text, 0);
	fputc('\n', f);
	wrap(f, files_text, 0);
	fputc('\n', f);
	wrap(f, exit_text, 0);
}

/* roff text: backslashes and hyphens escaped, no line starting a request. */
static void roff(FILE *f, const char *text)
{
	if (*text == '.' || *text == '\'')
		fputs("\\&", f);
	for (const char *p = text; *p; p++) {
		if (*p == '\\')
			fputs("\\e", f);
		else if (*p == '-')
			fputs("\\-", f);
		else
			fputc(*p, f);
	}
}

void cli_man(FILE *f, const char *version)
{
	fprintf(f, ".TH HARNESS 1 \"\" \"harness %s\" \"User Commands\"\n", version);
	fprintf(f, ".SH NAME\nharness \\- compare task\\-scheduling policies on equal terms\n");
	fprintf(f, ".SH SYNOPSIS\n");
	for (size_t i = 0; synopsis[i]; i++) {
		fprintf(f, "%s.B harness\n", i ? ".br\n" : "");
		roff(f, synopsis[i]);
		fputc('\n', f);
	}
	fprintf(f, ".SH DESCRIPTION\n");
	roff(f, about_text);
	fprintf(f, "\n.PP\n");
	roff(f, variants_text);
	fprintf(f, "\n.PP\n");
	roff(f, names_text);
	fprintf(f, "\n.PP\n");
	roff(f, files_text);
	fprintf(f, "\n.SH OPTIONS\n");
	for (size_t i = 0; i < cli_opt_count(); i++) {
		const char *name, *arg, *help;
		cli_opt_text(i, &name, &arg, &help);
		fprintf(f, ".TP\n.B ");
		roff(f, "--");
		roff(f, name);
		if (arg) {
			fputs(" \"", f);
			roff(f, arg);
			fputc('"', f);
		}
		fputc('\n', f);
		roff(f, help);
		fputc('\n', f);
	}
	fprintf(f, ".SH EXIT STATUS\n");
	roff(f, exit_text);
	fprintf(f, "\n.SH SEE ALSO\n");
	roff(f, "harness --list (policies, knobs, workloads, parameters); README.md and docs/ in "
		"the source tree.");
	fputc('\n', f);
}

static void knob_range(const struct knob_def *d, char *buf, size_t len)
{
	snprintf(buf, len, d->integer ? "%.15g..%.15g" : "[%.15g, %.15g]", d->min, d->max);
}

/* name, default, range (a..b for integers, [a, b] for reals), help and the
 * value names if any; aligned. */
static void list_knobs(FILE *f, const struct knob_def *defs, size_t n,
		       const struct knob_enum *enums)
{
	int wn = 0, wd = 0, wr = 0;
	char def[32], range[64], names[512];

	for (size_t i = 0; i < n; i++) {
		int a = (int)strlen(defs[i].name);
		knob_format(knob_names(enums, &defs[i]), defs[i].def, def, sizeof def);
		int b = (int)strlen(def);
		knob_range(&defs[i], range, sizeof range);
		wn = a > wn ? a : wn;
		wd = b > wd ? b : wd;
		wr = (int)strlen(range) > wr ? (int)strlen(range) : wr;
	}
	for (size_t i = 0; i < n; i++) {
		const struct knob_name *kn = knob_names(enums, &defs[i]);
		knob_format(kn, defs[i].def, def, sizeof def);
		knob_range(&defs[i], range, sizeof range);
		fprintf(f, "    %-*s  %-*s  %-*s  %s", wn, defs[i].name, wd, def, wr, range,
			defs[i].help ? defs[i].help : "");
		if (kn) {
			knob_names_list(kn, names, sizeof names);
			fprintf(f, " [names: %s]", names);
		}
		fputc('\n', f);
	}
	if (n == 0)
		fprintf(f, "    (none)\n");
}

void cli_list(FILE *f)
{
	fprintf(f, "policies (knobs: --set NAME=VALUE; columns: name, default, range, meaning):\n");
	for (size_t i = 0; i < policy_count(); i++) {
		const struct policy *p = policy_table[i];
		fprintf(f, "  %s - %s%s\n", p->name, p->test_only ? "[kept for tests, not in all] " : "",
			p->summary ? p->summary : "");
		list_knobs(f, p->knobs, p->nknobs, p->knob_names);
	}
	fprintf(f, "\nreal-only policies (no model: --engine=real runs the runtime itself, "
		"refused by the threads and sim engines):\n");
	for (size_t i = 0; policy_real_only[i]; i++)
		fprintf(f, "  %s - %s\n", policy_real_only[i]->name, policy_real_only[i]->summary);
	fprintf(f, "\nworkloads (parameters: --param NAME=VALUE; same columns):\n");
	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload *wl = workload_table[i];
		fprintf(f, "  %s - %s (sched delay sampled 1 in %" PRIu32 " by default)\n",
			wl->name, wl->summary ? wl->summary : "", wl->sample_period);
		list_knobs(f, wl->params, wl->nparams, wl->param_names);
	}
}
