/* costs.c - the simulation cost table (costs.h). */
#include "costs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sim_costs_default(struct sim_costs *c)
{
	memset(c, 0, sizeof *c);
#define X(name, def, help) c->name = def;
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
}

static int named_find(const struct sim_named_cost *v, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Set NAME's entry, adding it if it is new; -1 if the table is full. */
static int named_set(struct sim_named_cost *v, uint32_t *n, const char *name, uint64_t ns)
{
	int i = named_find(v, *n, name);
	if (i < 0) {
		if (*n == SIM_WORK_MAX)
			return -1;
		i = (int)(*n)++;
		snprintf(v[i].name, SIM_WORK_NAME, "%s", name);
	}
	v[i].ns = ns;
	return 0;
}

void sim_costs_use_work(struct sim_costs *c, const char *name, bool per_spawn)
{
	int i = named_find(c->works, c->nwork, name);
	c->work = i < 0 ? 0 : c->works[i].ns;
	c->work_per_spawn = per_spawn;
}

int64_t sim_costs_policy_poll(const struct sim_costs *c, const char *name)
{
	int i = named_find(c->policies, c->npolicy, name);
	int64_t v = i < 0 ? 0 : (int64_t)c->policies[i].ns;
	int64_t floor = -(int64_t)(c->poll + (c->work_per_spawn ? 0 : c->work));
	return v < floor ? floor : v;
}

int sim_costs_set(struct sim_costs *c, const char *name, uint64_t ns)
{
#define X(n, def, help)                                                      \
	if (strcmp(name, #n) == 0) {                                         \
		c->n = ns;                                                   \
		return 0;                                                    \
	}
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	if (strcmp(name, "causal") == 0) {
		c->acausal = ns == 0;	/* a switch: 0 off, any other value on */
		return 0;
	}
	if (strcmp(name, "span") == 0) {
		c->no_span = ns == 0;	/* a switch, as causal */
		return 0;
	}
	if (strcmp(name, "io_poll") == 0) {
		c->io_poll = ns != 0;	/* a switch, default off */
		return 0;
	}
	if (strcmp(name, "horizon") == 0) {
		c->no_horizon = ns == 0;	/* a switch, as causal */
		return 0;
	}
	if (strcmp(name, "task_list") == 0) {
		c->task_list = ns != 0;	/* a switch, default off */
		return 0;
	}
	if (strcmp(name, "sema_table") == 0) {
		c->sema_table = ns != 0;	/* a switch, default off */
		return 0;
	}
	size_t len = strlen(name);
	if (len > 5 && len - 5 < SIM_WORK_NAME) {
		if (strncmp(name, "work.", 5) == 0)
			return named_set(c->works, &c->nwork, name + 5, ns);
		if (strncmp(name, "poll.", 5) == 0)
			return named_set(c->policies, &c->npolicy, name + 5, ns);
	}
	return -1;
}

/* The switches (sim_costs_set), which a cost file may set too. */
static const char *const switch_names[] = { "causal", "span", "io_poll", "horizon",
					    "task_list", "sema_table" };
#define NSWITCHES (sizeof switch_names / sizeof switch_names[0])

void sim_costs_names(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
#define X(n, def, help)                                                                  \
	if (off < len)                                                                   \
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", #n);
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	for (size_t k = 0; k < NSWITCHES && off < len; k++)
		off += (size_t)snprintf(buf + off, len - off, ", %s", switch_names[k]);
	if (off < len)
		snprintf(buf + off, len - off, ", work.WORKLOAD, poll.POLICY");
}

int sim_cost_parse(const char *text, uint64_t *out)
{
	uint64_t v = 0;

	if (!text[0])
		return -1;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > SIM_COST_MAX_NS)
			return -1;
	}
	*out = v;
	return 0;
}

int sim_cost_parse_for(const char *name, const char *text, uint64_t *out)
{
	if (strncmp(name, "poll.", 5) != 0 || text[0] != '-')
		return sim_cost_parse(text, out);
	uint64_t v;
	if (sim_cost_parse(text + 1, &v))
		return -1;
	*out = (uint64_t)-(int64_t)v;
	return 0;
}

const char *sim_cost_range(const char *name)
{
	return strncmp(name, "poll.", 5) == 0 ? "[-10000000, 10000000]" : "[0, 10000000]";
}

_Static_assert(SIM_COST_MAX_NS == 10000000ull, "sim_cost_range spells the bound out");

static int cost_index(const char *name)
{
	int i = 0;
#define X(n, def, help)                                                      \
	if (strcmp(name, #n) == 0)                                           \
		return i;                                                    \
	i++;
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	/* Then the switches, after the costs. */
	for (size_t k = 0; k < NSWITCHES; k++)
		if (strcmp(name, switch_names[k]) == 0)
			return i + (int)k;
	return -1;
}

/* Read the whole file, at most SIM_COSTS_FILE_MAX bytes: /dev/zero and a
 * never-ending pipe are refused, not read forever. */
static int read_bounded(const char *path, char *buf, size_t *n, char *err, size_t len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, len, "cannot read cost file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		snprintf(err, len, "cannot read cost file %s: it is a directory", path);
		return -1;
	}
	*n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + *n, SIM_COSTS_FILE_MAX + 1 - *n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, len, "cannot read cost file %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		*n += (size_t)r;
		if (*n > SIM_COSTS_FILE_MAX) {
			close(fd);
			snprintf(err, len, "cost file %s: larger than %d bytes (not a cost file?)",
				 path, SIM_COSTS_FILE_MAX);
			return -1;
		}
	}
	close(fd);
	return 0;
}

