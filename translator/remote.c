/* remote.c - --remote: run one script on several hosts at once.
 *
 * tapc asks each target (over the user's own ssh client, or this machine
 * for direct://) for its kernel release and architecture, builds the
 * module once per distinct (architecture, release) by running itself
 * with --remote-build=ARCH:RELEASE:PASS (passes 1-4, with that kernel's
 * tree), copies the module (and a static taprun when the target has none
 * on its PATH) into a private folder made there with mktemp -d, and runs
 * it.  A small sh wrapper runs taprun on the target: it kills taprun with
 * SIGINT when a line, or the end of the stream, arrives on its standard
 * input, so ^C here (which writes that line) and a lost connection (the
 * end of the stream) both stop the run and unload the module; then it
 * removes the folder.  The targets' output is merged here line by line.
 * No program of tapc's own but taprun runs on a target. */
#include "driver.h"
#include "arch/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct LineBuf {
	char *data;
	size_t len, cap;
} LineBuf;

typedef struct Remote {
	int id;
	const char *uri;        /* as the user gave it */
	bool direct;
	const char *user;       /* ssh: NULL for ssh's own default */
	const char *host;
	const char *port;       /* NULL for ssh's own default */
	/* what the target said */
	bool failed;
	const char *arch;       /* tapc's name (-a) */
	const char *release;
	const char *taprun;     /* its taprun on PATH, or NULL */
	const char *dir;        /* the private folder there */
	const char *ko;         /* the module here */
	bool built;             /* its kernel's build was tried */
	/* the run */
	pid_t pid;
	int in_fd, out_fd, err_fd;
	LineBuf out, err;
} Remote;

static Vec remotes;            /* Remote * in command-line order */
static bool prefix_lines;

/* Exit status of a runner that has already said why it failed. */
#define RUNNER_REPORTED 200

int remote_count(void)
{
	return remotes.len;
}

void remote_set_prefix(void)
{
	prefix_lines = true;
}

_Noreturn static void bad_url(const char *url, const char *why)
{
	fprintf(stderr, _("tapc: invalid --remote '%s': %s\n"), url, why);
	exit(1);
}

static bool host_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr(".-_:%", c);
}

/* --remote URL: ssh://[USER@]HOST[:PORT], [USER@]HOST or direct://. */
void remote_add(const char *url)
{
	Remote *r = NEW(Remote);
	r->id = remotes.len;
	r->uri = url;
	r->in_fd = r->out_fd = r->err_fd = -1;
	if (!strcmp(url, "direct://")) {
		r->direct = true;
		vec_push(&remotes, r);
		return;
	}
	const char *rest = url;
	const char *sep = strstr(url, "://");
	if (sep) {
		if (strncmp(url, "ssh", (size_t)(sep - url)) || sep - url != 3) {
			if (!strncmp(url, "direct://", 9))
				bad_url(url, _("direct:// takes nothing after it"));
			bad_url(url, xsprintf(_("unsupported scheme '%.*s' (use ssh:// or "
						 "direct://)"), (int)(sep - url), url));
		}
		rest = sep + 3;
	} else if (!strncmp(url, "unix:", 5) || strchr(url, '/')) {
		bad_url(url, _("unsupported form (use ssh://[USER@]HOST[:PORT] or "
			       "direct://)"));
	}
	if (strchr(rest, '/'))
		bad_url(url, _("a path after the host is not supported"));
	const char *at = strrchr(rest, '@');
	if (at) {
		if (at == rest)
			bad_url(url, _("empty user name before '@'"));
		r->user = xstrndup(rest, at - rest);
		if (strpbrk(r->user, " \t'\"\\") || r->user[0] == '-')
			bad_url(url, _("invalid user name"));
		rest = at + 1;
	}
	const char *host_end;
	if (*rest == '[') {
		/* [IPv6]:PORT */
		const char *close = strchr(rest, ']');
		if (!close || close == rest + 1)
			bad_url(url, _("unclosed or empty '[' around the host"));
		r->host = xstrndup(rest + 1, close - rest - 1);
		host_end = close + 1;
		if (*host_end && *host_end != ':')
			bad_url(url, _("unexpected text after ']'"));
	} else {
		host_end = strchr(rest, ':');
		if (!host_end)
			host_end = rest + strlen(rest);
		r->host = xstrndup(rest, host_end - rest);
	}
	if (!*r->host)
		bad_url(url, _("no host name"));
	if (r->host[0] == '-')
		bad_url(url, _("a host name cannot start with '-'"));
	for (const char *c = r->host; *c; c++)
		if (!host_char_ok(*c))
			bad_url(url, xsprintf(_("invalid character '%c' in the host name"), *c));
	if (*host_end == ':') {
		const char *p = host_end + 1;
		char *end;
		errno = 0;
		long port = strtol(p, &end, 10);
		if (!*p || *end || errno || port < 1 || port > 65535 ||
		    strspn(p, "0123456789") != strlen(p))
			bad_url(url, xsprintf(_("invalid port '%s' (a number from 1 to "
						 "65535)"), p));
		r->port = xsprintf("%ld", port);
	}
	vec_push(&remotes, r);
}

