/* usy.c - libusy.so: the test library.  usy_getppid makes the getppid
 * system call itself (no libc frame between the program and the kernel),
 * then calls back into the program. */
long usy_getppid(void (*then)(void))
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"(110L) : "rcx", "r11", "memory");
	if (then)
		then();
	return r;
}
