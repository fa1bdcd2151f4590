/*
 * fail.h - one line of error, printf-style, into the caller's err[len],
 * returning rc (-errno), so that a caller can `return fail(-EINVAL, err,
 * len, ...)`: the driver's and the real engine's form (harness/driver.c,
 * harness/real.c). cli.c's has no return code and stays its own.
 */
#ifndef HARNESS_FAIL_H
#define HARNESS_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int fail(int rc, char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline int fail(int rc, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}

#endif
