/* read_zero [N [SIZE]]: N reads of SIZE bytes (default 1000 x 4096) from
 * /dev/zero, for vfs.read / syscall.read probes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long size = argc > 2 ? atol(argv[2]) : 4096;
	char *buf = malloc(size > 0 ? size : 1);
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || !buf) {
		perror("read_zero: /dev/zero");
		return 1;
	}
	for (long i = 0; i < n; i++)
		if (read(fd, buf, size) != size) {
			perror("read_zero: read");
			return 1;
		}
	close(fd);
	return 0;
}
