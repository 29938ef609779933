/* compat_structs - 32-bit (int $0x80) calls whose arguments are the
 * 32-bit layouts of struct sigaction (rt_sigaction's and the older
 * sigaction's), struct timex and siginfo, with fixed contents, for the
 * run-test tapset_inner_compat (its probes decode them at the calls'
 * entries).  The handlers are never run: the signals they are set for
 * are never sent, and the signals queued to this process are ignored
 * ones, which the kernel drops. */
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "ia32.h"

/* rt_sigaction's: handler, flags, restorer, a 64-bit mask as two words */
static struct { uint32_t handler, flags, restorer, mask[2]; } act32[2] = {
	{ 0x8048123, SA_SIGINFO | SA_RESTART | 0x04000000, 0x8049456,
	  { (1u << (SIGINT - 1)) | (1u << (SIGTERM - 1)), 0 } },
	{ (uint32_t)(uintptr_t)SIG_IGN, 0, 0, { 0, 0 } },
};

/* the 64-bit layout of act32[0], for the 64-bit decoder to compare */
static struct { unsigned long handler, flags, restorer, mask; } act64 = {
	0x8048123, SA_SIGINFO | SA_RESTART | 0x04000000, 0x8049456,
	(1u << (SIGINT - 1)) | (1u << (SIGTERM - 1))
};

/* the older sigaction's: handler, a one-word mask, flags, restorer */
static struct { uint32_t handler, mask, flags, restorer; } old32 = {
	0x8048abc, 1u << (SIGHUP - 1), SA_NODEFER | 0x100, 0x804a000
};

/* old_timex32: u32 modes, then s32 fields; modes 0 only reads */
static struct {
	uint32_t modes;
	int32_t offset, freq, maxerror, esterror, status, constant;
	int32_t precision, tolerance, time[2], tick, rest[20];
} tx32 = { 0, 11, -1, 33, 44, 5, 6, 7, 8, { 0, 0 }, 10000, { 0 } };

/* compat_siginfo: signo, errno, code, then the union's 4-byte words */
static struct { int32_t signo, err, code; uint32_t u[29]; } si32[3] = {
	{ SIGUSR2, 0, -1 /* SI_QUEUE */, { 4242, 7 } },
	{ SIGCHLD, 0, 1 /* CLD_EXITED */, { 5, 6, 3 } },
	{ SIGSEGV, 0, 1 /* SEGV_MAPERR */, { 0xdead0 } },
};

int main(void)
{
	int i;

	/* 174 rt_sigaction, 67 sigaction, 124 adjtimex, 178
	   rt_sigqueueinfo in the i386 table */
	syscall(SYS_rt_sigaction, SIGUSR1, &act64, 0, 8);
	ia32_call5(174, SIGUSR1, (long)&act32[0], 0, 8, 0);
	ia32_call5(174, SIGUSR2, (long)&act32[1], 0, 8, 0);
	ia32_call5(174, SIGSEGV, (long)&act32[1], 0, 8, 0);
	ia32_call3(67, SIGUSR1, (long)&old32, 0);
	ia32_call3(124, (long)&tx32, 0, 0);
	for (i = 0; i < 3; i++)
		ia32_call3(178, getpid(), si32[i].signo, (long)&si32[i]);
	return 0;
}