/* ---- small helpers ---- */

/* 'text' for the target's sh. */
static const char *sh_quote(const char *s)
{
	StrBuf b = { 0 };
	sb_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(&b, "'\\''");
		else
			sb_putc(&b, *s);
	}
	sb_putc(&b, '\'');
	return sb_cstr(&b);
}

static const char *target_name(Remote *r)
{
	return xsprintf(_("target %d (%s)"), r->id, r->uri);
}

/* ssh's command line up to the remote command; the user's ssh
 * configuration applies, with no password prompts (many hosts at once
 * cannot share one terminal) and keep-alives, so a host that goes away
 * ends the run. */
static void ssh_argv(Vec *v, Remote *r)
{
	vec_push(v, "ssh");
	vec_push(v, "-o");
	vec_push(v, "BatchMode=yes");
	vec_push(v, "-o");
	vec_push(v, "ServerAliveInterval=5");
	vec_push(v, "-o");
	vec_push(v, "ServerAliveCountMax=3");
	if (r->port) {
		vec_push(v, "-p");
		vec_push(v, (void *)r->port);
	}
	if (r->user) {
		vec_push(v, "-l");
		vec_push(v, (void *)r->user);
	}
	vec_push(v, "--");
	vec_push(v, (void *)r->host);
}

/* Run argv with stdin from IN_PATH (NULL: /dev/null) and stdout into
 * OUT_PATH (NULL: ours); its stderr into ERR_PATH (NULL: ours).  The
 * exit status, or -1. */
static pid_t spawn(Vec *argv, const char *in_path, const char *out_path,
		   const char *err_path)
{
	vec_push(argv, NULL);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, _("tapc: cannot start %s: %s\n"),
			(char *)vec_get(argv, 0), strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0)
			_exit(127);
		if (out_path) {
			int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (out < 0 || dup2(out, 1) < 0)
				_exit(127);
		}
		if (err_path) {
			int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (err < 0 || dup2(err, 2) < 0)
				_exit(127);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(vec_get(argv, 0), (char **)argv->data);
		fprintf(stderr, _("tapc: cannot run %s: %s\n"), (char *)vec_get(argv, 0),
			strerror(errno));
		_exit(127);
	}
	return pid;
}

