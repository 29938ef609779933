/* deep.c - three calls deep (main -> a -> b -> c), built with -O2
 * -fomit-frame-pointer: only CFI can walk its stack.  c enters libusy.so,
 * which makes the getppid system call and calls back to tail().  It
 * prints nothing: the script's output is all a case shows. */
long usy_getppid(void (*then)(void));

volatile int sink;

__attribute__((noinline)) void tail(void)
{
	sink++;
}

__attribute__((noinline)) int c(int x)
{
	sink = x;
	return (int)usy_getppid(tail) + sink;
}

__attribute__((noinline)) int b(int x)
{
	int r = c(x + 1);
	sink = r;
	return r + 1;
}

__attribute__((noinline)) int a(int x)
{
	int r = b(x * 2);
	sink = r;
	return r - 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	return a(argc) < 0;
}
