/* control.c - the control channel of a loaded module (the ctl file in
 * its transport folder, include/tap_wire.h): finding and opening it,
 * HELLO, START and STOP, and the messages the module sends (errors,
 * warnings, system(), exit(), DONE).
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
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "taprun.h"
#include "session.h"
#include "tap_wire.h"

#define DEBUGFS_DEFAULT	"/sys/kernel/debug"
#define DEBUGFS_FS_MAGIC 0x64626720
#define HELLO_WAIT_MS	10000

const char *control_debugfs_dir(void)
{
	return opt.debugfs ? opt.debugfs : DEBUGFS_DEFAULT;
}

/* The module falls back to procfs without debugfs, so a failure here is
 * only worth a verbose note. */
void control_ensure_debugfs(void)
{
	const char *dir = control_debugfs_dir();
	struct statfs sf;

	if (statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == DEBUGFS_FS_MAGIC)
		return;
	if (mount("debugfs", dir, "debugfs", 0, NULL) == 0)
		msg_verbose(1, _("mounted debugfs on %s"), dir);
	else
		msg_verbose(1, _("cannot mount debugfs on %s: %s"), dir,
			    strerror(errno));
}

int control_open(struct session *s)
{
	char path[PATH_MAX + 8];

	snprintf(s->dir, sizeof(s->dir), "%s/%s%s", control_debugfs_dir(),
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
				  s->name, control_debugfs_dir(), TAP_DIR_PREFIX,
				  s->name, TAP_DIR_PREFIX, s->name);
		/* the module made its files in debugfs although lockdown
		 * lets no one open them for writing: _tap_transport forced
		 * it there, or an older tapc built it */
		else if (err == -EPERM && locked_down() &&
			 strncmp(s->dir, "/proc/", 6) != 0)
			msg_error(_("module '%s': cannot open %s: the kernel is locked down (as under Secure Boot), which closes debugfs; load it without _tap_transport=ring or relay, so that its files are in /proc (a module of an older tapc: build it again)"),
				  s->name, path);
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

void control_request_stop(struct session *s, const char *why)
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

int control_send_start(struct session *s)
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

/* An error or warning of the module's, from a control message or a mark
 * in the output stream (output.c): errors counted, warnings once each. */
void control_module_message(struct session *s, bool error, const char *text,
			    size_t len)
{
	if (error) {
		s->error_msgs++;
		msg_from_module(true, text, len);
	} else if (!opt.no_warnings && !warning_seen(text, len)) {
		msg_from_module(false, text, len);
	}
}

static void run_system(struct session *s, const char *cmd, size_t len)
{
	char *c = strndup(cmd, len);
	pid_t pid;

	if (!c)
		return;
	msg_verbose(2, _("module '%s': system(\"%s\")"), s->name, c);
	msg_flush_output();
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		signals_child_defaults(&none);
		execl("/bin/sh", "sh", "-c", c, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		msg_warning(_("module '%s': system(\"%s\"): cannot fork: %s"),
			    s->name, c, strerror(errno));
	free(c);
}

static void on_started(struct session *s, const struct tap_msg_status *m)
{
	if (m->status) {
		s->start_error = m->status;
		s->status = 1;
		control_request_stop(s, _("start failed"));
		return;
	}
	s->started = true;
	clock_gettime(CLOCK_MONOTONIC, &s->t_start);
	msg_verbose(1, _("module '%s': started"), s->name);
	input_open(s);
	command_release(s);
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
	case TAP_MSG_WARNING:
		control_module_message(s, h->type == TAP_MSG_ERROR, text, len);
		break;
	case TAP_MSG_SYSTEM:
		run_system(s, text, len);
		break;
	case TAP_MSG_EXIT:
		control_request_stop(s, _("the script called exit()"));
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
int control_read(struct session *s)
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

int control_wait_hello(struct session *s)
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
		err = control_read(s);
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
