/* check.h - the assertion the translator's unit tests share: CHECK(cond)
 * reports a false condition with its place and counts it in `failures`,
 * which each test's main() turns into its exit status. */
#ifndef TAPC_TEST_CHECK_H
#define TAPC_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(c) \
	do { \
		if (!(c)) { \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			failures++; \
		} \
	} while (0)

#endif
