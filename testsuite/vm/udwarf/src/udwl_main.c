/* udwl_main.c - calls libudwl's lib_add() N times ("udwl N"). */
#include <stdlib.h>

struct tally {
	long sum;
	int count;
};

int lib_add(struct tally *t, int v);

int main(int argc, char **argv)
{
	struct tally t = { 0, 0 };
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 1; i <= n; i++)
		lib_add(&t, i * 100);
	return t.count == n ? 0 : 1;
}
