/* uplib_a / uplib_b N: call uplib_twice() of libuplib.so N times (the
 * same source built twice under two names). */
#include <stdio.h>
#include <stdlib.h>

int uplib_twice(int x);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, t = 0;

	for (int i = 1; i <= n; i++)
		t += uplib_twice(i);
	printf("%s: %d\n", PROG, t);
	return 0;
}
