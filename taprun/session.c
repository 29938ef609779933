/* session.c - one run of a module: load it, START it, stream its output
 * until it ends, STOP it, report, unload it.
 *
 * The stop signals and SIGCHLD stay blocked except inside ppoll(), so a
 * handler only sets a flag.  ppoll() delivers a pending signal only when
 * it would sleep, and while a chatty script keeps a trace file readable it
 * never sleeps: so every round also takes the pending signals itself
 * (take_signals()), and a stop is seen within one round at any output
 * rate.  Relay wakes a poller only when a whole sub-buffer is full, so the
 * trace files are also read every POLL_MS.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "taprun.h"
#include "merge.h"
#include "outfile.h"
#include "tap_wire.h"

#define DEBUGFS_DEFAULT	"/sys/kernel/debug"
#define DEBUGFS_FS_MAGIC 0x64626720
#define POLL_MS		100
#define HELLO_WAIT_MS	10000
#define UNLOAD_WAIT_MS	5000
#define READ_BUDGET	(8u << 20)	/* per stream and round */
#define READ_MIN	(64u << 10)
/* After a small read, let output gather this long before polling again:
 * each poll that sleeps makes the next record wake us (an irq_work, an
 * IPI), and waking per handful of records costs more than the records. */
#define BATCH_MS	10
#define BATCH_BYTES	(1u << 20)

struct session {
	char name[64];			/* the kernel's module name */
	bool loaded;
	char dir[PATH_MAX];		/* transport directory */
	int ctl;
	struct tap_msg_hello hello;
	struct merger merge;
	FILE *out;			/* stdout, when there is no -o */
	struct outfile *files;		/* -o: one, or one per CPU (-b) */
	unsigned int nfiles;
	bool *reported_broken;
	pid_t child;			/* -c command, 0 if none */
	int child_go;			/* write end: let the child exec */
	int child_err;			/* read end: errno if exec failed */
	bool started, stop_sent, done_seen, aborting, output_failed;
	int input;			/* /proc/systemtap/NAME/__stdin, or -1 */
	struct timespec t_start, t_done;
	struct tap_msg_done done;
	unsigned long error_msgs;
	int status;			/* exit status so far */
};

static volatile sig_atomic_t sig_stop;	/* stop signals received */
static volatile sig_atomic_t sig_child;
static sigset_t loop_signals;		/* blocked outside ppoll() */
static FILE *cur_out;

static void on_stop_signal(int sig)
{
	(void)sig;
	sig_stop++;
}

static void on_child_signal(int sig)
{
	(void)sig;
	sig_child = 1;
}

void flush_output(void)
{
	if (cur_out)
		fflush(cur_out);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Block the signals the loop handles; ppoll() unblocks them. */
static void setup_signals(sigset_t *orig)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaddset(&set, stops[i]);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, orig);
	loop_signals = set;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop_signal;
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], &sa, NULL);
	sa.sa_handler = on_child_signal;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Take the signals that came while they were blocked (see the top). */
static void take_signals(void)
{
	const struct timespec zero = { 0, 0 };
	int sig;

	while ((sig = sigtimedwait(&loop_signals, NULL, &zero)) > 0) {
		if (sig == SIGCHLD)
			sig_child = 1;
		else
			sig_stop++;
	}
}

