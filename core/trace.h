/*
 * trace.h - a bounded per-worker event log for timelines (--trace).
 *
 * When a run is traced, each worker records its polls, its ticks (with the
 * polls, steals and global-queue tasks of the tick) and its parks into a
 * buffer allocated before the run; a full buffer stops recording and says
 * so. The harness writes the buffers as Chrome trace events, which Perfetto
 * and chrome://tracing open as one timeline row per worker. Untraced runs
 * pay one predictable branch per poll.
 */
#ifndef HARNESS_CORE_TRACE_H
#define HARNESS_CORE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

enum trace_kind { TRACE_POLL, TRACE_TICK, TRACE_PARK };

struct trace_event {
	uint64_t ts, dur;	/* engine ns */
	uint32_t kind;
	uint32_t a, b, c;	/* tick: polls, steals, global tasks; park: 1 if woken */
};

struct trace_buf {
	struct trace_event *ev;
	uint32_t len, cap;
	uint64_t dropped;	/* events that did not fit */
};

static inline void trace_add(struct trace_buf *t, uint32_t kind, uint64_t ts, uint64_t end,
			     uint32_t a, uint32_t b, uint32_t c)
{
	if (t->len == t->cap) {
		t->dropped++;
		return;
	}
	t->ev[t->len++] = (struct trace_event){ ts, end > ts ? end - ts : 0, kind, a, b, c };
}

#endif
