/* cargs.c - a function of eight integer arguments and one of a pointer,
 * built without DWARF (the uarm64 suite's cargs case reads them by the
 * calling convention: x0-x7, the result in x0). */
#include <stdio.h>

__attribute__((noinline)) long eight(long a, int b, short c, char d, long e,
				     unsigned int f, long g, long h)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f + g + h;
}

__attribute__((noinline)) const char *name_of(const char *s)
{
	__asm__ volatile("" ::: "memory");
	return s + 1;
}

int main(void)
{
	long r = eight(-1, -2, 3, 4, 5000000000L, 4000000000U, 7, 8);

	printf("cargs: eight %ld, %s\n", r, name_of("xcargs"));
	return 0;
}
