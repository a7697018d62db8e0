/* Tiny check harness of the model unit tests: CHECK records a failure with
 * its location and goes on; each test program ends with mcheck_report(),
 * which prints "N passed, N failed" and returns the exit status. */
#ifndef MCHECK_H
#define MCHECK_H

#include <stdarg.h>
#include <stdio.h>

static int mcheck_passed, mcheck_failed, mcheck_case_failed;
static const char *mcheck_case_name;

#define CHECK(cond, ...)                                                              \
	do {                                                                              \
		if (!(cond)) {                                                                \
			mcheck_case_failed++;                                                     \
			printf("  %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);        \
			printf(__VA_ARGS__);                                                      \
			printf("\n");                                                             \
		}                                                                             \
	} while (0)

static inline void mcheck_begin(const char *name)
{
	mcheck_case_name = name;
	mcheck_case_failed = 0;
}

/* close a case: one PASS/FAIL line */
static inline int mcheck_end(void)
{
	int ok = mcheck_case_failed == 0;

	printf("%s %s\n", ok ? "PASS" : "FAIL", mcheck_case_name);
	fflush(stdout);
	if (ok)
		mcheck_passed++;
	else
		mcheck_failed++;
	return ok;
}

static inline int mcheck_report(void)
{
	printf("%d passed, %d failed\n", mcheck_passed, mcheck_failed);
	return mcheck_failed ? 1 : 0;
}

#endif
