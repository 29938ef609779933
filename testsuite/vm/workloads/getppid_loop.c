/* getppid_loop [N]: N getppid system calls (default 1000), for syscall
 * probes.  The raw syscall, so no library cache can skip it. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
