/* sys_calls_b: the signal, SysV IPC and flag-word system calls whose
 * argstr the run-test tapset_syscalls_argstr_b checks, each once with
 * fixed arguments (no stdio):
 * - through the 32-bit entry (int $0x80, which a static non-PIE program
 *   may use: the kernel runs its ia32 table): signal(SIGUSR2, SIG_IGN),
 *   ssetmask blocking SIGUSR1 and SIGTERM then nothing, sigprocmask
 *   (SIG_BLOCK, NULL, NULL) and with an unknown how, 5 (no set: no
 *   error);
 * - rt_sigqueueinfo of SIGUSR2 (ignored) to itself with SI_QUEUE,
 *   si_pid 4242 and si_uid 7; rt_tgsigqueueinfo with tgid and tid 0
 *   (EINVAL); rt_sigtimedwait for SIGUSR2 for 1 us (EAGAIN), its
 *   siginfo buffer holding a SIGCHLD one (CLD_EXITED, status 3);
 * - a private semaphore set (IPC_CREAT|IPC_EXCL|0600): SETVAL 1,
 *   semtimedop taking it (IPC_NOWAIT, 1 us), IPC_64|IPC_STAT, IPC_RMID;
 *   message queue 4660 (IPC_CREAT|0640): msgsnd of "hi" (IPC_NOWAIT),
 *   msgrcv (MSG_NOERROR|IPC_NOWAIT), IPC_RMID; a private 4096-byte
 *   shared memory segment (IPC_CREAT|0600) attached SHM_RDONLY, IPC_RMID;
 * - sendmmsg (MSG_DONTWAIT and MSG_BATCH) and recvmmsg (MSG_DONTWAIT, a
 *   1 s timeout) of one message
 *   on a local socket pair (fds 30 and 31); pwritev2 (flags 0) and
 *   preadv2 (RWF_HIPRI) at offset 2 of /tmp/tapc-sysb.txt (fd 32);
 *   swapon of a missing path with SWAP_FLAG_PREFER and priority 5;
 *   userfaultfd(O_NONBLOCK|O_CLOEXEC); unshare(0) and
 *   unshare(CLONE_NEWUTS); set_mempolicy(MPOL_DEFAULT) and
 *   (MPOL_BIND|MPOL_F_STATIC_NODES, no mask: EINVAL), get_mempolicy,
 *   mbind of a page (MPOL_DEFAULT), move_pages of no pages with
 *   MPOL_MF_MOVE, membarrier(MEMBARRIER_CMD_QUERY), pkey_alloc with
 *   PKEY_DISABLE_WRITE, statx of /tmp (AT_SYMLINK_NOFOLLOW,
 *   STATX_BASIC_STATS) and seccomp(SECCOMP_SET_MODE_FILTER) of a null
 *   program (EFAULT);
 * - sched_getattr into a zeroed struct sched_attr, sched_setattr of
 *   SCHED_OTHER at nice 0 (what the process has); fanotify_init
 *   (FAN_CLASS_NOTIF|FAN_CLOEXEC, O_RDONLY|O_LARGEFILE), its descriptor
 *   moved to fd 33 and marked FAN_MARK_ADD for FAN_OPEN|FAN_CLOSE_WRITE
 *   on /tmp; reboot with a wrong second magic number (EINVAL: nothing
 *   happens); remap_file_pages of a private page (EINVAL);
 *   perf_event_open of a null attribute (EFAULT); bpf(BPF_PROG_LOAD) of
 *   an empty attribute (EINVAL);
 * - ptrace of process 0 (ESRCH): PTRACE_PEEKDATA, PTRACE_SETOPTIONS
 *   (PTRACE_O_TRACESYSGOOD|PTRACE_O_EXITKILL), PTRACE_CONT with SIGUSR1,
 *   PTRACE_GETREGSET of NT_PRSTATUS into a 64-byte iovec at 0x3000;
 *   prctl PR_SET_TSC (PR_TSC_ENABLE, as it is), PR_CAPBSET_READ
 *   (CAP_SYS_ADMIN), PR_GET_DUMPABLE, PR_SET_PTRACER (any),
 *   PR_SET_TIMERSLACK 50000 and an unknown option 1000 (EINVAL);
 * - sysfs's four options (the index of "proc", the name of file system 0,
 *   the count, an unknown one: EINVAL) and memfd_secret(O_CLOEXEC). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/membarrier.h>
#include <linux/mempolicy.h>
#include <linux/bpf.h>
#include <linux/fanotify.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/capability.h>
#include <linux/elf.h>
#include <linux/prctl.h>
#include <linux/ptrace.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "ia32.h"

#ifndef SWAP_FLAG_PREFER
#define SWAP_FLAG_PREFER 0x8000
#endif
#ifndef RWF_HIPRI
#define RWF_HIPRI 0x1
#endif
#ifndef PKEY_DISABLE_WRITE
#define PKEY_DISABLE_WRITE 0x2
#endif

static siginfo_t qinfo, winfo;
static struct msgbuf_hi {
	long mtype;
	char mtext[16];
} msg = { 1, "hi" };
static char page[8192] __attribute__((aligned(4096)));
static char wbuf[4] = "abc", rbuf[4];
static struct statx stx;
static char fsname[256];
/* struct sched_attr of linux/sched/types.h (which clashes with sched.h) */
static struct {
	unsigned int size, sched_policy;
	unsigned long long sched_flags;
	int sched_nice;
	unsigned int sched_priority;
	unsigned long long sched_runtime, sched_deadline, sched_period;
	unsigned int sched_util_min, sched_util_max;
} sa_get, sa_set = { .size = 48 };

