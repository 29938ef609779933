/* ia32.h - a 32-bit system call from a 64-bit workload: int $0x80 runs
 * the kernel's i386 table, with the arguments in ebx, ecx, edx, esi and
 * edi (only their low 32 bits: a static, non-PIE program's data is below
 * 4 GB).  NR is the call's number in the i386 table. */
#ifndef TAPC_WORKLOAD_IA32_H
#define TAPC_WORKLOAD_IA32_H

static inline long ia32_call5(long nr, long a, long b, long c, long d, long e)
{
	long ret;

	__asm__ volatile ("int $0x80"
			  : "=a" (ret)
			  : "0" (nr), "b" (a), "c" (b), "d" (c), "S" (d), "D" (e)
			  : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

/* a call of three arguments (esi and edi 0) */
static inline long ia32_call3(long nr, long a, long b, long c)
{
	return ia32_call5(nr, a, b, c, 0, 0);
}

#endif