static void child_defaults(const sigset_t *orig)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, orig, NULL);
}

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
static int check_command(const char *cmd)
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
static pid_t spawn_command(const char *cmd, int *go_fd, int *err_fd,
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
		child_defaults(orig);
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

static void release_child(struct session *s)
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
static void reap_children(struct session *s, bool *command_ended)
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

/* "NAME=VALUE ..." for the kernel; a value with blanks is quoted. */
static char *build_params(void)
{
	size_t len = 64;
	char *buf, *p;
	int i;

	for (i = 0; i < opt.nparams; i++)
		len += strlen(opt.params[i]) + 4;
	buf = malloc(len);
	if (!buf)
		return NULL;
	p = buf;
	*p = '\0';
	for (i = 0; i < opt.nparams; i++) {
		const char *a = opt.params[i], *eq = strchr(a, '=');

		if (strpbrk(eq + 1, " \t") && !strchr(eq + 1, '"'))
			p += sprintf(p, "%s%.*s\"%s\"", p == buf ? "" : " ",
				     (int)(eq + 1 - a), a, eq + 1);
		else
			p += sprintf(p, "%s%s", p == buf ? "" : " ", a);
	}
	if (opt.buffer_mb)
		sprintf(p, "%s_tap_bufsize=%u", p == buf ? "" : " ",
			opt.buffer_mb * 1024);
	return buf;
}

static const char *debugfs_dir(void)
{
	return opt.debugfs ? opt.debugfs : DEBUGFS_DEFAULT;
}

/* The module falls back to procfs without debugfs, so a failure here is
 * only worth a verbose note. */
static void ensure_debugfs(void)
{
	const char *dir = debugfs_dir();
	struct statfs sf;

	if (statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == DEBUGFS_FS_MAGIC)
		return;
	if (mount("debugfs", dir, "debugfs", 0, NULL) == 0)
		msg_verbose(1, _("mounted debugfs on %s"), dir);
	else
		msg_verbose(1, _("cannot mount debugfs on %s: %s"), dir,
			    strerror(errno));
}

static int open_ctl(struct session *s)
{
	char path[PATH_MAX + 8];

	snprintf(s->dir, sizeof(s->dir), "%s/%s%s", debugfs_dir(),
		 TAP_DIR_PREFIX, s->name);
	snprintf(path, sizeof(path), "%s/ctl", s->dir);
	s->ctl = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (s->ctl < 0 && errno == ENOENT) {
		snprintf(s->dir, sizeof(s->dir), "/proc/%s%s", TAP_DIR_PREFIX,
			 s->name);
		snprintf(path, sizeof(path), "%s/ctl", s->dir);
		s->ctl = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	}
	if (s->ctl < 0) {
		int err = -errno;

		if (err == -ENOENT)
			msg_error(_("module '%s': no control file in %s/%s%s or /proc/%s%s: is it a tapc module?"),
				  s->name, debugfs_dir(), TAP_DIR_PREFIX,
				  s->name, TAP_DIR_PREFIX, s->name);
		else
			msg_error(_("module '%s': cannot open %s: %s"), s->name,
				  path, strerror(-err));
		return err;
	}
	msg_verbose(1, _("module '%s': transport in %s"), s->name, s->dir);
	return 0;
}

static int send_msg(struct session *s, const void *msg, size_t size)
{
	ssize_t n;

	do
		n = write(s->ctl, msg, size);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)size)
		return 0;
	return n < 0 ? -errno : -EIO;
}

static void request_stop(struct session *s, const char *why)
{
	struct tap_msg_hdr m = { sizeof(m), TAP_MSG_STOP };
	int err;

	if (s->stop_sent || s->aborting)
		return;
	msg_verbose(1, _("module '%s': stopping (%s)"), s->name, why);
	s->stop_sent = true;
	err = send_msg(s, &m, sizeof(m));
	if (err) {
		msg_error(_("module '%s': cannot send STOP: %s"), s->name,
			  strerror(-err));
		s->aborting = true;
		s->status = 1;
	}
}

static int send_start(struct session *s)
{
	struct tap_msg_start m;
	struct tm tm;
	time_t now = time(NULL);
	int err;

	memset(&m, 0, sizeof(m));
	m.hdr.size = sizeof(m);
	m.hdr.type = TAP_MSG_START;
	m.version = TAP_TRANSPORT_VERSION;
	m.flags = opt.no_warnings ? TAP_START_F_SUPPRESS_WARNINGS : 0;
	m.target_pid = s->child ? s->child : opt.target_pid;
	m.remote_id = opt.remote_id;
	tzset();
	if (localtime_r(&now, &tm)) {
		m.tz_gmtoff = -tm.tm_gmtoff;
		if (tm.tm_zone)
			snprintf(m.tz_name, sizeof(m.tz_name), "%s", tm.tm_zone);
	}
	if (opt.remote_uri)
		snprintf(m.remote_uri, sizeof(m.remote_uri), "%s",
			 opt.remote_uri);
	err = send_msg(s, &m, sizeof(m));
	if (err)
		msg_error(_("module '%s': cannot send START: %s"), s->name,
			  strerror(-err));
	return err;
}

/* ---- messages from the module ---- */

