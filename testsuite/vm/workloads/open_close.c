/* open_close [N [PATH]]: N opens and closes of PATH (default /dev/null),
 * for syscall.openat / vfs probes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	const char *path = argc > 2 ? argv[2] : "/dev/null";

	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	return 0;
}
