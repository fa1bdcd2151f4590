/*
 * cli_opts.h - the options' table of cli.c, read by cli_help.c for the
 * usage text and the man page.
 */
#ifndef HARNESS_CLI_OPTS_H
#define HARNESS_CLI_OPTS_H

#include <stddef.h>

/* How many options there are. */
size_t cli_opt_count(void);

/* Option i's name (without the dashes), its argument's name for the usage
 * text (NULL for a flag) and its meaning. */
void cli_opt_text(size_t i, const char **name, const char **arg, const char **help);

#endif
