/* provenance.c - build, machine and run identification (provenance.h). */
#include "provenance.h"

#include "core/c2c.h"
#include "core/topo.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "build_info.h"
#include "git_rev.h"

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src && src[0] ? src : "unknown");
}

/* CMake joins flag variables with spaces, often leaving some at the ends. */
static void copy_trimmed(char *dst, size_t len, const char *src)
{
	size_t n;

	while (*src == ' ')
		src++;
	n = strlen(src);
	while (n > 0 && src[n - 1] == ' ')
		n--;
	snprintf(dst, len, "%.*s", (int)n, src);
}

#ifdef HARNESS_JEMALLOC
/* jemalloc's control interface, declared here rather than through
 * <jemalloc/jemalloc.h> so that the build does not depend on where (or
 * with which prefix) the distribution installs that header. */
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

static void *volatile probe_sink;

/*
 * Linking jemalloc is not proof that malloc() is jemalloc's (a preload or a
 * link order can route it elsewhere). thread.allocated counts the bytes this
 * thread obtained from jemalloc, so a malloc that does not move it went to
 * another allocator.
 */
static void allocator_name(char *buf, size_t len)
{
	const char *ver = NULL;
	size_t vlen = sizeof ver;
	uint64_t before = 0, after = 0;
	size_t ulen = sizeof before;

	if (mallctl("version", (void *)&ver, &vlen, NULL, 0) != 0 || !ver) {
		snprintf(buf, len, "unknown (built for %s, mallctl failed)", BUILD_ALLOCATOR);
		return;
	}
	if (mallctl("thread.allocated", &before, &ulen, NULL, 0) == 0) {
		probe_sink = malloc(4096);
		mallctl("thread.allocated", &after, &ulen, NULL, 0);
		free(probe_sink);
		probe_sink = NULL;
		if (after == before) {
			snprintf(buf, len, "not jemalloc (jemalloc %s linked, malloc bypasses it)",
				 ver);
			return;
		}
	}
	snprintf(buf, len, "jemalloc %s", ver);
}
#else
static void allocator_name(char *buf, size_t len)
{
	/* Sanitizer runtimes replace malloc; say so rather than claim glibc's. */
	if (BUILD_SANITIZE[0])
		snprintf(buf, len, "sanitizer allocator (%s)", BUILD_SANITIZE);
	else
		snprintf(buf, len, "glibc malloc");
}
#endif

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	copy(buf, len, NULL);
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		copy(buf, len, colon);
		break;
	}
	fclose(f);
}

static void kernel(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) != 0) {
		copy(buf, len, NULL);
		return;
	}
	snprintf(buf, len, "%s %s", u.sysname, u.release);
}

static void hostname(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		copy(buf, len, NULL);
	buf[len - 1] = '\0';
}

static int shell_safe(const char *s)
{
	if (!*s)
		return 0;
	return s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789_@%+=:,./-")] == '\0';
}

/*
 * An argument as a user at the working directory types it: a path under
 * `cwd` (the whole argument, or the value of --opt=VALUE) loses that
 * prefix, so that a result names build/harness and results/r.json, not a
 * directory of the machine that made it; one that would then start with
 * '-' gets "./" in front. Writes the argument to buf and returns buf, or
 * returns `s` itself when nothing changes (or it does not fit).
 */
static const char *relative_arg(const char *s, const char *cwd, size_t cwdlen, char *buf,
				size_t len)
{
	const char *eq = s[0] == '-' && s[1] == '-' ? strchr(s, '=') : NULL;
	const char *v = eq ? eq + 1 : s;
	int head = (int)(v - s);

	if (cwdlen < 2 || strncmp(v, cwd, cwdlen) != 0 || v[cwdlen] != '/' || !v[cwdlen + 1])
		return s;
	v += cwdlen + 1;
	if (snprintf(buf, len, "%.*s%s%s", head, s, v[0] == '-' ? "./" : "", v) >= (int)len)
		return s;
	return buf;
}

/* argv joined so that pasting it into a shell at the working directory
 * reruns the same command; paths under that directory relative to it. */
