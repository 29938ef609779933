/* readers.c - take() gets a pointer to values of every width and sign,
 * and an address nothing is mapped at: what the user_* readers read. */
struct vals {
	signed char c;
	short s;
	unsigned short us;
	int i;
	long l;
	unsigned long ul;
	char str[8];
};

volatile long sink;

__attribute__((noipa)) void take(const struct vals *v, long bad)
{
	sink = v->c + bad;
}

int main(void)
{
	/* on the stack: a page the program has touched (a probe cannot fault
	 * one in; user reads in probes fail on pages never touched) */
	struct vals v = {
		-5, -300, 65000, -70000, -5000000000L, 18000000000000000000UL, "hello",
	};
	take(&v, 16);
	sink = v.s;
	return 0;
}
