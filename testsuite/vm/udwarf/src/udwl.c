/* udwl.c - the udwarf suite's shared library, built with -g: a function
 * with a struct pointer parameter and a global that moves with the
 * library's load address. */
struct tally {
	long sum;
	int count;
};

int lib_calls;

int lib_add(struct tally *t, int v)
{
	t->sum += v;
	t->count++;
	lib_calls++;
	return t->count;
}
