/* CHECK and CHECK_EQ of the C unit tests: a check that holds counts in
 * n_pass, one that does not counts in n_fail and prints one line
 * "FAIL <function>:<line>: <what>". The file that includes this declares
 * n_pass and n_fail (unsigned int). CHECK_EQ compares as unsigned long long
 * and prints both values in hex, or as CHECK_EQ_FMT says when that is
 * defined first. */
#ifndef RNIC_TESTS_CHECK_H
#define RNIC_TESTS_CHECK_H

#include <stdio.h>

#ifndef CHECK_EQ_FMT
#define CHECK_EQ_FMT "0x%llx != 0x%llx"
#endif

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
			printf("FAIL %s:%d: %s == %s (" CHECK_EQ_FMT ")\n", __func__, \
			       __LINE__, #a, #b, a_, b_);                             \
		}                                                                     \
	} while (0)

#endif