/*
 * One line, comment already cut: blank, or `name = ns` with optional
 * blanks around each part. 1 for a cost, 0 for a blank line, -1 with the
 * reason in err.
 */
static int parse_line(char *line, char *name, size_t nlen, uint64_t *ns, char *err, size_t len)
{
	char *p = line, *end;

	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (!*p)
		return 0;
	end = p;
	while ((*end >= 'a' && *end <= 'z') || (*end >= '0' && *end <= '9') || *end == '_' ||
	       *end == '.' || *end == '-')
		end++;
	if (end == p || (size_t)(end - p) >= nlen) {
		snprintf(err, len, "expected 'name = ns'");
		return -1;
	}
	memcpy(name, p, (size_t)(end - p));
	name[end - p] = '\0';
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '=') {
		snprintf(err, len, "expected 'name = ns'");
		return -1;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	end = p;
	while (*end && *end != ' ' && *end != '\t' && *end != '\r')
		end++;
	for (char *q = end; *q; q++)
		if (*q != ' ' && *q != '\t' && *q != '\r') {
			snprintf(err, len, "expected 'name = ns', not '%.40s'", p);
			return -1;
		}
	*end = '\0';
	if (sim_cost_parse_for(name, p, ns)) {
		snprintf(err, len, "%.40s: '%.40s' is not a whole number of ns in %.24s", name, p,
			 sim_cost_range(name));
		return -1;
	}
	return 1;
}

int sim_costs_load(struct sim_costs *c, const char *path, char *err, size_t len)
{
	static char buf[SIM_COSTS_FILE_MAX + 1];
	bool seen[64 + 2 * SIM_WORK_MAX] = { false };
	char why[160], name[64];
	size_t n;
	int lineno = 0, costs = 0;

#define X(n, def, help) +1
	_Static_assert(0 SIM_COSTS(X) SIM_MODEL_COSTS(X) + NSWITCHES <= 64,
		       "seen[] too small (the costs and the switches)");
#undef X
	if (read_bounded(path, buf, &n, err, len))
		return -1;
	if (n == 0) {
		snprintf(err, len, "cost file %s is empty (expected 'name = ns' lines)", path);
		return -1;
	}
	if (memchr(buf, '\0', n)) {
		size_t at = (size_t)((char *)memchr(buf, '\0', n) - buf);
		int l = 1;
		for (size_t i = 0; i < at; i++)
			l += buf[i] == '\n';
		snprintf(err, len, "%s:%d: a NUL byte (not a text file)", path, l);
		return -1;
	}
	buf[n] = '\0';
	for (char *line = buf; line; ) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		uint64_t ns;
		int rc = parse_line(line, name, sizeof name, &ns, why, sizeof why);
		if (rc < 0) {
			snprintf(err, len, "%s:%d: %s", path, lineno, why);
			return -1;
		}
		if (rc > 0) {
			int k = cost_index(name);
			if (k < 0 && strncmp(name, "work.", 5) == 0) {
				if (sim_costs_set(c, name, 0)) {
					snprintf(err, len, "%s:%d: '%s': a bad or one too many "
						 "work.WORKLOAD cost (at most %d)", path, lineno, name,
						 SIM_WORK_MAX);
					return -1;
				}
				k = 64 + named_find(c->works, c->nwork, name + 5);
			}
			if (k < 0 && strncmp(name, "poll.", 5) == 0) {
				if (sim_costs_set(c, name, 0)) {
					snprintf(err, len, "%s:%d: '%s': a bad or one too many "
						 "poll.POLICY cost (at most %d)", path, lineno, name,
						 SIM_WORK_MAX);
					return -1;
				}
				k = 64 + SIM_WORK_MAX +
				    named_find(c->policies, c->npolicy, name + 5);
			}
			if (k < 0) {
				char names[512];
				sim_costs_names(names, sizeof names);
				snprintf(err, len, "%s:%d: unknown cost '%s' (valid: %s)", path,
					 lineno, name, names);
				return -1;
			}
			if (seen[k]) {
				snprintf(err, len, "%s:%d: cost '%s' given twice", path, lineno, name);
				return -1;
			}
			seen[k] = true;
			sim_costs_set(c, name, ns);
			costs++;
		}
		line = nl && nl[1] ? nl + 1 : NULL;
	}
	if (costs == 0) {
		snprintf(err, len, "cost file %s has no 'name = ns' line", path);
		return -1;
	}
	return 0;
}
