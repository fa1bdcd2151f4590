/*
 * report.h - what a run produces: the readable summary on stdout and the
 * result document (docs/results.md, schema version 1), written atomically.
 */
#ifndef HARNESS_REPORT_H
#define HARNESS_REPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

struct run_config;
struct run_result;
struct provenance;

#define RESULT_SCHEMA "harness-result"
#define RESULT_SCHEMA_VERSION 1

/* Before the run: what is about to be measured. */
/* The configuration header; ncfg > 1 lists every compared policy. */
void report_header(FILE *f, const struct run_config *cfg, size_t ncfg,
		   const struct provenance *pv);
/* The comparison table of several configurations run together. */
void report_compare(FILE *f, const struct run_config *cfg, const struct run_result *res,
		    size_t ncfg);
/* After the run: trials, medians, baseline, sched delay, counters. */
void report_summary(FILE *f, const struct run_config *cfg, const struct run_result *res);
/* The result document; NULL if memory ran out. */
json_t *report_json(const struct run_config *cfg, const struct run_result *res,
		    const struct provenance *pv);

/*
 * Write the result document to f (an outfile's stream: created before the
 * run, committed after it; outfile.h): compact, one line and a newline,
 * or with `indent` two spaces a level. 0, or -errno.
 */
int report_write(FILE *f, json_t *doc, bool indent);

/*
 * The default result name without its extension:
 * dir/<workload>-<policy>-<workers>w-<engine>-<stamp>. The file is made by
 * outfile_open_new, which appends -2, -3, ... if the name is taken when the
 * result is written, so that runs in the same second keep one file each.
 * Creates dir (and its parents) if missing. 0, or -errno with one line in
 * err.
 */
int result_default_stem(char *buf, size_t buflen, const char *dir, const char *workload,
			const char *policy, uint32_t workers, const char *engine,
			const char *stamp, char *err, size_t len);

#endif