/* Warnings are printed once each: remember hashes of their texts. */
static bool warning_seen(const char *text, size_t len)
{
	static uint64_t seen[4096];
	uint64_t h = 1469598103934665603ull;
	size_t i, slot;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
	h |= 1;		/* 0 marks a free slot */
	for (i = 0; i < 4096; i++) {
		slot = (h + i) & 4095;
		if (seen[slot] == h)
			return true;
		if (!seen[slot]) {
			seen[slot] = h;
			return false;
		}
	}
	return false;
}

static void run_system(struct session *s, const char *cmd, size_t len)
{
	char *c = strndup(cmd, len);
	pid_t pid;

	if (!c)
		return;
	msg_verbose(2, _("module '%s': system(\"%s\")"), s->name, c);
	flush_output();
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		child_defaults(&none);
		execl("/bin/sh", "sh", "-c", c, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		msg_warning(_("module '%s': system(\"%s\"): cannot fork: %s"),
			    s->name, c, strerror(errno));
	free(c);
}

/* A script with input.char/input.line probes has the procfs file
 * /proc/systemtap/NAME/__stdin (their alias, in the input tapset): our
 * standard input is fed to it from the start on, one byte per write,
 * which fires input.char once per character (input.line gathers them). */
static void open_input(struct session *s)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", s->name);
	s->input = open(path, O_WRONLY | O_CLOEXEC);
	if (s->input < 0 && errno != ENOENT)
		msg_warning(_("module '%s': cannot open %s for the input probes: %s"),
			    s->name, path, strerror(errno));
	if (s->input >= 0)
		msg_verbose(1, _("module '%s': feeding standard input to its input probes"),
			    s->name);
}

static void close_input(struct session *s)
{
	if (s->input >= 0)
		close(s->input);
	s->input = -1;
}

/* Standard input is readable: pass what it has on.  End of file (or an
 * error) ends the feed, not the run. */
static void feed_input(struct session *s)
{
	char buf[4096];
	ssize_t n = read(0, buf, sizeof(buf)), i;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_input(s);
		return;
	}
	for (i = 0; i < n; i++) {
		if (write(s->input, buf + i, 1) != 1) {
			if (errno == EINTR) {
				i--;
				continue;
			}
			/* the module stopped: its file is gone */
			close_input(s);
			return;
		}
	}
}

static void on_started(struct session *s, const struct tap_msg_status *m)
{
	if (m->status) {
		msg_error(_("module '%s': start failed: %s"), s->name,
			  strerror(-m->status));
		s->status = 1;
		request_stop(s, _("start failed"));
		return;
	}
	s->started = true;
	clock_gettime(CLOCK_MONOTONIC, &s->t_start);
	msg_verbose(1, _("module '%s': started"), s->name);
	open_input(s);
	release_child(s);
}

/* raw: the whole message, h: a copy of its (maybe unaligned) header. */
static void handle_msg(struct session *s, const struct tap_msg_hdr *h,
		       const char *raw)
{
	const char *text = raw + sizeof(*h);
	size_t len = h->size - sizeof(*h);

	switch (h->type) {
	case TAP_MSG_HELLO:
		memset(&s->hello, 0, sizeof(s->hello));
		memcpy(&s->hello, raw, h->size < sizeof(s->hello) ?
					 h->size : sizeof(s->hello));
		break;
	case TAP_MSG_STARTED: {
		struct tap_msg_status m = { .status = -EPROTO };

		if (h->size >= sizeof(m))
			memcpy(&m, raw, sizeof(m));
		on_started(s, &m);
		break;
	}
	case TAP_MSG_ERROR:
		s->error_msgs++;
		msg_from_module(true, text, len);
		break;
	case TAP_MSG_WARNING:
		if (!opt.no_warnings && !warning_seen(text, len))
			msg_from_module(false, text, len);
		break;
	case TAP_MSG_SYSTEM:
		run_system(s, text, len);
		break;
	case TAP_MSG_EXIT:
		request_stop(s, _("the script called exit()"));
		break;
	case TAP_MSG_DONE:
		memset(&s->done, 0, sizeof(s->done));
		memcpy(&s->done, raw, h->size < sizeof(s->done) ?
					h->size : sizeof(s->done));
		s->done_seen = true;
		clock_gettime(CLOCK_MONOTONIC, &s->t_done);
		msg_verbose(1, _("module '%s': end probes done"), s->name);
		break;
	default:
		msg_verbose(2, _("module '%s': ignoring control message type %u"),
			    s->name, h->type);
		break;
	}
}