int main(void)
{
	struct timespec us = { 0, 1000 }, sec = { 1, 0 };
	struct sembuf op = { 0, -1, IPC_NOWAIT };
	struct semid_ds ds;
	struct iovec wv = { wbuf, 3 }, rv = { rbuf, 3 };
	struct iovec mv = { wbuf, 2 };
	struct mmsghdr mm;
	sigset_t set;
	int id, sv[2], fd, mode;
	long r;
	void *at;
	struct iovec regs = { (void *)0x3000, 64 };

	/* 48 signal, 69 ssetmask, 126 sigprocmask in the i386 table */
	ia32_call3(48, SIGUSR2, (long)SIG_IGN, 0);
	ia32_call3(69, (1L << (SIGUSR1 - 1)) | (1L << (SIGTERM - 1)), 0, 0);
	ia32_call3(69, 0, 0, 0);
	ia32_call3(126, SIG_BLOCK, 0, 0);
	ia32_call3(126, 5, 0, 0);

	qinfo.si_signo = SIGUSR2;
	qinfo.si_code = SI_QUEUE;
	qinfo.si_pid = 4242;
	qinfo.si_uid = 7;
	syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, &qinfo);
	syscall(SYS_rt_tgsigqueueinfo, 0, 0, SIGUSR2, &qinfo);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	winfo.si_signo = SIGCHLD;
	winfo.si_code = CLD_EXITED;
	winfo.si_pid = 5;
	winfo.si_uid = 6;
	winfo.si_status = 3;
	syscall(SYS_rt_sigtimedwait, &set, &winfo, &us, 8);

	id = syscall(SYS_semget, IPC_PRIVATE, 1, IPC_CREAT | IPC_EXCL | 0600);
	syscall(SYS_semctl, id, 0, SETVAL, 1L);
	syscall(SYS_semtimedop, id, &op, 1, &us);
	syscall(SYS_semctl, id, 0, IPC_STAT | 0x100, &ds);
	syscall(SYS_semctl, id, 0, IPC_RMID, 0L);

	id = syscall(SYS_msgget, 4660, IPC_CREAT | 0640);
	syscall(SYS_msgsnd, id, &msg, 2, IPC_NOWAIT);
	syscall(SYS_msgrcv, id, &msg, 16, 0L, MSG_NOERROR | IPC_NOWAIT);
	syscall(SYS_msgctl, id, IPC_RMID, 0L);

	id = syscall(SYS_shmget, IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	at = (void *)syscall(SYS_shmat, id, 0L, SHM_RDONLY);
	syscall(SYS_shmctl, id, IPC_RMID, 0L);
	if (at != (void *)-1)
		shmdt(at);

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0) {
		dup2(sv[0], 30);
		dup2(sv[1], 31);
	}
	memset(&mm, 0, sizeof(mm));
	mm.msg_hdr.msg_iov = &mv;
	mm.msg_hdr.msg_iovlen = 1;
	/* MSG_BATCH (0x40000), which stap's tapset does not name */
	syscall(SYS_sendmmsg, 30, &mm, 1, MSG_DONTWAIT | 0x40000);
	mv.iov_base = rbuf;
	syscall(SYS_recvmmsg, 31, &mm, 1, MSG_DONTWAIT, &sec);

	fd = open("/tmp/tapc-sysb.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 32);
	syscall(SYS_pwritev2, 32, &wv, 1, 2L, 0L, 0);
	syscall(SYS_preadv2, 32, &rv, 1, 2L, 0L, RWF_HIPRI);

	syscall(SYS_swapon, "/tapc-no-such-swap", SWAP_FLAG_PREFER | 5);
	r = syscall(SYS_userfaultfd, O_NONBLOCK | O_CLOEXEC);
	if (r >= 0)
		close(r);
	syscall(SYS_unshare, 0);
	syscall(SYS_unshare, CLONE_NEWUTS);

	syscall(SYS_set_mempolicy, MPOL_DEFAULT, 0L, 0L);
	syscall(SYS_set_mempolicy, MPOL_BIND | MPOL_F_STATIC_NODES, 0L, 0L);
	syscall(SYS_get_mempolicy, &mode, 0L, 0L, 0L, 0L);
	page[0] = 1;
	syscall(SYS_mbind, page, 4096, MPOL_DEFAULT, 0L, 0L, 0);
	syscall(SYS_move_pages, 0, 0L, 0L, 0L, 0L, MPOL_MF_MOVE);
	syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
	r = syscall(SYS_pkey_alloc, 0, PKEY_DISABLE_WRITE);
	if (r >= 0)
		syscall(SYS_pkey_free, r);
	syscall(SYS_statx, AT_FDCWD, "/tmp", AT_SYMLINK_NOFOLLOW,
		STATX_BASIC_STATS, &stx);
	syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, 0L);

	syscall(SYS_sched_getattr, 0, &sa_get, 56, 0);
	syscall(SYS_sched_setattr, 0, &sa_set, 0);
	/* the kernel's O_LARGEFILE (user space's is 0 on x86_64) */
	r = syscall(SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_CLOEXEC,
		    O_RDONLY | 0100000);
	if (r >= 0)
		dup2(r, 33);
	syscall(SYS_fanotify_mark, 33, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_WRITE,
		AT_FDCWD, "/tmp");
	syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0, LINUX_REBOOT_CMD_CAD_ON, 0L);
	syscall(SYS_remap_file_pages, page, 4096, 0, 0, MAP_NONBLOCK);
	syscall(SYS_perf_event_open, 0L, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	syscall(SYS_bpf, BPF_PROG_LOAD, 0L, 0);

	syscall(SYS_ptrace, PTRACE_PEEKDATA, 0, 0x1000L, 0x2000L);
	syscall(SYS_ptrace, PTRACE_SETOPTIONS, 0, 0L,
		(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL));
	syscall(SYS_ptrace, PTRACE_CONT, 0, 0L, (long)SIGUSR1);
	syscall(SYS_ptrace, PTRACE_GETREGSET, 0, (long)NT_PRSTATUS, &regs);
	syscall(SYS_prctl, PR_SET_TSC, PR_TSC_ENABLE, 0L, 0L, 0L);
	syscall(SYS_prctl, PR_CAPBSET_READ, CAP_SYS_ADMIN, 0L, 0L, 0L);
	syscall(SYS_prctl, PR_GET_DUMPABLE, 0L, 0L, 0L, 0L);
	syscall(SYS_prctl, PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0L, 0L, 0L);
	syscall(SYS_prctl, PR_SET_TIMERSLACK, 50000L, 0L, 0L, 0L);
	syscall(SYS_prctl, 1000, 1L, 2L, 3L, 4L);

	syscall(SYS_sysfs, 1, "proc");
	syscall(SYS_sysfs, 2, 0L, fsname);
	syscall(SYS_sysfs, 3);
	syscall(SYS_sysfs, 4, 5L, 6L);
	r = syscall(SYS_memfd_secret, O_CLOEXEC);
	if (r >= 0)
		close(r);
	return 0;
}
