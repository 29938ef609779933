/* upinsn N: calls tap_triple(i) for i = 1..N and tap_one() once, and
 * prints the sum (upinsn.S has the functions; insn.stp probes them). */
#include <stdio.h>
#include <stdlib.h>

int tap_triple(int x);
int tap_one(void);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int s = tap_one();

	for (int i = 1; i <= n; i++)
		s += tap_triple(i);
	printf("upinsn: %d calls, total %d\n", n, s);
	return 0;
}
