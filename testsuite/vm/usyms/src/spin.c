/* spin.c - busy in user space for a while: inner() called from outer()
 * from main, built without frame pointers, for profile-timer samples. */
volatile unsigned long acc;

/* Most of the time is spent here, so that nearly every sample's top two
 * frames are inner <- outer (with a one-line inner, outer's loop took
 * nine samples in ten, and a run could end without one in inner). */
__attribute__((noipa)) void inner(unsigned long i)
{
	for (unsigned long j = 0; j < 128; j++)
		acc += i * j;
}

__attribute__((noipa)) void outer(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		inner(i);
}

int main(void)
{
	outer(500000UL);
	return 0;
}
