/* sys_calls: the system calls the syscall tapset renames or merges, each
 * once with fixed arguments, for run-tests that print their argstr and
 * retstr: pwrite64 and pread64 on /tmp/tapc-sys.txt (fd 10: fixed, whatever the
 * runner leaves open), newfstatat
 * on it, getdents64 on /tmp (fd 11), umount2 of a missing path (ENOENT),
 * pipe2, then llseek through the 32-bit entry (int $0x80,
 * which a 64-bit program may use too: the kernel runs its ia32 table),
 * then fcntl F_GETFD, dup3 to fd 12 with O_CLOEXEC, umask 022, a 1 us
 * nanosleep (glibc makes it clock_nanosleep) and utimensat, then socket
 * (a UDP one), socketpair, shutdown (fd 20), recvfrom with MSG_PEEK and
 * MSG_DONTWAIT (fd 20: EAGAIN), a 500 us select and rt_sigprocmask
 * blocking SIGUSR1 and SIGTERM; then openat of /tmp/tapc-sys.txt read-only
 * (no O_CREAT: no mode shown), getrlimit, setrlimit and prlimit64 (through
 * syscall(): glibc's make each prlimit64), a fork (glibc's clone with
 * CLONE_CHILD_SETTID|CLONE_CHILD_CLEARTID|SIGCHLD) and mount of a missing
 * path (ENOENT); then rt_sigaction ignoring SIGUSR2, then giving it a
 * handler with SA_RESTART that blocks SIGTERM; then a UDP socket bound to
 * 127.0.0.1 port 0 (the guest's loopback may be down: no connect there), a
 * local datagram socket bound to the abstract name "\0tapc-sys", another
 * connected to it that sends it "hi" with sendto; then getrandom of 4 bytes
 * with GRND_INSECURE (which never fails for want of entropy), flock LOCK_EX|LOCK_NB and fadvise64
 * POSIX_FADV_SEQUENTIAL on fd 10, getpriority(PRIO_PROCESS, 0) and
 * getrusage(RUSAGE_SELF); then sync_file_range SYNC_FILE_RANGE_WRITE on fd
 * 10, personality(0xffffffff) (which only asks) and an inotify watch on
 * /tmp for IN_CREATE|IN_DELETE; then mknod of the FIFO /tmp/tapc-fifo
 * (glibc's mknodat), ioprio_get(IOPRIO_WHO_PROCESS, 0) and
 * sched_get_priority_max(SCHED_FIFO); then a local datagram socket's
 * SO_SNDBUF set to 4096 (setsockopt).
 * No stdio: nothing but these calls between the opens and the exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/personality.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "ia32.h"

static char buf[64];
static char dents[4096];
static struct stat st;
static long long where;

static void on_usr2(int sig)
{
	(void)sig;
}

/* 140 is _llseek in the i386 table */
static long ia32_llseek(int fd, unsigned long hi, unsigned long lo,
			long long *result, unsigned int whence)
{
	return ia32_call5(140, fd, (long)hi, (long)lo, (long)result, whence);
}