/* Read and handle all pending control messages. */
static int read_ctl(struct session *s)
{
	static char buf[4 * TAP_MSG_MAX];
	struct tap_msg_hdr h;
	size_t off;
	ssize_t n;

	for (;;) {
		n = read(s->ctl, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EPIPE;

			msg_error(_("module '%s': control channel: %s"),
				  s->name, n < 0 ? strerror(errno) :
				  _("closed by the module"));
			return err;
		}
		for (off = 0; off < (size_t)n; off += h.size) {
			if (n - off < sizeof(h))
				h.size = 0;
			else
				memcpy(&h, buf + off, sizeof(h));
			if (h.size < sizeof(h) || h.size > n - off) {
				msg_error(_("module '%s': control channel: malformed message"),
					  s->name);
				return -EPROTO;
			}
			handle_msg(s, &h, buf + off);
		}
	}
}

static int wait_hello(struct session *s)
{
	struct pollfd p = { .fd = s->ctl, .events = POLLIN };
	double deadline = now_s() + HELLO_WAIT_MS / 1000.0;
	int err;

	while (!s->hello.hdr.size) {
		int left = (int)((deadline - now_s()) * 1000);

		if (left <= 0) {
			msg_error(_("module '%s': no answer on the control channel"),
				  s->name);
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, left) < 0 && errno != EINTR)
			return -errno;
		err = read_ctl(s);
		if (err)
			return err;
	}
	if (s->hello.version != TAP_TRANSPORT_VERSION) {
		msg_error(_("module '%s': transport version %u, but this taprun speaks version %u"),
			  s->name, s->hello.version, TAP_TRANSPORT_VERSION);
		return -EPROTO;
	}
	msg_verbose(1, _("module '%s': %s transport, %u trace files, %llu KiB per CPU"),
		    s->name, s->hello.mode == TAP_TRACE_RELAY ? "relay" : "ring",
		    s->hello.nr_trace,
		    (unsigned long long)s->hello.buf_size / 1024);
	return 0;
}

/* ---- output ---- */

static void fail_output(struct session *s)
{
	s->output_failed = true;
	s->status = 1;
	request_stop(s, _("output failed"));
}

static struct outfile *file_of(struct session *s, int cpu)
{
	if (!s->files)
		return NULL;
	if (opt.bulk)
		return (unsigned int)cpu < s->nfiles && s->files[cpu].pattern ?
			       &s->files[cpu] : NULL;
	return &s->files[0];
}

static int emit_record(void *arg, int cpu, const char *data, size_t len)
{
	struct session *s = arg;
	struct outfile *o = file_of(s, cpu);

	if (s->output_failed)
		return 0;
	if (o) {
		if (outfile_write(o, data, len))
			fail_output(s);
		return 0;
	}
	if (!s->out)
		return 0;
	if (fwrite(data, 1, len, s->out) != len) {
		s->output_failed = true;
		if (errno != EPIPE) {
			msg_error(_("cannot write the output: %s"),
				  strerror(errno));
			s->status = 1;
		}
		request_stop(s, _("output failed"));
	}
	return 0;
}

/* switch_file(): in bulk mode every CPU's file switches (the mark is in
 * one CPU's stream; the files of the others have no common order). */
static int emit_mark(void *arg, int cpu, uint32_t flag)
{
	struct session *s = arg;
	unsigned int i;

	(void)cpu;
	if (flag != TAP_REC_F_SWITCH || s->output_failed)
		return 0;
	if (!opt.size_mb) {
		msg_verbose(2, _("module '%s': switch_file() without -S: ignored"),
			    s->name);
		return 0;
	}
	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].pattern && outfile_switch(&s->files[i])) {
			fail_output(s);
			break;
		}
	return 0;
}

