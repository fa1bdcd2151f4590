/* costs.c - the simulation cost table (costs.h). */
#include "costs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_costs_default(struct sim_costs *c)
{
#define X(name, def, help) c->name = def;
	SIM_COSTS(X)
#undef X
}

int sim_costs_set(struct sim_costs *c, const char *name, uint64_t ns)
{
#define X(n, def, help)                                                      \
	if (strcmp(name, #n) == 0) {                                         \
		c->n = ns;                                                   \
		return 0;                                                    \
	}
	SIM_COSTS(X)
#undef X
	return -1;
}

void sim_costs_names(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
#define X(n, def, help)                                                                  \
	if (off < len)                                                                   \
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", #n);
	SIM_COSTS(X)
#undef X
}

int sim_costs_load(struct sim_costs *c, const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, len, "cannot read cost file %s: %s", path, strerror(errno));
		return -1;
	}
	char line[256];
	int lineno = 0, rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char name[64];
		unsigned long long ns;
		char extra;
		if (sscanf(line, " %63[a-z_] = %llu %c", name, &ns, &extra) == 2) {
			if (sim_costs_set(c, name, ns) != 0) {
				char names[512];
				sim_costs_names(names, sizeof names);
				snprintf(err, len, "%s:%d: unknown cost '%s' (valid: %s)", path,
					 lineno, name, names);
				rc = -1;
			}
		} else if (strspn(line, " \t\r\n") != strlen(line)) {
			snprintf(err, len, "%s:%d: expected 'name = ns'", path, lineno);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}
