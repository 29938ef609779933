/* sys_calls_a: system calls whose argstr shows strings, flags and
 * structures read from user memory, each once with fixed arguments, for
 * run-test tapset_syscalls_argstr_a.  Calls that would change the guest
 * (its host name, its clock, modules, kexec images, the root) are made to
 * fail with bad arguments, which still shows their argstr:
 * sethostname and setdomainname with a length over 64, mq_open of a
 * missing queue and, with O_CREAT, a bad attribute address; add_key and
 * request_key of a missing key type; init_module of an empty image,
 * finit_module and kexec_file_load of fd -1, delete_module of a missing
 * module, kexec_load of 17 segments; pivot_root of missing paths;
 * faccessat2, name_to_handle_at and open_by_handle_at with null handles;
 * readdir through the 32-bit entry (int $0x80) with fd -1.  The xattr
 * calls on /tmp/tapc-a.txt (fd 30) fail or not as the file system allows
 * user.* attributes (fsetxattr with undefined flag bits: EINVAL).
 * settimeofday with 2000000 microseconds, adjtimex and
 * clock_adjtime with an out-of-range tick, clock_settime of
 * CLOCK_MONOTONIC: each EINVAL (settimeofday of nothing, clock_adjtime
 * of CLOCK_MONOTONIC: nothing done).  setitimer arms nothing (a zero value);
 * timer_settime of a missing timer, timerfd_settime of fd -1; utime,
 * utimes and futimesat set the file's times; times, sysinfo and
 * sigaltstack (SS_DISABLE) show the structures as the buffers hold them
 * when the call starts; statfs64 and fstatfs64 through int $0x80;
 * io_getevents of context 0 (EINVAL).  No stdio. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/timex.h>
#include <sys/xattr.h>
#include <utime.h>
#include <linux/kexec.h>
#include <linux/module.h>
#include "ia32.h"

static char big[16];
static struct statfs64_buf { char b[128]; } sfs;

int main(void)
{
	static const char path[] = "/tmp/tapc-a.txt";
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 30) != 30 || close(fd) != 0)
		return 1;
	fd = 30;

	/* hostnames and strings */
	syscall(SYS_sethostname, "tapc-a", 100L);
	syscall(SYS_setdomainname, "tapc-a", 100L);
	syscall(SYS_mq_open, "tapc-no-queue", (long)O_RDONLY, 0L, 0L);
	syscall(SYS_mq_open, "tapc-no-queue", (long)(O_RDWR | O_CREAT | O_EXCL),
		0600L, 1L);
	syscall(SYS_add_key, "tapc-no-type", "tapc-k", "abc", 3L, -2L);
	syscall(SYS_request_key, "tapc-no-type", "tapc-k", 0L, 0L);
	syscall(SYS_init_module, 0L, 0L, "tapc=1");
	syscall(SYS_finit_module, -1L, "tapc=1",
		(long)MODULE_INIT_IGNORE_VERMAGIC);
	syscall(SYS_delete_module, "tapc_no_such_mod", (long)O_NONBLOCK);
	syscall(SYS_delete_module, "tapc_no_such_mod",
		(long)(O_TRUNC | O_NONBLOCK | 4));
	syscall(SYS_kexec_load, 0x1000L, 17L, 0L,
		(long)(KEXEC_ON_CRASH | KEXEC_ARCH_386));
	syscall(SYS_kexec_load, 0L, 17L, 0L, 0L);
	syscall(SYS_kexec_file_load, -1L, -1L, 7L, "tapc=1",
		(long)KEXEC_FILE_NO_INITRAMFS);
	syscall(SYS_pivot_root, "/tapc-no-new", "/tapc-no-old");
	syscall(SYS_faccessat2, (long)AT_FDCWD, "/tmp", (long)(R_OK | W_OK),
		0x200L);
	syscall(SYS_name_to_handle_at, (long)AT_FDCWD, "/tmp", 0L, 0L,
		(long)AT_SYMLINK_FOLLOW);
	syscall(SYS_open_by_handle_at, (long)AT_FDCWD, 0L, (long)O_RDONLY);
	ia32_call3(89, -1L, 0L, 1L);		/* readdir */

	/* extended attributes */
	syscall(SYS_setxattr, path, "user.tapc", "v1", 3L, (long)XATTR_CREATE);
	syscall(SYS_lsetxattr, path, "user.tapc", "\001\377ab", 4L,
		(long)XATTR_REPLACE);
	syscall(SYS_fsetxattr, (long)fd, "trusted.tapc", 0L, 0L, 0L);
	/* values over 50 bytes are cut; a NUL shows as \x00 but at the end
	 * of printable text; undefined flag bits in hex (EINVAL) */
	syscall(SYS_fsetxattr, (long)fd, "user.tapc",
		"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijKLMNOPQRST",
		60L, (long)(XATTR_CREATE | XATTR_REPLACE | 0x10));
	syscall(SYS_fsetxattr, (long)fd, "user.tapc", "a\0b", 3L, 0x10L);
	syscall(SYS_fsetxattr, (long)fd, "user.tapc", "\001", 2L, 0x10L);
	syscall(SYS_getxattr, path, "user.tapc", 0L, 0L);
	syscall(SYS_lgetxattr, path, "user.tapc", 0L, 0L);
	syscall(SYS_fgetxattr, (long)fd, "user.tapc", 0L, 0L);
	syscall(SYS_removexattr, path, "user.tapc");
	syscall(SYS_lremovexattr, path, "user.tapc");
	syscall(SYS_fremovexattr, (long)fd, "user.tapc");

	/* structures read from user memory */
	{
		struct timeval tv = { 5, 2000000 };
		struct timezone tz = { -60, 0 };

		syscall(SYS_settimeofday, &tv, &tz);
		syscall(SYS_settimeofday, 0L, 0L);
	}
	{
		struct timex tx;

		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_OFFSET | ADJ_TICK;
		tx.constant = 2;
		tx.esterror = 3;
		tx.freq = -1;
		tx.maxerror = 4;
		tx.offset = 5;
		tx.precision = 6;
		tx.status = 7;
		tx.tick = 1;
		tx.tolerance = 8;
		syscall(SYS_adjtimex, &tx);
		syscall(SYS_clock_adjtime, (long)CLOCK_REALTIME, &tx);
		/* CLOCK_MONOTONIC cannot be adjusted (EOPNOTSUPP) */
		tx.modes = ADJ_OFFSET_SINGLESHOT;
		syscall(SYS_clock_adjtime, (long)CLOCK_MONOTONIC, &tx);
	}
	{
		struct timespec ts = { 1, 2 };

		syscall(SYS_clock_settime, (long)CLOCK_MONOTONIC, &ts);
	}
	{
		struct itimerval itv = { { 1, 500 }, { 0, 0 } };

		syscall(SYS_setitimer, (long)ITIMER_PROF, &itv, 0L);
	}
	{
		struct itimerspec its = { { 2, 3 }, { 4, 5 } };

		syscall(SYS_timer_settime, 12345L, 0L, &its, 0L);
		syscall(SYS_timerfd_settime, -1L, 1L, &its, 0L);
	}
	{
		struct utimbuf ub = { 0, 31536000 };
		struct timeval tv[2] = { { 1, 2 }, { 3, 4 } };

		syscall(SYS_utime, path, &ub);
		syscall(SYS_utimes, path, tv);
		syscall(SYS_futimesat, (long)AT_FDCWD, path, tv);
	}
	{
		struct tms t = { 1, 2, 3, 4 };

		syscall(SYS_times, &t);
		syscall(SYS_times, 0L);
	}
	{
		struct sysinfo si;

		memset(&si, 0, sizeof(si));
		si.uptime = 1;
		si.loads[0] = 2;
		si.loads[1] = 3;
		si.loads[2] = 4;
		si.totalram = 5;
		si.freeram = 6;
		si.sharedram = 7;
		si.bufferram = 8;
		si.totalswap = 9;
		si.freeswap = 10;
		si.procs = 11;
		syscall(SYS_sysinfo, &si);
	}
	{
		stack_t ss = { (void *)0x1000, SS_DISABLE, 8192 };

		syscall(SYS_sigaltstack, &ss, 0L);
		syscall(SYS_sigaltstack, 0L, 0L);
	}
	/* statfs64 and fstatfs64 in the i386 table: 268 and 269 */
	memcpy(big, path, sizeof(path));
	ia32_call3(268, (long)big, 84L, (long)&sfs);
	ia32_call3(269, -1L, 84L, (long)&sfs);
	{
		struct timespec ts = { 0, 1000 };

		syscall(SYS_io_getevents, 0L, 1L, 2L, 0L, &ts);
	}
	return 0;
}
