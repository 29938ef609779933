/* command.c - the -c command: checked before anything is loaded, forked
 * and held before its exec until the probes run, released, and reaped
 * (its end stops the run).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "taprun.h"
#include "session.h"

static bool needs_shell(const char *cmd)
{
	return strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~={}\n") != NULL;
}

/* Split on blanks when cmd needs no shell, else run it with /bin/sh. */
static void exec_command(const char *cmd)
{
	char *copy, *argv[256], *tok, *save = NULL;
	int argc = 0;

	if (needs_shell(cmd)) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		return;
	}
	copy = strdup(cmd);
	if (!copy)
		return;
	for (tok = strtok_r(copy, " \t", &save); tok && argc < 255;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (argc)
		execvp(argv[0], argv);
}

/* 0 if path names a file this process may execute, else -errno. */
static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

/* Before anything is loaded: can the -c command start at all?  Its
 * program is looked up as execvp() will (a shell command needs
 * /bin/sh), so a typo fails here instead of after the begin probes. */
int command_check(const char *cmd)
{
	char prog[PATH_MAX], *path, *dir, *save = NULL;
	size_t len = strcspn(cmd + strspn(cmd, " \t"), " \t");
	const char *word = cmd + strspn(cmd, " \t");
	int err = -ENOENT;

	if (needs_shell(cmd)) {
		word = "/bin/sh";
		len = strlen(word);
	}
	if (len == 0) {
		msg_error(_("option -c: the command is empty"));
		return -EINVAL;
	}
	if (len >= sizeof(prog)) {
		err = -ENAMETOOLONG;
		goto fail;
	}
	memcpy(prog, word, len);
	prog[len] = '\0';
	if (strchr(prog, '/')) {
		err = executable(prog);
		if (err)
			goto fail;
		return 0;
	}
	path = strdup(getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin");
	if (!path)
		return -ENOMEM;
	for (dir = strtok_r(path, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		char full[PATH_MAX * 2 + 2];
		int e;

		snprintf(full, sizeof(full), "%s/%s", *dir ? dir : ".", prog);
		e = executable(full);
		if (!e) {
			free(path);
			return 0;
		}
		if (e == -EACCES)
			err = e;	/* found, but not executable */
	}
	free(path);
fail:
	msg_error(_("command '%s': cannot run '%.*s': %s"), cmd, (int)len,
		  word, strerror(-err));
	return err;
}

/* Fork the -c command, held before exec until the probes are running
 * (so they see it from its first instruction).  Returns its pid; *err_fd
 * gets the exec's errno if it fails after all. */
pid_t command_spawn(const char *cmd, int *go_fd, int *err_fd,
			   const sigset_t *orig)
{
	int p[2], e[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0) {
		msg_error(_("command '%s': cannot make a pipe: %s"), cmd,
			  strerror(errno));
		return -errno;
	}
	if (pipe2(e, O_CLOEXEC) < 0) {
		msg_error(_("command '%s': cannot make a pipe: %s"), cmd,
			  strerror(errno));
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		msg_error(_("command '%s': cannot fork: %s"), cmd,
			  strerror(errno));
		close(p[0]);
		close(p[1]);
		close(e[0]);
		close(e[1]);
		return -EAGAIN;
	}
	if (pid == 0) {
		int err;

		close(p[1]);
		close(e[0]);
		signals_child_defaults(orig);
		if (read(p[0], &c, 1) != 1)
			_exit(127);	/* the loader gave up */
		exec_command(cmd);
		err = errno;
		fprintf(stderr, _("ERROR: command '%s': cannot run it: %s\n"),
			cmd, strerror(err));
		if (write(e[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[0]);
	close(e[1]);
	*go_fd = p[1];
	*err_fd = e[0];
	return pid;
}

void command_release(struct session *s)
{
	if (s->child_go < 0)
		return;
	if (write(s->child_go, "g", 1) != 1)
		msg_warning(_("command '%s': cannot start it: %s"),
			    opt.command, strerror(errno));
	close(s->child_go);
	s->child_go = -1;
}

/* Reap children: the -c command ending stops the run (a command that
 * could not be executed makes the run fail); system() commands are just
 * collected. */
void command_reap(struct session *s, bool *command_ended)
{
	pid_t pid;
	int st, err;

	sig_child = 0;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid != s->child)
			continue;
		s->child = 0;
		*command_ended = true;
		if (s->child_err >= 0) {
			if (read(s->child_err, &err, sizeof(err)) ==
			    (ssize_t)sizeof(err))
				s->status = 1;	/* the child said why */
			close(s->child_err);
			s->child_err = -1;
		}
	}
}
