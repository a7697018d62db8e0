/* Minimal checks for the simulator's C unit tests: one line per failed
 * check, a closing "N passed, N failed" line, exit status 1 on failure. */
#ifndef SIM_TEST_CHECK_H
#define SIM_TEST_CHECK_H

#include <stdio.h>

static unsigned int n_pass, n_fail;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (cond) {                                                           \
			n_pass++;                                                     \
		} else {                                                              \
			n_fail++;                                                     \
			printf("FAIL %s:%d: %s\n", __func__, __LINE__, #cond);        \
		}                                                                     \
	} while (0)

#define CHECK_EQ(a, b)                                                                \
	do {                                                                          \
		unsigned long long a_ = (unsigned long long)(a);                      \
		unsigned long long b_ = (unsigned long long)(b);                      \
		if (a_ == b_) {                                                       \
			n_pass++;                                                     \
		} else {                                                              \
			n_fail++;                                                     \
			printf("FAIL %s:%d: %s == %s (%llu != %llu)\n", __func__,     \
			       __LINE__, #a, #b, a_, b_);                             \
		}                                                                     \
	} while (0)

static inline int check_summary(void)
{
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}

#endif
