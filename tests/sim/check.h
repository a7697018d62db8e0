/* Minimal checks for the simulator's C unit tests: one line per failed
 * check, a closing "N passed, N failed" line, exit status 1 on failure. */
#ifndef SIM_TEST_CHECK_H
#define SIM_TEST_CHECK_H

#include <stdio.h>

#define CHECK_EQ_FMT "%llu != %llu"
#include "../check.h"

static unsigned int n_pass, n_fail;

static inline int check_summary(void)
{
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

#endif
