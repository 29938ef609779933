/* udwo.c - the udwarf suite's optimised program (-O2 -g): an inlined
 * function, a label, a struct passed by pointer.  "udwo N" runs spin()
 * on one pair with N rounds; it prints nothing. */
#include <stdlib.h>

struct pair {
	int a;
	long b;
	char tag[4];
};

volatile int sink;

static inline __attribute__((always_inline)) int mix(int v, int w)
{
	sink = v;
	return v * 3 + w;
}

__attribute__((noinline)) int spin(struct pair *p, int n)
{
	int acc = 0;
	while (n-- > 0) {
		acc += mix(p->a, n);
		sink = acc;
	}
	if (acc > 1000)
		goto big;
	sink = p->tag[0] + (int)p->b;   /* main's stores of b and tag live */
	return acc;
big:
	sink = p->tag[1] - (int)p->b;
	return -acc;
}

int main(int argc, char **argv)
{
	struct pair p = { 2, 5, "xy" };
	int n = argc > 1 ? atoi(argv[1]) : 1;
	return spin(&p, n) < 0;
}
