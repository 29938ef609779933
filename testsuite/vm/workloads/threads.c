/* threads [N]: start N threads (default 4), each of which exits at
 * once, and join them, for process.thread.* probes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *run(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4;

	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, run, NULL) || pthread_join(t, NULL)) {
			fprintf(stderr, "threads: thread %ld failed\n", i);
			return 1;
		}
	}
	return 0;
}
