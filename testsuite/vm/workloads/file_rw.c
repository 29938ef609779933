/* file_rw [PATH [TEXT [CHUNK]]]: write TEXT (default "hello, debuginfo\n")
 * to PATH (default /tmp/tapc-di.txt, created or truncated), close it, then
 * open it again read-only and read it CHUNK bytes (default 8) at a time
 * until end of file, and close it.  The same opens, reads and offsets
 * every run, for run-tests of vfs_read and do_sys_openat2 that print
 * file names, counts, positions and return values. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/tmp/tapc-di.txt";
	const char *text = argc > 2 ? argv[2] : "hello, debuginfo\n";
	long chunk = argc > 3 ? atol(argv[3]) : 8;
	size_t len = strlen(text);
	char buf[4096];
	ssize_t n;
	int fd;

	if (chunk < 1 || chunk > (long)sizeof(buf)) {
		fprintf(stderr, "file_rw: CHUNK must be 1 to %zu\n", sizeof(buf));
		return 2;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) != 0) {
		perror(path);
		return 1;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	while ((n = read(fd, buf, chunk)) > 0)
		;
	if (n < 0) {
		perror(path);
		return 1;
	}
	close(fd);
	return 0;
}
