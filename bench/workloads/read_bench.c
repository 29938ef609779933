/* read_bench [N [ROUNDS]]: ROUNDS rounds (default 1) of N one-byte read()s
 * of /dev/zero (default 100000), each round timed with CLOCK_MONOTONIC;
 * prints the median cost of one call as getppid_bench does:
 *
 *   ns/call MEDIAN min MIN max MAX rounds ROUNDS n N
 *
 * Each read() goes through vfs_read(): bench/runtime probes its entry
 * and its return.  /dev/zero answers without touching a disk, so the
 * figure is the call's path and the probe's.  A static program. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int rounds = argc > 2 ? atoi(argv[2]) : 1;
	double per_call[64];
	char c;
	int fd;

	if (n < 1 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: read_bench [N [ROUNDS (1-64)]]\n");
		return 2;
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("read_bench: /dev/zero");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (long i = 0; i < n; i++)
			if (read(fd, &c, 1) != 1) {
				perror("read_bench: read");
				return 1;
			}
		per_call[r] = (now_ns() - t0) / n;
	}
	qsort(per_call, rounds, sizeof per_call[0], cmp_double);
	printf("ns/call %.1f min %.1f max %.1f rounds %d n %ld\n",
	       rounds % 2 ? per_call[rounds / 2]
			  : (per_call[rounds / 2 - 1] + per_call[rounds / 2]) / 2,
	       per_call[0], per_call[rounds - 1], rounds, n);
	return 0;
}
