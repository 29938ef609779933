/* lines.c - a program built with -g -O0 for the line-table case
 * (scripts/lines.stp): main calls work once, which calls nol() of
 * libnol.so (built without -g) and reads a byte of /dev/null. */
#include <fcntl.h>
#include <unistd.h>

int nol(int x);

volatile int sink;

int work(int x)
{
	char c;
	int fd;

	sink = nol(x);
	fd = open("/dev/null", O_RDONLY);
	sink += (int)read(fd, &c, 1);
	close(fd);
	return sink;
}

int main(void)
{
	int r = work(3);

	sink = r;
	return 0;
}
