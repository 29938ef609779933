/* upinsn N: calls tap_triple(i) for i = 1..N, tap_one() and tap_trap()
 * once, and prints the sum (upinsn.S has the functions; insn.stp probes
 * them).  With UPINSN_GO=FILE in the environment it first waits (up to
 * 20 s) until FILE exists: started before the probes, it has the
 * functions mapped when they are placed.  UPINSN_READY=FILE: it creates
 * FILE once it waits, so the case places the probes only then. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int tap_triple(int x);
int tap_one(void);
int tap_trap(void);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	const char *go = getenv("UPINSN_GO");
	const char *ready = getenv("UPINSN_READY");
	int s;

	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT, 0644);
		if (fd < 0) {
			perror(ready);
			return 3;
		}
		close(fd);
	}

	for (int i = 0; go && access(go, F_OK) != 0; i++) {
		struct timespec tick = { 0, 10000000L };
		if (i == 2000) {
			fprintf(stderr, "upinsn: %s never appeared\n", go);
			return 3;
		}
		nanosleep(&tick, NULL);
	}
	s = tap_one() + tap_trap();
	for (int i = 1; i <= n; i++)
		s += tap_triple(i);
	printf("upinsn: %d calls, total %d\n", n, s);
	return 0;
}
