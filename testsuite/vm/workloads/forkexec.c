/* forkexec [N [PROG ARGS...]]: N times fork, exec PROG (default: this
 * program with "child", which exits at once) and wait, for process.*
 * and scheduler probes.  Exits 1 if any child failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return 0;
	long n = argc > 1 ? atol(argv[1]) : 10;
	char *self[] = { argv[0], "child", NULL };
	char **cmd = argc > 2 ? argv + 2 : self;
	int bad = 0;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			perror("forkexec: fork");
			return 1;
		}
		if (pid == 0) {
			execvp(cmd[0], cmd);
			perror("forkexec: exec");
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	return bad;
}