static int wait_status(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static int run_wait(Vec *argv, const char *in, const char *out, const char *err)
{
	pid_t pid = spawn(argv, in, out, err);
	return pid < 0 ? -1 : wait_status(pid);
}

/* The last non-empty line of a file, for a message. */
static const char *last_line(const char *path)
{
	char *text = read_whole_file(path, NULL);
	if (!text)
		return "";
	char *end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = 0;
	char *nl = strrchr(text, '\n');
	return nl ? nl + 1 : text;
}

/* uname -m's name as tapc's -a takes it. */
static const char *tapc_arch(const char *machine)
{
	if (!strcmp(machine, "aarch64"))
		return "arm64";
	return machine;
}

/* ---- step 1: what each target runs ---- */

static const char *work_dir;   /* our private temporary folder */

static void probe_targets(bool make_dir)
{
	pid_t *pids = xalloc((remotes.len + 1) * sizeof(pid_t));
	const char *cmd = make_dir ?
		"echo \"u $(uname -r) $(uname -m)\"; echo \"t $(command -v taprun)\"; "
		"echo \"d $(mktemp -d)\"" :
		"echo \"u $(uname -r) $(uname -m)\"; echo \"t $(command -v taprun)\"";
	for (int i = 0; i < remotes.len; i++) {
		Remote *r = vec_get(&remotes, i);
		pids[i] = -1;
		if (r->direct) {
			struct utsname u;
			uname(&u);
			r->release = xstrdup(u.release);
			r->arch = xstrdup(tapc_arch(u.machine));
			continue;
		}
		Vec argv = { 0 };
		ssh_argv(&argv, r);
		vec_push(&argv, (void *)cmd);
		pids[i] = spawn(&argv, NULL, xsprintf("%s/probe%d.out", work_dir, i),
				xsprintf("%s/probe%d.err", work_dir, i));
		if (pids[i] < 0)
			r->failed = true;
	}
	for (int i = 0; i < remotes.len; i++) {
		Remote *r = vec_get(&remotes, i);
		if (pids[i] < 0)
			continue;
		int st = wait_status(pids[i]);
		const char *err = last_line(xsprintf("%s/probe%d.err", work_dir, i));
		char *out = read_whole_file(xsprintf("%s/probe%d.out", work_dir, i), NULL);
		if (st == 255) {
			fprintf(stderr, _("tapc: %s: cannot reach it: %s\n"), target_name(r),
				*err ? err : _("ssh failed"));
			r->failed = true;
			continue;
		}
		char rel[256] = "", mach[64] = "";
		for (char *line = out ? strtok(out, "\n") : NULL; line;
		     line = strtok(NULL, "\n")) {
			if (!strncmp(line, "u ", 2))
				sscanf(line + 2, "%255s %63s", rel, mach);
			else if (!strncmp(line, "t /", 3))
				r->taprun = xstrdup(line + 2);
			else if (!strncmp(line, "d /", 3))
				r->dir = xstrdup(line + 2);
		}
		if (st != 0 || !*rel || !*mach || (make_dir && !r->dir)) {
			fprintf(stderr, _("tapc: %s: cannot learn its kernel and make a "
					  "folder there (exit status %d)%s%s\n"),
				target_name(r), st, *err ? ": " : "", err);
			r->failed = true;
			continue;
		}
		r->release = xstrdup(rel);
		r->arch = xstrdup(tapc_arch(mach));
		/* said here, by target: the build would only say "-a ARCH" */
		if (!arch_by_name(r->arch)) {
			fprintf(stderr, _("tapc: %s: its architecture '%s' (uname -m) is not "
					  "one tapc builds for (it knows %s)\n"),
				target_name(r), mach, arch_names());
			r->failed = true;
		}
	}

}

/* ---- step 2: one build per distinct kernel ---- */

/* tapc itself with --remote-build first, then the user's own options. */
static int build_for(int argc, char **argv, const char *arch, const char *release,
		     int pass, const char *out_path)
{
	Vec v = { 0 };
	vec_push(&v, "/proc/self/exe");
	vec_push(&v, xsprintf("--remote-build=%s:%s:%d", arch, release, pass));
	for (int i = 1; i < argc; i++)
		vec_push(&v, argv[i]);
	/* spawn() runs argv[0] by path: keep our own name for messages */
	return run_wait(&v, NULL, out_path, NULL);
}

/* The same (arch, release) as an earlier target's: its index, else -1. */
static int same_kernel_as(int i)
{
	Remote *r = vec_get(&remotes, i);
	for (int j = 0; j < i; j++) {
		Remote *o = vec_get(&remotes, j);
		if (o->built && !strcmp(o->arch, r->arch) &&
		    !strcmp(o->release, r->release))
			return j;
	}
	return -1;
}

/* Passes 1-4 (and -l/-L) for each kernel, their output as they make it. */
static int build_only(int argc, char **argv)
{
	int rc = 0;
	for (int i = 0; i < remotes.len; i++) {
		Remote *r = vec_get(&remotes, i);
		if (r->failed) {
			rc = 1;
			continue;
		}
		int j = same_kernel_as(i);
		if (j >= 0) {
			Remote *o = vec_get(&remotes, j);
			if (!o->failed)
				continue;
		} else {
			r->built = true;
			int st = build_for(argc, argv, r->arch, r->release, sess.last_pass,
					   NULL);
			if (st == 0)
				continue;
			rc = st > 0 ? st : 1;
		}
		/* the build's own error names no target: say which ones */
		fprintf(stderr, _("tapc: %s: the build for its kernel %s (%s) failed\n"),
			target_name(r), r->release, r->arch);
		r->failed = true;
	}
	return rc;
}

static bool build_modules(int argc, char **argv)
{
	bool any = false;
	for (int i = 0; i < remotes.len; i++) {
		Remote *r = vec_get(&remotes, i);
		if (r->failed)
			continue;
		int j = same_kernel_as(i);
		if (j >= 0) {
			Remote *o = vec_get(&remotes, j);
			r->ko = o->ko;
			r->failed = !o->ko;
			if (r->failed)
				fprintf(stderr, _("tapc: %s: no module for its kernel %s (%s)\n"),
					target_name(r), r->release, r->arch);
			any |= !r->failed;
			continue;
		}
		r->built = true;
		const char *out = xsprintf("%s/build%d.out", work_dir, i);
		int st = build_for(argc, argv, r->arch, r->release, 4, out);
		const char *ko = st == 0 ? last_line(out) : "";
		if (!*ko) {
			fprintf(stderr, _("tapc: %s: no module for its kernel %s (%s)\n"),
				target_name(r), r->release, r->arch);
			r->failed = true;
			continue;
		}
		/* -m NAME writes NAME.ko here, which the next build replaces */
		const char *dir = xsprintf("%s/m%d", work_dir, i);
		const char *base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
		const char *copy = xsprintf("%s/%s", dir, base);
		if (!make_dirs(dir) || !copy_file(ko, copy)) {
			fprintf(stderr, _("tapc: cannot copy %s: %s\n"), ko, strerror(errno));
			r->failed = true;
			continue;
		}
		r->ko = copy;
		any = true;
	}
	return any;
}

/* ---- step 3: run on every target ---- */

/* A static taprun for ARCH here: the build tree's (make taprun-static,
 * taprun-static-ARCH) or the installed one (target_taprun, run.c). */
static const char *static_taprun(const char *arch)
{
	const char *self = self_dir();
	if (self && !strcmp(arch, "x86_64")) {
		const char *tree = xsprintf("%s/taprun/taprun-static", self);
		if (is_file(tree) && access(tree, X_OK) == 0)
			return tree;
	}
	return target_taprun(arch);
}

/* ssh HOST 'cat > DEST' < FROM */
static bool upload(Remote *r, const char *from, const char *dest, bool exec)
{
	Vec argv = { 0 };
	ssh_argv(&argv, r);
	vec_push(&argv, (void *)xsprintf("cat > %s%s", sh_quote(dest),
					 exec ? xsprintf(" && chmod 755 %s", sh_quote(dest)) : ""));
	const char *err = xsprintf("%s/up%d.err", work_dir, r->id);
	int st = run_wait(&argv, from, NULL, err);
	if (st == 0)
		return true;
	fprintf(stderr, _("tapc: %s: cannot copy %s there: %s\n"), target_name(r), from,
		*last_line(err) ? last_line(err) : _("ssh failed"));
	return false;
}

static void remove_remote_dir(Remote *r)
{
	Vec argv = { 0 };
	ssh_argv(&argv, r);
	vec_push(&argv, (void *)xsprintf("rm -rf %s", sh_quote(r->dir)));
	run_wait(&argv, NULL, "/dev/null", "/dev/null");
}

/* The runner (a child of ours, in a process group of its own so the
 * terminal's ^C reaches only tapc): copy what the target lacks, then
 * become the ssh that runs taprun there, or taprun itself for direct://. */
_Noreturn static void runner(Remote *r)
{
	Vec targv = { 0 };
	const char *ko_there, *taprun;
	if (r->direct) {
		taprun = find_taprun();
		if (!taprun) {
			fprintf(stderr, _("tapc: %s: cannot find taprun (beside tapc or on "
					  "PATH)\n"), target_name(r));
			_exit(RUNNER_REPORTED);
		}
		ko_there = r->ko;
	} else {
		const char *base = strrchr(r->ko, '/') + 1;
		ko_there = xsprintf("%s/%s", r->dir, base);
		taprun = r->taprun;
		bool ok = true;
		if (!taprun) {
			const char *mine = static_taprun(r->arch);
			if (!mine) {
				fprintf(stderr, _("tapc: %s has no taprun on its PATH, and there is "
						  "no static taprun for %s here (make "
						  "taprun-static-%s)\n"), target_name(r), r->arch,
					r->arch);
				ok = false;
			} else {
				taprun = xsprintf("%s/taprun", r->dir);
				ok = upload(r, mine, taprun, true);
			}
		}
		if (ok)
			ok = upload(r, r->ko, ko_there, false);
		if (!ok) {
			remove_remote_dir(r);
			_exit(RUNNER_REPORTED);
		}
	}
	vec_push(&targv, (void *)taprun);
	vec_push(&targv, "-r");
	vec_push(&targv, (void *)xsprintf("%d:%s", r->id, r->uri));
	push_taprun_options(&targv, false);
	vec_push(&targv, (void *)ko_there);
	push_taprun_globals(&targv);
	vec_push(&targv, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (r->direct) {
		execv(taprun, (char **)targv.data);
		fprintf(stderr, _("tapc: %s: cannot run %s: %s\n"), target_name(r), taprun,
			strerror(errno));
		_exit(RUNNER_REPORTED);
	}
	/* taprun in the background; a line or the end of our stream on the
	 * wrapper's stdin stops it with SIGINT (its end probes run, the
	 * module is unloaded); then the folder goes. */
	StrBuf cmd = { 0 };
	sb_puts(&cmd, "exec 3<&0; ");
	for (int i = 0; i < targv.len - 1; i++) {
		sb_puts(&cmd, sh_quote(vec_get(&targv, i)));
		sb_putc(&cmd, ' ');
	}
	sb_printf(&cmd, "</dev/null 3<&- & p=$!; "
		   "{ read x <&3; kill -INT $p 2>/dev/null; } & w=$!; "
		   "wait $p; s=$?; kill $w 2>/dev/null; rm -rf %s; exit $s",
		   sh_quote(r->dir));
	Vec argv = { 0 };
	ssh_argv(&argv, r);
	vec_push(&argv, (void *)sb_cstr(&cmd));
	vec_push(&argv, NULL);
	execvp("ssh", (char **)argv.data);
	fprintf(stderr, _("tapc: %s: cannot run ssh: %s\n"), target_name(r), strerror(errno));
	_exit(RUNNER_REPORTED);
}

static int stop_pipe[2] = { -1, -1 };

static void on_stop(int sig)
{
	char c = (char)sig;
	int saved = errno;
	if (write(stop_pipe[1], &c, 1) < 0) {
		/* the loop has a stop pending already */
	}
	errno = saved;
}

static bool start_runner(Remote *r)
{
	int in[2], out[2], err[2];
	if (pipe(in) || pipe(out) || pipe(err)) {
		fprintf(stderr, _("tapc: cannot make a pipe: %s\n"), strerror(errno));
		return false;
	}
	fflush(stdout);
	fflush(stderr);
	r->pid = fork();
	if (r->pid < 0) {
		fprintf(stderr, _("tapc: cannot start a runner: %s\n"), strerror(errno));
		return false;
	}
	if (r->pid == 0) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		for (int fd = 3; fd < 256; fd++)
			close(fd);
		runner(r);
	}
	setpgid(r->pid, r->pid);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	r->in_fd = in[1];
	r->out_fd = out[0];
	r->err_fd = err[0];
	fcntl(r->in_fd, F_SETFD, FD_CLOEXEC);
	fcntl(r->out_fd, F_SETFD, FD_CLOEXEC);
	fcntl(r->err_fd, F_SETFD, FD_CLOEXEC);
	return true;
}

/* Whole lines of B to F (with "N: " first under --remote-prefix); at EOF
 * the rest too.  One write per line, so lines of different targets never
 * mix. */
static void flush_lines(Remote *r, LineBuf *b, FILE *f, bool eof)
{
	size_t start = 0;
	for (;;) {
		char *nl = memchr(b->data + start, '\n', b->len - start);
		size_t end = nl ? (size_t)(nl - b->data) + 1 : b->len;
		if (!nl && !(eof && end > start))
			break;
		if (prefix_lines)
			fprintf(f, "%d: ", r->id);
		fwrite(b->data + start, 1, end - start, f);
		fflush(f);
		start = end;
		if (!nl)
			break;
	}
	memmove(b->data, b->data + start, b->len - start);
	b->len -= start;
}

static bool read_into(Remote *r, int *fd, LineBuf *b, FILE *f)
{
	if (b->cap - b->len < 4096) {
		b->cap = b->cap ? b->cap * 2 : 8192;
		b->data = realloc(b->data, b->cap);
		if (!b->data) {
			fprintf(stderr, _("tapc: out of memory\n"));
			exit(1);
		}
	}
	ssize_t n = read(*fd, b->data + b->len, b->cap - b->len);
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0) {
		flush_lines(r, b, f, true);
		close(*fd);
		*fd = -1;
		return false;
	}
	b->len += (size_t)n;
	flush_lines(r, b, f, false);
	return true;
}