static int open_outputs(struct session *s)
{
	unsigned int n = 1;
	int i;

	if (!opt.outfile && !opt.bulk) {
		s->out = stdout;
		cur_out = s->out;
		return 0;
	}
	if (opt.bulk)
		n = s->hello.nr_trace;
	s->files = calloc(n, sizeof(*s->files));
	if (!s->files)
		return -ENOMEM;
	s->nfiles = n;
	for (i = 0; i < (opt.bulk ? s->merge.nr : 1); i++) {
		int cpu = opt.bulk ? s->merge.streams[i].cpu : 0;
		struct outfile *o = &s->files[cpu];

		/* -b: NAME_N, or tapc_cpuN without -o */
		o->pattern = opt.outfile ? opt.outfile : "tapc_cpu";
		o->cpu = opt.bulk ? cpu : -1;
		o->cpu_no_sep = !opt.outfile;
		o->numbered = opt.size_mb != 0;
		o->max_bytes = (uint64_t)opt.size_mb << 20;
		o->keep = opt.size_files;
		if (outfile_open(o)) {
			outfile_close(o);
			o->pattern = NULL;
			return -EIO;
		}
	}
	return 0;
}

static void close_outputs(struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->nfiles; i++) {
		if (!s->files[i].pattern)
			continue;
		if (outfile_close(&s->files[i]) && !s->output_failed) {
			msg_error(_("cannot write the output: %s"),
				  strerror(errno));
			s->status = 1;
		}
	}
	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
	if (s->out && fflush(s->out) && !s->output_failed &&
	    errno != EPIPE) {
		msg_error(_("cannot write the output: %s"), strerror(errno));
		s->status = 1;
	}
	s->out = NULL;
	cur_out = NULL;
}

/* ---- trace files ---- */

static int open_traces(struct session *s)
{
	int *cpus, nr = 0, err;
	unsigned int cpu;
	char path[PATH_MAX + 32];

	if (s->hello.nr_trace == 0 || s->hello.nr_trace > 65536) {
		msg_error(_("module '%s': bad number of trace files (%u)"),
			  s->name, s->hello.nr_trace);
		return -EPROTO;
	}
	cpus = calloc(s->hello.nr_trace, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	/* Which files exist: CPUs that are not possible have none. */
	for (cpu = 0; cpu < s->hello.nr_trace; cpu++) {
		snprintf(path, sizeof(path), "%s/trace%u", s->dir, cpu);
		if (access(path, F_OK) == 0)
			cpus[nr++] = cpu;
	}
	err = merger_init(&s->merge, nr, cpus, s->hello.max_record,
			  emit_record, s);
	free(cpus);
	if (err)
		return err;
	s->merge.mark = emit_mark;
	s->merge.ordered = !opt.bulk;
	s->reported_broken = calloc(nr ? nr : 1, sizeof(bool));
	if (!s->reported_broken)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		struct stream *st = &s->merge.streams[i];

		snprintf(path, sizeof(path), "%s/trace%d", s->dir, st->cpu);
		st->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (st->fd < 0) {
			err = -errno;
			msg_error(_("module '%s': trace buffer %d: cannot open %s: %s"),
				  s->name, st->cpu, path, strerror(errno));
			return err;
		}
	}
	if (nr == 0) {
		msg_error(_("module '%s': no trace files in %s"), s->name, s->dir);
		return -ENOENT;
	}
	return 0;
}

static void close_traces(struct session *s)
{
	int i;

	for (i = 0; i < s->merge.nr; i++) {
		if (s->merge.streams[i].fd >= 0)
			close(s->merge.streams[i].fd);
		s->merge.streams[i].fd = -1;
	}
}

/* Read what each trace file has (up to a budget).  Sets *got if any;
 * returns the bytes read. */
static size_t read_traces(struct session *s, bool *got)
{
	size_t all = 0;
	int i;

	for (i = 0; i < s->merge.nr; i++) {
		struct stream *st = &s->merge.streams[i];
		size_t total = 0;

		while (st->fd >= 0 && total < READ_BUDGET) {
			size_t room;
			char *p = merger_space(&s->merge, i, READ_MIN, &room);
			ssize_t n;

			if (!p) {
				msg_error(_("module '%s': trace buffer %d: out of memory"),
					  s->name, st->cpu);
				close(st->fd);
				st->fd = -1;
				break;
			}
			n = read(st->fd, p, room);
			if (n < 0 && errno == EINTR)
				continue;
			if (n == 0 || (n < 0 && errno == EAGAIN))
				break;
			if (n < 0) {
				msg_error(_("module '%s': trace buffer %d: read failed: %s"),
					  s->name, st->cpu, strerror(errno));
				close(st->fd);
				st->fd = -1;
				break;
			}
			merger_added(&s->merge, i, n);
			total += n;
			*got = true;
		}
		all += total;
	}
	return all;
}

