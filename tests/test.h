/*
 * test.h - assertions for the test programs. Each test binary is one ctest
 * test; a failed assertion prints both sides with file and line and exits 1.
 * These never compile away (tests are built with NDEBUG in Release too).
 */
#ifndef HARNESS_TESTS_TEST_H
#define HARNESS_TESTS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_FAIL(...)                                                       \
	do {                                                                 \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);              \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
		exit(1);                                                     \
	} while (0)

#define ASSERT(cond)                                                         \
	do {                                                                 \
		if (!(cond))                                                 \
			TEST_FAIL("assertion failed: %s", #cond);            \
	} while (0)

#define ASSERT_EQ(a, b)                                                      \
	do {                                                                 \
		long long _a = (long long)(a), _b = (long long)(b);          \
		if (_a != _b)                                                \
			TEST_FAIL("%s == %s: %lld != %lld", #a, #b, _a, _b); \
	} while (0)

#define ASSERT_U64_EQ(a, b)                                                  \
	do {                                                                 \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);             \
		if (_a != _b)                                                \
			TEST_FAIL("%s == %s: %" PRIu64 " != %" PRIu64, #a,   \
				  #b, _a, _b);                               \
	} while (0)

#define ASSERT_NEAR(a, b, tol)                                               \
	do {                                                                 \
		double _a = (double)(a), _b = (double)(b), _t = (double)(tol); \
		if (!(_a - _b <= _t && _b - _a <= _t))                       \
			TEST_FAIL("%s ~= %s: %.9g vs %.9g (tol %.3g)", #a,   \
				  #b, _a, _b, _t);                           \
	} while (0)

#define ASSERT_STR_EQ(a, b)                                                  \
	do {                                                                 \
		const char *_a = (a), *_b = (b);                             \
		if (strcmp(_a, _b) != 0)                                     \
			TEST_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, _a,  \
				  _b);                                       \
	} while (0)

/* Run one named check and say so on stderr (progress, not a result). */
#define RUN(fn)                                                              \
	do {                                                                 \
		fprintf(stderr, "  %s\n", #fn);                              \
		fn();                                                        \
	} while (0)

#endif
