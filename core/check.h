/*
 * check.h - assertions that never compile away.
 *
 * CHECK() guards invariants whose violation means the harness computed
 * something wrong (a task run twice, a queue index out of range). It stays
 * on under NDEBUG: a research tool that silently continues past a broken
 * invariant produces numbers nobody should trust. DCHECK() is for checks
 * too costly for the hot path of a measured run: on in debug builds and in
 * every build with HARNESS_DCHECKS defined (CMake defines it for the
 * sanitizer builds, so the test suite runs them), off in Release.
 */
#ifndef HARNESS_CORE_CHECK_H
#define HARNESS_CORE_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (__builtin_expect(!(cond), 0)) {                          \
			fprintf(stderr, "%s:%d: check failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
			abort();                                             \
		}                                                            \
	} while (0)

#define CHECK_MSG(cond, ...)                                                 \
	do {                                                                 \
		if (__builtin_expect(!(cond), 0)) {                          \
			fprintf(stderr, "%s:%d: check failed: %s: ",         \
				__FILE__, __LINE__, #cond);                  \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			abort();                                             \
		}                                                            \
	} while (0)

#if defined(NDEBUG) && !defined(HARNESS_DCHECKS)
#define DCHECK(cond) ((void)0)
#else
#define DCHECK(cond) CHECK(cond)
#endif

#define CACHE_LINE 64
#define CACHE_ALIGNED _Alignas(CACHE_LINE)

#endif
