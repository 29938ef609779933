/* clock_now - print CLOCK_REALTIME in ns: the moment a command starts,
 * on the clock gettimeofday_ns() reads in a probe (bench/arming). */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("cmd %lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
