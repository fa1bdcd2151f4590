/* registry.c - every policy the harness knows, in --list order. */
#include <string.h>

#include "policies/policy.h"
#include "policies/go.h"
#include "policies/tokio.h"
#include "policies/volt.h"

extern const struct policy policy_central, policy_static_partition, policy_locality;
extern const struct policy policy_blumofe_leiserson, policy_rayon, policy_tokio_broken;

const struct policy *const policy_table[] = {
	&policy_volt,
	&policy_volt_broken,	/* test-only: listed apart, not in --policy=all */
	&policy_volt_timeout_race,	/* test-only */
	&policy_volt_ring_early_release,	/* test-only */
	&policy_volt_ring_early_publish,	/* test-only */
	&policy_fixed_interval_61,
	&policy_steal_one,
	&policy_tokio,
	&policy_tokio_1_28,
	&policy_tokio_broken,	/* test-only */
	&policy_go,
	&policy_central,
	&policy_static_partition,
	&policy_locality,
	&policy_blumofe_leiserson,
	&policy_rayon,
	NULL,
};

/*
 * oneTBB 2021 (Debian's libtbb-dev): a work-stealing runtime the harness
 * has no model of, measured through its peer program (peers/tbb) beside
 * the models as an outside reference. No hooks: --engine=real only.
 */
static const struct policy policy_tbb = {
	.name = "tbb",
	.summary = "oneTBB 2021 itself (no model): task_group fork-join, run by --engine=real only "
		   "as an outside reference (peers/README.md)",
	.peer = "tbb",
	.real_only = true,
};

const struct policy *const policy_real_only[] = {
	&policy_tbb,
	NULL,
};

size_t policy_count(void)
{
	return sizeof policy_table / sizeof policy_table[0] - 1;
}

const struct policy *policy_find(const char *name)
{
	for (size_t i = 0; policy_table[i]; i++)
		if (strcmp(policy_table[i]->name, name) == 0)
			return policy_table[i];
	return NULL;
}

const struct policy *policy_find_real_only(const char *name)
{
	for (size_t i = 0; policy_real_only[i]; i++)
		if (strcmp(policy_real_only[i]->name, name) == 0)
			return policy_real_only[i];
	return NULL;
}
