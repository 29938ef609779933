/* open_flags: openat calls whose flags show how syscall.openat's argstr
 * names them: O_DSYNC, O_SYNC, FASYNC, O_TMPFILE, the invalid access
 * mode 3 and a flag word with many bits.  Each call's result is closed
 * or ignored; the files live in /tmp. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

static void try_open(const char *path, int flags)
{
	int fd = open(path, flags, 0600);

	if (fd >= 0)
		close(fd);
}

int main(void)
{
	try_open("/tmp/tapc-of-a", O_WRONLY | O_CREAT | O_DSYNC);
	try_open("/tmp/tapc-of-a", O_RDWR | O_SYNC | O_APPEND);
	try_open("/tmp/tapc-of-a", O_RDONLY | FASYNC | O_NOATIME);
	try_open("/tmp", O_RDWR | O_TMPFILE);
	try_open("/tmp/tapc-of-a", 3);
	try_open("/tmp/tapc-of-a", O_RDONLY | O_NONBLOCK | O_CLOEXEC |
				   O_NOFOLLOW | O_DIRECTORY | O_NOCTTY);
	try_open("/tmp", O_PATH | O_CLOEXEC);
	unlink("/tmp/tapc-of-a");
	return 0;
}
