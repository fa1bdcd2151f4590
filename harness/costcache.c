/* costcache.c - this machine's calibration cache entry (costcache.h). */
#include "costcache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void costcache_machine(char *host, size_t hlen, char *cpu, size_t clen)
{
	if (gethostname(host, hlen) != 0)
		snprintf(host, hlen, "unknown");
	host[hlen - 1] = '\0';
	snprintf(cpu, clen, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		const char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon++;
		colon += strspn(colon, " \t");
		snprintf(cpu, clen, "%.*s", (int)strcspn(colon, "\n"), colon);
		break;
	}
	fclose(f);
}

/* One part of the key: anything but [A-Za-z0-9.-] as '_'. */
static void key_part(char *out, size_t len, const char *in)
{
	size_t i = 0;
	for (; in[i] && i + 1 < len; i++) {
		char ch = in[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
		out[i] = ok ? ch : '_';
	}
	out[i] = '\0';
}

static int make_dir(const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		return 0;
	snprintf(err, errlen, "cannot create %.900s: %s", dir, strerror(errno));
	return -1;
}

int costcache_path(char *buf, size_t len, bool make, char *err, size_t errlen)
{
	char dir[4096], host[64], cpu[128], khost[64], kcpu[128];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	costcache_machine(host, sizeof host, cpu, sizeof cpu);
	key_part(khost, sizeof khost, host);
	key_part(kcpu, sizeof kcpu, cpu);
	/* The XDG base directory rule: a relative XDG_CACHE_HOME is ignored. */
	if (xdg && xdg[0] == '/') {
		n = snprintf(dir, sizeof dir, "%s/harness", xdg);
	} else if (home && home[0]) {
		n = snprintf(dir, sizeof dir, "%s/.cache/harness", home);
	} else {
		snprintf(err, errlen, "no calibration cache: neither XDG_CACHE_HOME nor HOME is set");
		return -1;
	}
	if (n < 0 || (size_t)n >= sizeof dir) {
		snprintf(err, errlen, "calibration cache path too long");
		return -1;
	}
	n = snprintf(buf, len, "%s/costs-%s-%s.txt", dir, khost, kcpu);
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "calibration cache path too long");
		return -1;
	}
	if (make) {
		char *slash = strrchr(dir, '/');
		*slash = '\0';
		int rc = make_dir(dir, err, errlen);	/* ~/.cache or XDG_CACHE_HOME */
		*slash = '/';
		if (rc || make_dir(dir, err, errlen))
			return -1;
	}
	return 0;
}
