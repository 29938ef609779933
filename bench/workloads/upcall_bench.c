/* upcall_bench N: calls a noinline function N times in a tight loop,
 * timed with clock_gettime(CLOCK_MONOTONIC), and prints
 * "ns/call X sum S".  bench/uprobes times it with and without a uprobe
 * on that function (upcall_target). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long upcall_target(long x)
{
	__asm__ volatile("" ::: "memory");
	return x ^ (x >> 3);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, sum = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		sum += upcall_target(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("ns/call %.1f sum %ld\n", n ? ns / n : 0.0, sum);
	return 0;
}
