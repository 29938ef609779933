/* udw.c - the udwarf suite's program, built with -g and no optimisation
 * as a PIE, and probed through its DWARF.  "udw N" calls walk() N times
 * on a chain of three points, the i-th time as far as the i-th point;
 * it prints nothing: what the probes see is the test. */
#include <stdlib.h>

struct point {
	int x, y;
	struct point *next;
	char name[8];
};

long total = 100;               /* a global of the PIE: moved by its bias */
static int calls;               /* a file's static */

int scale(int v, long factor)
{
	return v * factor;
}

int walk(struct point *p, int limit)
{
	int sum = 0;
	int steps = 0;
	while (p && steps < limit) {
		int here = scale(p->x, 10) + p->y;
		sum += here;
		steps++;
		p = p->next;
	}
	calls++;
	total += sum;
	return sum + steps;
}

int main(int argc, char **argv)
{
	struct point c = { 5, 6, NULL, "c" };
	struct point b = { 3, 4, &c, "b" };
	struct point a = { 1, 2, &b, "a" };
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 1; i <= n; i++)
		walk(&a, i);
	return calls == n ? 0 : 1;
}
