/* registry.c - every workload the harness knows, in --list order. */
#include <string.h>

#include "workloads/workload.h"

extern const struct workload workload_fib;
extern const struct workload workload_nqueens, workload_uts, workload_sort, workload_imbalanced;
extern const struct workload workload_spawn_many, workload_chained_spawn, workload_yield_many,
	workload_ping_pong;
extern const struct workload workload_open_loop;

const struct workload *const workload_table[] = {
	&workload_fib,
	&workload_spawn_many,
	&workload_chained_spawn,
	&workload_yield_many,
	&workload_ping_pong,
	&workload_nqueens,
	&workload_uts,
	&workload_sort,
	&workload_imbalanced,
	&workload_open_loop,
	NULL,
};

size_t workload_count(void)
{
	return sizeof workload_table / sizeof workload_table[0] - 1;
}

const struct workload *workload_find(const char *name)
{
	for (size_t i = 0; workload_table[i]; i++)
		if (strcmp(workload_table[i]->name, name) == 0)
			return workload_table[i];
	return NULL;
}
