/* sdtforms_main.c - calls forms() (sdtforms.S) N times with v = 1000 + i
 * and *p = i. */
#include <stdio.h>
#include <stdlib.h>

long forms(long *p, long v);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	long total = 0;

	for (long i = 1; i <= n; i++)
		total += forms(&i, 1000 + i);
	printf("sdtforms: %d calls, total %ld\n", n, total);
	return 0;
}
