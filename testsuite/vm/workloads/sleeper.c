/* sleeper [MS [TIMES]]: sleep MS milliseconds (default 100) TIMES times
 * (default 1), for -c runs that must outlive a timer, and scheduler
 * probes. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;
	long times = argc > 2 ? atol(argv[2]) : 1;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	for (long i = 0; i < times; i++)
		while (nanosleep(&ts, &ts) != 0)
			;
	return 0;
}
