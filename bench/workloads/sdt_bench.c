/* sdt_bench.c - bench/sdt's program: what an SDT marker costs.
 *
 *   sdt_bench MODE N    N iterations of a tiny loop body, timed with
 *                       clock_gettime; prints "ns/iter X guarded Y"
 *
 * MODE none: the body alone; nop: the body and an unguarded marker (a
 * nop while nothing probes it); guarded: the body and
 *   if (SDT_BENCH_HIT_ENABLED()) SDT_BENCH_HIT(i, sum)
 * whose semaphore is zero unless a tracer probes sdt_bench:hit.  Y counts
 * the iterations whose guarded code ran.  The markers come from the
 * probes/ kit (dtrace -h/-G sdt_bench.d, sys/sdt.h).
 */
#include "sdt_bench_probes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long sink;

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: sdt_bench none|nop|guarded N\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = atol(argv[2]), guarded = 0;
	long long t0 = now_ns();
	if (!strcmp(mode, "none")) {
		for (long i = 0; i < n; i++)
			sink += i;
	} else if (!strcmp(mode, "nop")) {
		for (long i = 0; i < n; i++) {
			sink += i;
			SDT_BENCH_NOP(i);
		}
	} else if (!strcmp(mode, "guarded")) {
		for (long i = 0; i < n; i++) {
			sink += i;
			if (SDT_BENCH_HIT_ENABLED()) {
				guarded++;
				SDT_BENCH_HIT(i, (long)sink);
			}
		}
	} else {
		fprintf(stderr, "sdt_bench: unknown mode %s\n", mode);
		return 2;
	}
	long long t1 = now_ns();
	printf("ns/iter %.2f guarded %ld\n", n ? (double)(t1 - t0) / n : 0.0, guarded);
	return 0;
}
