/*
 * man.c - writes harness.1, the man page, from the text of --help
 * (cli_man); built and run by CMake, installed by `cmake --install`.
 */
#include <stdio.h>

#include "build_info.h"
#include "cli.h"

int main(void)
{
	cli_man(stdout, HARNESS_VERSION);
	return fflush(stdout) == 0 ? 0 : 1;
}