static void merge_output(struct session *s, bool final)
{
	int i;

	merger_run(&s->merge, final);
	for (i = 0; i < s->merge.nr; i++) {
		struct stream *st = &s->merge.streams[i];

		if (st->broken && !s->reported_broken[i]) {
			s->reported_broken[i] = true;
			msg_error(_("module '%s': trace buffer %d: corrupt record (length %u); ignoring the rest of it"),
				  s->name, st->cpu, st->bad_len);
			s->status = 1;
			close(st->fd);
			st->fd = -1;
		}
	}
	if (s->out && !s->output_failed)
		fflush(s->out);
	for (i = 0; i < (int)s->nfiles && !s->output_failed; i++)
		if (s->files[i].f)
			fflush(s->files[i].f);
}

/* After DONE (or when giving up): read until every file is empty. */
static void drain(struct session *s)
{
	bool got = true;
	int rounds = 0;

	while (got && rounds++ < 100000) {
		got = false;
		read_traces(s, &got);
		merge_output(s, false);
	}
	merge_output(s, true);
	if (merger_leftover(&s->merge))
		msg_verbose(1, _("module '%s': %zu bytes of an incomplete record left"),
			    s->name, merger_leftover(&s->merge));
	if (s->merge.skipped_seqs && !s->aborting)
		msg_warning(_("module '%s': %llu output records missing from the sequence"),
			    s->name, (unsigned long long)s->merge.skipped_seqs);
}

/* ---- the loop ---- */

static int poll_timeout_ms(struct session *s, double deadline)
{
	int ms = POLL_MS;

	if (deadline > 0 && !s->stop_sent) {
		double left = (deadline - now_s()) * 1000;

		if (left < ms)
			ms = left < 0 ? 0 : (int)left + 1;
	}
	return ms;
}

static void run_loop(struct session *s, const sigset_t *orig)
{
	struct pollfd *pfd;
	int i, n = s->merge.nr + 1;
	unsigned int stops_seen = 0;
	double deadline = 0;

	pfd = calloc(n + 1, sizeof(*pfd));
	if (!pfd) {
		s->aborting = true;
		return;
	}
	while (!s->done_seen && !s->aborting) {
		bool got = false, command_ended = false;
		int ms = poll_timeout_ms(s, deadline);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		pfd[0].fd = s->ctl;
		pfd[0].events = POLLIN;
		for (i = 0; i < s->merge.nr; i++) {
			pfd[i + 1].fd = s->merge.streams[i].fd;
			pfd[i + 1].events = POLLIN;
		}
		/* last: standard input, while it feeds the input probes */
		pfd[n].fd = s->input >= 0 && !s->stop_sent ? 0 : -1;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		if (ppoll(pfd, n + 1, &ts, orig) < 0 && errno != EINTR) {
			msg_error(_("module '%s': poll failed: %s"), s->name,
				  strerror(errno));
			s->aborting = true;
			break;
		}
		take_signals();
		if (sig_stop != (sig_atomic_t)stops_seen) {
			stops_seen = sig_stop;
			if (s->stop_sent) {
				msg_warning(_("module '%s': interrupted again, not waiting for the end probes"),
					    s->name);
				s->aborting = true;
				break;
			}
			request_stop(s, _("signal"));
		}
		if (sig_child) {
			reap_children(s, &command_ended);
			if (command_ended)
				request_stop(s, _("the command exited"));
		}
		if (read_ctl(s)) {
			s->status = 1;
			s->aborting = true;
			break;
		}
		if (pfd[n].fd >= 0 && s->input >= 0 && pfd[n].revents)
			feed_input(s);
		if (s->started && opt.timeout > 0 && deadline == 0)
			deadline = now_s() + opt.timeout;
		if (deadline > 0 && now_s() >= deadline)
			request_stop(s, _("time limit"));
		if (read_traces(s, &got) < BATCH_BYTES && got) {
			const struct timespec batch = { 0, BATCH_MS * 1000000L };

			merge_output(s, false);
			nanosleep(&batch, NULL);
			continue;
		}
		merge_output(s, false);
	}
	free(pfd);
}

