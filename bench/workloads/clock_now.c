/* clock_now [mono] - print CLOCK_REALTIME in ns: the moment a command
 * starts, on the clock gettimeofday_ns() reads in a probe (bench/arming).
 * With "mono", CLOCK_MONOTONIC: the clock bpftrace's nsecs reads. */
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;

	clock_gettime(argc > 1 && !strcmp(argv[1], "mono") ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
	printf("cmd %lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
