/*
 * tokio_internal.h - tokio.c's policy operations, shared with the
 * test-only variant in tokio_broken.c (not for other code).
 */
#ifndef HARNESS_POLICIES_TOKIO_INTERNAL_H
#define HARNESS_POLICIES_TOKIO_INTERNAL_H

#include "policies/tokio.h"

extern const struct knob_def tokio_knobs[TOKIO_NKNOBS];
extern const struct knob_enum tokio_names[];

int tokio_check(const struct rt_config *cfg, const double *k, char *err, size_t len);
int tokio_init(struct runtime *rt);
void tokio_destroy(struct runtime *rt);
void tokio_schedule_local(struct worker *w, struct task *t, enum sched_kind kind);
void tokio_schedule_remote(struct runtime *rt, struct task *t);
uint32_t tokio_tick_begin(struct worker *w);
struct task *tokio_find_work(struct worker *w);
void tokio_tick_end(struct worker *w, uint32_t polls, uint64_t elapsed_ns);
bool tokio_park(struct worker *w, uint64_t *timeout_ns);
void tokio_unparked(struct worker *w, enum park_wake how);
void tokio_idle_state(struct runtime *rt, struct policy_idle *out);
const char *tokio_check_idle(struct runtime *rt);
void tokio_dump(struct runtime *rt, FILE *f);

/* tokio-broken: hold the driver role where rt_wake_timekeeper does not
 * look (after tokio_init). */
void tokio_hide_driver(struct runtime *rt);

#endif
