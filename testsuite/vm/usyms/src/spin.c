/* spin.c - busy in user space for a while: inner() called from outer()
 * from main, built without frame pointers, for profile-timer samples. */
volatile unsigned long acc;

__attribute__((noipa)) void inner(unsigned long i)
{
	acc += i * i;
}

__attribute__((noipa)) void outer(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		inner(i);
}

int main(void)
{
	outer(30000000UL);
	return 0;
}
