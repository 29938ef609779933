/* uptrace PROG [ARG...]: run PROG under ptrace, as a debugger does
 * (PTRACE_TRACEME, then PTRACE_CONT after every stop, passing signals
 * on), and report how it ended.  Uprobes need no ptrace and must still
 * fire in a traced process. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status, stops = 0;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: uptrace PROG [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(126);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	for (;;) {
		if (waitpid(pid, &status, 0) < 0)
			return 2;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		int sig = WSTOPSIG(status);
		stops++;
		/* the exec's SIGTRAP is ours; anything else is the program's */
		ptrace(PTRACE_CONT, pid, NULL,
		       (void *)(long)(sig == SIGTRAP ? 0 : sig));
	}
	printf("uptrace: traced, %d stop%s, %s %d\n", stops, stops == 1 ? "" : "s",
	       WIFEXITED(status) ? "exit" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}