static void report(struct session *s)
{
	const struct tap_msg_done *d = &s->done;
	static const char *const reasons[TAP_SKIP_NR] = {
		[TAP_SKIP_REENTRANT] = N_("reentrancy"),
		[TAP_SKIP_LOCK] = N_("global lock timeout"),
		[TAP_SKIP_STATE] = N_("starting or stopping"),
		[TAP_SKIP_KRETPROBE] = N_("missed kretprobe"),
		[TAP_SKIP_UPROBE] = N_("missed uprobe"),
		[TAP_SKIP_OTHER] = N_("other reasons"),
	};
	unsigned long long skipped = 0;
	unsigned int i, nr = d->nr_skip < TAP_SKIP_SLOTS ? d->nr_skip :
							  TAP_SKIP_SLOTS;

	if (!s->done_seen) {
		if (s->started && !s->aborting)
			msg_warning(_("module '%s': no summary from the module (the run was cut short)"),
				    s->name);
		return;
	}
	for (i = 0; i < nr; i++)
		skipped += d->skipped[i];
	if (d->errors || skipped)
		msg_warning(_("Number of errors: %llu, skipped probes: %llu"),
			    (unsigned long long)d->errors, skipped);
	for (i = 0; i < nr; i++)
		if (d->skipped[i])
			msg_warning(_("Skipped due to %s: %llu"),
				    i < TAP_SKIP_NR ? _(reasons[i]) : "?",
				    (unsigned long long)d->skipped[i]);
	if (d->records_dropped)
		msg_warning(_("%llu output records lost (transport buffer full)"),
			    (unsigned long long)d->records_dropped);
	if (d->msgs_dropped)
		msg_warning(_("%llu error or warning messages lost (control queue full)"),
			    (unsigned long long)d->msgs_dropped);
	if (d->errors)
		s->status = 1;
	if (s->started && opt.verbose) {
		double t = elapsed(&s->t_start, &s->t_done);

		msg_verbose(1, _("module '%s': %llu records, %llu bytes in %.3f s (%.0f records/s); taprun wrote %llu records"),
			    s->name, (unsigned long long)d->records,
			    (unsigned long long)d->bytes, t,
			    t > 0 ? d->records / t : 0.0,
			    (unsigned long long)s->merge.records);
	}
}

/* Everything after the module is loaded; returns with it unloaded. */
static void run_loaded(struct session *s, const sigset_t *orig)
{
	if (open_ctl(s) || wait_hello(s) || open_traces(s) ||
	    open_outputs(s) || send_start(s)) {
		s->status = 1;
		goto out;
	}
	run_loop(s, orig);
	drain(s);
	report(s);
out:
	if (s->error_msgs)
		s->status = 1;
	close_input(s);
	close_outputs(s);
	close_traces(s);
	if (s->ctl >= 0) {
		/* Closing ctl ends the session in the module if STOP did
		 * not, waiting for end probes still running. */
		close(s->ctl);
		s->ctl = -1;
	}
	msg_verbose(1, _("module '%s': unloading"), s->name);
	if (module_unload(s->name, UNLOAD_WAIT_MS, true))
		s->status = 1;
	s->loaded = false;
}

/* Every NAME=VALUE must be a parameter of the module: the kernel would
 * ignore an unknown one with a note in its log, and the run would go on
 * without the value the user meant to give. */
static int check_params(const struct modinfo *mi)
{
	int i, j;

	for (i = 0; i < opt.nparams; i++) {
		const char *a = opt.params[i];
		size_t len = strcspn(a, "=");
		char list[512] = "";
		size_t used = 0;

		if (module_has_param(mi, a, len))
			continue;
		for (j = 0; j < mi->nparams && used < sizeof(list); j++) {
			if (!strncmp(mi->params[j], "_tap_", 5))
				continue;	/* the runtime's own */
			used += snprintf(list + used, sizeof(list) - used,
					 "%s%s", used ? ", " : "",
					 mi->params[j]);
		}
		if (used)
			msg_error(_("module '%s' has no parameter '%.*s' (it has: %s)"),
				  mi->name, (int)len, a, list);
		else
			msg_error(_("module '%s' has no parameter '%.*s'"),
				  mi->name, (int)len, a);
		return -EINVAL;
	}
	return 0;
}