/* Stop every target: the wrapper's line for ssh, SIGINT for taprun here. */
static void stop_all(int round)
{
	for (int i = 0; i < remotes.len; i++) {
		Remote *r = vec_get(&remotes, i);
		if (r->pid <= 0)
			continue;
		if (round > 1) {
			/* a second ^C: no more waiting for the targets */
			kill(-r->pid, SIGTERM);
			continue;
		}
		if (r->direct) {
			kill(r->pid, SIGINT);
		} else if (r->in_fd >= 0) {
			if (write(r->in_fd, "stop\n", 5) < 0) {
				/* ssh is gone already: its exit says so */
			}
			close(r->in_fd);
			r->in_fd = -1;
		}
	}
}

static int run_targets(FILE *out)
{
	int rc = 0, running = 0, stops = 0;
	time_t first_stop = 0;
	if (pipe(stop_pipe) == 0) {
		fcntl(stop_pipe[0], F_SETFD, FD_CLOEXEC);
		fcntl(stop_pipe[1], F_SETFD, FD_CLOEXEC);
		fcntl(stop_pipe[1], F_SETFL, O_NONBLOCK);
	}
	struct sigaction sa = { 0 };
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < remotes.len; i++) {
		Remote *r = vec_get(&remotes, i);
		if (r->failed)
			continue;
		if (start_runner(r))
			running++;
		else
			r->failed = true;
	}
	Vec pfd_of = { 0 };
	while (running > 0) {
		struct pollfd pfd[2 * remotes.len + 1];
		int n = 0;
		pfd_of.len = 0;
		pfd[n++] = (struct pollfd){ .fd = stop_pipe[0], .events = POLLIN };
		for (int i = 0; i < remotes.len; i++) {
			Remote *r = vec_get(&remotes, i);
			if (r->out_fd >= 0) {
				pfd[n++] = (struct pollfd){ .fd = r->out_fd, .events = POLLIN };
				vec_push(&pfd_of, r);
			}
			if (r->err_fd >= 0) {
				pfd[n++] = (struct pollfd){ .fd = r->err_fd, .events = POLLIN };
				vec_push(&pfd_of, r);
			}
		}
		if (n > 1 && poll(pfd, n, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN) {
			char c[16];
			/* one ^C often comes twice (the terminal's to the
			 * process group, a wrapper's forwarded): a second
			 * round needs a second signal a moment later */
			if (read(stop_pipe[0], c, sizeof(c)) > 0 &&
			    (!stops || time(NULL) > first_stop + 1)) {
				if (!stops)
					first_stop = time(NULL);
				stop_all(++stops);
			}
		}
		for (int k = 1; k < n; k++) {
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			Remote *r = vec_get(&pfd_of, k - 1);
			if (pfd[k].fd == r->out_fd)
				read_into(r, &r->out_fd, &r->out, out);
			else
				read_into(r, &r->err_fd, &r->err, stderr);
		}
		/* a runner whose output has ended is waited for */
		for (int i = 0; i < remotes.len; i++) {
			Remote *r = vec_get(&remotes, i);
			if (r->pid <= 0 || r->out_fd >= 0 || r->err_fd >= 0)
				continue;
			int st = wait_status(r->pid);
			r->pid = 0;
			running--;
			if (r->in_fd >= 0) {
				close(r->in_fd);
				r->in_fd = -1;
			}
			if (st == 0)
				continue;
			rc = 1;
			if (st == RUNNER_REPORTED)
				continue;
			if (st == 255 && !r->direct)
				fprintf(stderr, _("tapc: %s: the connection was lost (ssh failed)\n"),
					target_name(r));
			else if (st > 128 && !r->direct)
				fprintf(stderr, _("tapc: %s: the connection was lost (ssh was "
						  "killed by signal %d)\n"), target_name(r), st - 128);
			else
				fprintf(stderr, _("tapc: %s: the run failed (exit status %d)\n"),
					target_name(r), st);
		}
	}
	return rc;
}

