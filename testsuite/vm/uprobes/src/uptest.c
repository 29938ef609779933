/* uptest N [MS]: calls square(i) and, through the PLT, getppid() N
 * times, MS milliseconds apart (default 0), then sum_squares(N) and
 * tri(N) (recursive) and prints what it summed.
 * With UPTEST_GO=FILE in the environment it first waits (up to 20 s)
 * until FILE exists, so a case can start it before the probes and let
 * it go after.  The uprobes suite probes it (testsuite/vm/uprobes/). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int square(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * x;
}

__attribute__((noinline)) long sum_squares(int n)
{
	long s = 0;

	for (int i = 1; i <= n; i++)
		s += square(i);
	return s;
}

/* recursive: n + (n - 1) + ... + 0; each level its own return */
__attribute__((noinline)) long tri(int n)
{
	long r;

	if (n <= 0)
		return 0;
	r = tri(n - 1);
	__asm__ volatile("" : "+r"(r));   /* no turning it into a loop */
	return n + r;
}

volatile long uptest_sink;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int ms = argc > 2 ? atoi(argv[2]) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	const char *go = getenv("UPTEST_GO");
	long total = 0;

	for (int i = 0; go && access(go, F_OK) != 0; i++) {
		struct timespec tick = { 0, 10000000L };
		if (i == 2000) {
			fprintf(stderr, "uptest: %s never appeared\n", go);
			return 3;
		}
		nanosleep(&tick, NULL);
	}
	for (int i = 1; i <= n; i++) {
		total += square(i);
		if (getppid() < 0)
			return 2;
		if (ms)
			nanosleep(&ts, NULL);
	}
	uptest_sink = tri(n);
	printf("uptest: %d calls, total %ld, sum_squares %ld\n", n, total,
	       sum_squares(n));
	return 0;
}