/* A module only loads into the kernel it was built for (the kernel would
 * refuse it with a note in its log, or with a vague error). */
static int check_release(const struct modinfo *mi)
{
	struct utsname u;

	if (!mi->release[0] || uname(&u) < 0 || !strcmp(u.release, mi->release))
		return 0;
	msg_error(_("module '%s' was built for kernel %s, but this kernel is %s (build it again with \"tapc -r %s\")"),
		  mi->name, mi->release, u.release, u.release);
	return -ENOEXEC;
}

/* A module of this name is loaded already.  If it is a tapc module that
 * no taprun is attached to (its ctl opens: ctl has one opener at a time),
 * an earlier taprun died without unloading it; closing ctl ended its
 * session if it was still running, so it is removed.  0 if it is gone. */
static int remove_stale(const char *name)
{
	char path[PATH_MAX + 80];
	int fd;

	snprintf(path, sizeof(path), "%s/%s%s/ctl", debugfs_dir(),
		 TAP_DIR_PREFIX, name);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		snprintf(path, sizeof(path), "/proc/%s%s/ctl", TAP_DIR_PREFIX,
			 name);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0) {
		if (errno == EBUSY)
			msg_error(_("module '%s' is already loaded and another taprun is running it"),
				  name);
		else
			msg_error(_("module '%s' is already loaded (\"taprun -d %s\" removes it)"),
				  name, name);
		return -EEXIST;
	}
	close(fd);
	msg_warning(_("module '%s' was left loaded by a taprun that is gone; removing it"),
		    name);
	return module_unload(name, UNLOAD_WAIT_MS, true);
}

int run_session(void)
{
	struct session s;
	struct modinfo mi;
	sigset_t orig;
	char *params;
	int err;

	memset(&s, 0, sizeof(s));
	s.ctl = -1;
	s.input = -1;
	s.child_go = -1;
	s.child_err = -1;
	/* First: a stop signal from now on is acted on once the run is up
	 * (and not lost, nor fatal, while the module loads). */
	setup_signals(&orig);
	if (module_info(opt.module_path, &mi))
		return 1;
	snprintf(s.name, sizeof(s.name), "%s", mi.name);
	err = check_params(&mi);
	if (!err && opt.command)
		err = check_command(opt.command);
	if (!err)
		err = check_release(&mi);
	modinfo_free(&mi);
	if (err)
		return 1;
	if (opt.target_pid && kill(opt.target_pid, 0) < 0 && errno == ESRCH) {
		msg_error(_("process %d does not exist (-x)"), opt.target_pid);
		return 1;
	}
	params = build_params();
	if (!params)
		return 1;
	if (opt.command) {
		pid_t pid = spawn_command(opt.command, &s.child_go,
					  &s.child_err, &orig);

		if (pid < 0) {
			free(params);
			return 1;
		}
		s.child = pid;
	}
	ensure_debugfs();
	msg_verbose(1, _("module '%s': loading %s %s"), s.name,
		    opt.module_path, params);
	err = module_load(opt.module_path, s.name, params);
	if (err == -EEXIST) {
		err = remove_stale(s.name);	/* says why if it cannot */
		if (!err) {
			err = module_load(opt.module_path, s.name, params);
			if (err == -EEXIST)	/* loaded again meanwhile */
				msg_error(_("module '%s' is already loaded (\"taprun -d %s\" removes it)"),
					  s.name, s.name);
		}
	}
	free(params);
	if (!err) {
		s.loaded = true;
		run_loaded(&s, &orig);
	} else {
		s.status = 1;
	}
	merger_free(&s.merge);
	free(s.reported_broken);
	if (s.child_go >= 0) {
		/* Never started: the child exits without running cmd. */
		close(s.child_go);
		waitpid(s.child, NULL, 0);
	}
	if (s.child_err >= 0)
		close(s.child_err);
	return s.status;
}