static char *join_argv(int argc, char **argv)
{
	char cwd[PATH_MAX], buf[PATH_MAX + 64];
	size_t cap = 1, cwdlen = 0;
	char *out, *p;

	if (getcwd(cwd, sizeof cwd))
		cwdlen = strlen(cwd);
	for (int i = 0; i < argc; i++)
		cap += 4 * strlen(argv[i]) + 5;
	out = malloc(cap);
	if (!out)
		return NULL;
	p = out;
	for (int i = 0; i < argc; i++) {
		const char *s = relative_arg(argv[i], cwd, cwdlen, buf, sizeof buf);

		if (i)
			*p++ = ' ';
		if (shell_safe(s)) {
			p = stpcpy(p, s);
			continue;
		}
		*p++ = '\'';
		for (; *s; s++) {
			if (*s == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}

/* The first line of a small file, trailing newline cut; false if none. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/*
 * Frequency scaling and the rest of the machine state a figure depends on:
 * the governors of the CPUs this process may use (distinct values, comma
 * separated), turbo or boost, the CPUs isolated from the scheduler, the load
 * average. Virtual machines often expose none of the first two.
 */
static void machine_state(struct provenance *pv)
{
	const struct topo *t = topo_machine();
	char path[128], val[64];
	pv->turbo = -1;
	if (t) {
		pv->has_topology = true;
		pv->packages = t->npackages;
		pv->numa_nodes = t->nnuma;
		pv->l3_domains = t->nl3;
		pv->cores = t->ncores;
		pv->cpus = t->npus;
		pv->threads_per_core = t->threads_per_core;
		snprintf(pv->topology_source, sizeof pv->topology_source, "%s", t->source);
	}
	long n = t ? (long)t->npus : pv->cores_online;
	for (long i = 0; i < n; i++) {
		int cpu = t ? t->cpu[i].os : (int)i;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
			 cpu);
		if (!read_line(path, val, sizeof val) || !val[0])
			continue;
		size_t used = strlen(pv->governor), vl = strlen(val);
		bool seen = false;
		for (const char *p = pv->governor; *p && !seen; p += strcspn(p, ","), p += *p == ',')
			seen = strncmp(p, val, vl) == 0 && (p[vl] == ',' || p[vl] == '\0');
		if (!seen && used + vl + 2 < sizeof pv->governor)
			snprintf(pv->governor + used, sizeof pv->governor - used, "%s%s",
				 used ? "," : "", val);
	}
	if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", val, sizeof val))
		pv->turbo = atoi(val) ? 0 : 1;
	else if (read_line("/sys/devices/system/cpu/cpufreq/boost", val, sizeof val))
		pv->turbo = atoi(val) ? 1 : 0;
	if (!read_line("/sys/devices/system/cpu/isolated", pv->isolated, sizeof pv->isolated))
		pv->isolated[0] = '\0';
	if (getloadavg(pv->loadavg, 3) != 3)
		pv->loadavg[0] = pv->loadavg[1] = pv->loadavg[2] = -1;
}

int provenance_collect(struct provenance *pv, int argc, char **argv, bool probe_c2c)
{
	struct tm tm;

	memset(pv, 0, sizeof *pv);
	copy(pv->git_revision, sizeof pv->git_revision, BUILD_GIT_REV);
	snprintf(pv->compiler, sizeof pv->compiler, "%s %s", BUILD_COMPILER_ID,
		 BUILD_COMPILER_VERSION);
	copy_trimmed(pv->cflags, sizeof pv->cflags, BUILD_CFLAGS);
	copy(pv->build_type, sizeof pv->build_type, BUILD_TYPE);
	copy_trimmed(pv->sanitize, sizeof pv->sanitize, BUILD_SANITIZE);
	allocator_name(pv->allocator, sizeof pv->allocator);
	cpu_model(pv->cpu_model, sizeof pv->cpu_model);
	pv->cores_online = sysconf(_SC_NPROCESSORS_ONLN);
	pv->pin = "none";
	/* Before the probe: the load average is the machine's, not ours. */
	machine_state(pv);
	/* Every multi-worker figure depends on this, and on a virtual machine
	 * it moves between regimes over minutes: take it right before the run. */
	pv->c2c_ns = -1;
	if (probe_c2c && pv->cores_online >= 2 && c2c_probe(0, 1, 20000, &pv->c2c_ns) != 0)
		pv->c2c_ns = -1;
	kernel(pv->kernel, sizeof pv->kernel);
	hostname(pv->hostname, sizeof pv->hostname);
	pv->start = time(NULL);
	gmtime_r(&pv->start, &tm);
	strftime(pv->timestamp_utc, sizeof pv->timestamp_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
	pv->command_line = join_argv(argc, argv);
	return pv->command_line ? 0 : -ENOMEM;
}

void provenance_free(struct provenance *pv)
{
	free(pv->command_line);
	pv->command_line = NULL;
}

void provenance_stamp(const struct provenance *pv, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&pv->start, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}