int main(void)
{
	int fd, dir, p[2] = { -1, -1 };

	fd = open("/tmp/tapc-sys.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 10) != 10 || close(fd) != 0)
		return 1;
	fd = 10;
	if (write(fd, "0123456789", 10) != 10)
		return 1;
	if (pwrite(fd, "abc", 3, 4) != 3 || pread(fd, buf, 5, 2) != 5)
		return 1;
	if (fstatat(AT_FDCWD, "/tmp/tapc-sys.txt", &st,
		    AT_SYMLINK_NOFOLLOW) != 0)
		return 1;
	dir = open("/tmp", O_RDONLY | O_DIRECTORY);
	if (dir < 0 || dup2(dir, 11) != 11 || close(dir) != 0)
		return 1;
	dir = 11;
	if (syscall(SYS_getdents64, dir, dents, sizeof(dents)) <= 0)
		return 1;
	if (umount2("/tapc-no-such-dir", MNT_DETACH) == 0)
		return 1;
	if (pipe2(p, O_CLOEXEC) != 0)
		return 1;
	if (ia32_llseek(fd, 0, 7, &where, SEEK_SET) != 0 || where != 7)
		return 2;
	/* fcntl through syscall(): glibc's passes whatever its varargs hold */
	if (syscall(SYS_fcntl, fd, F_GETFD, 0L) < 0 ||
	    dup3(fd, 12, O_CLOEXEC) != 12)
		return 1;
	umask(022);
	{
		struct timespec t = { 0, 1000 }, times[2] = { { 5, 6 },
							       { 0, UTIME_OMIT } };
		if (nanosleep(&t, NULL) != 0 ||
		    utimensat(AT_FDCWD, "/tmp/tapc-sys.txt", times, 0) != 0)
			return 1;
	}
	{
		int sv[2], u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (u < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 ||
		    dup2(sv[0], 20) != 20 || shutdown(20, SHUT_WR) != 0 ||
		    dup2(sv[1], 21) != 21)
			return 1;
		/* nothing to read yet: EAGAIN */
		if (recv(20, buf, 4, MSG_PEEK | MSG_DONTWAIT) != -1)
			return 1;
	}
	{
		struct timeval tv = { 0, 500 };

		if (syscall(SYS_select, 0, NULL, NULL, NULL, &tv) != 0)
			return 1;
	}
	{
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigaddset(&set, SIGTERM);
		if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
			return 1;
	}
	{
		struct rlimit rl = { 0, RLIM_INFINITY }, cur;
		int ro = open("/tmp/tapc-sys.txt", O_RDONLY);
		pid_t child;

		if (ro < 0 || close(ro) != 0 ||
		    syscall(SYS_getrlimit, RLIMIT_NOFILE, &cur) != 0 ||
		    syscall(SYS_setrlimit, RLIMIT_CORE, &rl) != 0 ||
		    syscall(SYS_prlimit64, 0, RLIMIT_CORE, &rl, NULL) != 0)
			return 1;
		child = fork();
		if (child == 0)
			_exit(0);
		if (child < 0 || waitpid(child, NULL, 0) != child)
			return 1;
		if (mount("none", "/tapc-no-such-dir", "tmpfs",
			  MS_NOSUID | MS_NODEV, "size=1m") == 0)
			return 1;
	}
	{
		struct sigaction sa = { 0 };

		sa.sa_handler = SIG_IGN;
		if (sigaction(SIGUSR2, &sa, NULL) != 0)
			return 1;
		sa.sa_handler = on_usr2;
		sa.sa_flags = SA_RESTART;
		sigaddset(&sa.sa_mask, SIGTERM);
		if (sigaction(SIGUSR2, &sa, NULL) != 0)
			return 1;
	}
	{
		struct sockaddr_in in = { 0 };
		struct sockaddr_un un = { 0 };
		socklen_t unlen = offsetof(struct sockaddr_un, sun_path) + 9;
		int u = socket(AF_INET, SOCK_DGRAM, 0);
		int l = socket(AF_UNIX, SOCK_DGRAM, 0);
		int m = socket(AF_UNIX, SOCK_DGRAM, 0);

		in.sin_family = AF_INET;
		in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		un.sun_family = AF_UNIX;
		memcpy(un.sun_path, "\0tapc-sys", 9);
		if (u < 0 || l < 0 || m < 0 ||
		    bind(u, (struct sockaddr *)&in, sizeof(in)) != 0 ||
		    bind(l, (struct sockaddr *)&un, unlen) != 0 ||
		    connect(m, (struct sockaddr *)&un, unlen) != 0 ||
		    sendto(m, "hi", 2, 0, (struct sockaddr *)&un, unlen) != 2)
			return 1;
	}
	{
		static char rnd[4];
		struct rusage ru;

		if (getrandom(rnd, sizeof(rnd), GRND_INSECURE) != 4 ||
		    flock(fd, LOCK_EX | LOCK_NB) != 0 ||
		    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) != 0)
			return 1;
		errno = 0;
		if (getpriority(PRIO_PROCESS, 0) == -1 && errno)
			return 1;
		if (getrusage(RUSAGE_SELF, &ru) != 0)
			return 1;
	}
	{
		int in;

		if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) != 0 ||
		    personality(0xffffffff) == -1)
			return 1;
		in = inotify_init1(0);
		if (in < 0 ||
		    inotify_add_watch(in, "/tmp", IN_CREATE | IN_DELETE) < 0)
			return 1;
	}
	/* the run-tests share the guest's /tmp: leave no FIFO behind */
	unlink("/tmp/tapc-fifo");
	if (mknod("/tmp/tapc-fifo", S_IFIFO | 0600, 0) != 0 ||
	    unlink("/tmp/tapc-fifo") != 0 ||
	    syscall(SYS_ioprio_get, 1, 0) < 0 ||
	    sched_get_priority_max(SCHED_FIFO) < 0)
		return 1;
	{
		int v = 4096, so = socket(AF_UNIX, SOCK_DGRAM, 0);

		if (so < 0 || setsockopt(so, SOL_SOCKET, SO_SNDBUF, &v,
					 sizeof(v)) != 0)
			return 1;
	}
	return 0;
}