/* ---- the whole of --remote ---- */

int remote_main(int argc, char **argv)
{
	work_dir = make_temp_dir("tapc-remote");
	if (!work_dir)
		return 1;
	bool listing = sess.listing || sess.dump_functions || sess.dump_probe_aliases ||
		       sess.dump_globals;
	probe_targets(sess.last_pass == 5 && !listing);
	int rc;
	if (sess.last_pass < 5 || listing) {
		rc = build_only(argc, argv);
	} else {
		FILE *out = stdout;
		if (sess.output_file) {
			out = fopen(sess.output_file, "w");
			if (!out) {
				fprintf(stderr, _("tapc: cannot write %s: %s\n"),
					sess.output_file, strerror(errno));
				out = stdout;
				sess.output_file = NULL;
			}
		}
		bool any = build_modules(argc, argv);
		/* --sign-module is among the options the builds were given
		 * (build_modules): each module comes back signed with the
		 * digest its own kernel's configuration names */
		rc = any ? run_targets(out) : 1;
		for (int i = 0; i < remotes.len; i++) {
			Remote *r = vec_get(&remotes, i);
			if (r->failed)
				rc = 1;
			/* a target whose run never started keeps no folder */
			if (!r->direct && r->dir && r->failed && !r->ko)
				remove_remote_dir(r);
		}
		if (out != stdout && fclose(out) != 0) {
			fprintf(stderr, _("tapc: cannot write %s: %s\n"), sess.output_file,
				strerror(errno));
			rc = 1;
		}
	}
	temp_dir_forget(work_dir);
	remove_tree(work_dir);
	return rc;
}
