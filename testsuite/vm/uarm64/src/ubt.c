/* ubt.c - main -> a -> b -> c -> leaf, built with -O2
 * -fomit-frame-pointer: only CFI walks its stack.  On arm64 every
 * function's return address is in x30 at its entry, and all through the
 * leaf, which saves nothing (the uarm64 suite's ubt case). */
volatile int sink;

__attribute__((noinline)) void leaf(int x)
{
	sink = x;
}

__attribute__((noinline)) int c(int x)
{
	leaf(x);
	sink += x;
	return sink + 1;
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
