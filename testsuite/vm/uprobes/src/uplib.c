/* libuplib.so: one function two programs (uplib_a, uplib_b) call. */
__attribute__((noinline)) int uplib_twice(int x)
{
	__asm__ volatile("" ::: "memory");
	return 2 * x;
}
