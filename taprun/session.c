/* session.c - one run of a module: load it, START it, stream its output
 * until it ends, STOP it, report, unload it.
 *
 * The stop signals and SIGCHLD stay blocked except inside ppoll(), so a
 * handler only sets a flag.  ppoll() delivers a pending signal only when
 * it would sleep, and while a chatty script keeps a trace file readable it
 * never sleeps: so every round also takes the pending signals itself
 * (signals_take()), and a stop is seen within one round at any output
 * rate.  Relay wakes a poller only when a whole sub-buffer is full, so the
 * trace files are also read every POLL_MS.  The parts of a run are in
 * files of their own (session.h lists them).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "taprun.h"
#include "session.h"
#include "tap_wire.h"

#define POLL_MS		100
/* After a small read, let output gather this long before polling again:
 * each poll that sleeps makes the next record wake us (an irq_work, an
 * IPI), and waking per handful of records costs more than the records. */
#define BATCH_MS	10
#define BATCH_BYTES	(1u << 20)

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

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
		signals_take();
		if (sig_stop != (sig_atomic_t)stops_seen) {
			stops_seen = sig_stop;
			if (s->stop_sent) {
				msg_warning(_("module '%s': interrupted again, not waiting for the end probes"),
					    s->name);
				s->aborting = true;
				break;
			}
			control_request_stop(s, _("signal"));
		}
		if (sig_child) {
			command_reap(s, &command_ended);
			if (command_ended)
				control_request_stop(s, _("the command exited"));
		}
		if (control_read(s)) {
			s->status = 1;
			s->aborting = true;
			break;
		}
		if (pfd[n].fd >= 0 && s->input >= 0 && pfd[n].revents)
			input_feed(s);
		if (s->started && opt.timeout > 0 && deadline == 0)
			deadline = now_s() + opt.timeout;
		if (deadline > 0 && now_s() >= deadline)
			control_request_stop(s, _("time limit"));
		if (output_read_traces(s, &got) < BATCH_BYTES && got) {
			const struct timespec batch = { 0, BATCH_MS * 1000000L };

			output_merge(s, false);
			nanosleep(&batch, NULL);
			continue;
		}
		output_merge(s, false);
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
	if (control_open(s) || control_wait_hello(s) || output_open_traces(s) ||
	    output_open(s) || control_send_start(s)) {
		s->status = 1;
		goto out;
	}
	run_loop(s, orig);
	output_drain(s);
	/* After the output: the registration errors that explain it are
	 * marks in the output stream. */
	if (s->start_error)
		msg_error(_("module '%s': start failed: %s"), s->name,
			  strerror(-s->start_error));
	report(s);
out:
	if (s->error_msgs)
		s->status = 1;
	input_close(s);
	output_close(s);
	output_close_traces(s);
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
	signals_setup(&orig);
	if (module_info(opt.module_path, &mi))
		return 1;
	snprintf(s.name, sizeof(s.name), "%s", mi.name);
	err = preload_check_params(&mi);
	if (!err && opt.command)
		err = command_check(opt.command);
	if (!err)
		err = preload_check_release(&mi);
	modinfo_free(&mi);
	if (err)
		return 1;
	if (opt.target_pid && kill(opt.target_pid, 0) < 0 && errno == ESRCH) {
		msg_error(_("process %d does not exist (-x)"), opt.target_pid);
		return 1;
	}
	params = preload_params();
	if (!params)
		return 1;
	if (opt.command) {
		pid_t pid = command_spawn(opt.command, &s.child_go,
					  &s.child_err, &orig);

		if (pid < 0) {
			free(params);
			return 1;
		}
		s.child = pid;
	}
	control_ensure_debugfs();
	msg_verbose(1, _("module '%s': loading %s %s"), s.name,
		    opt.module_path, params);
	err = module_load(opt.module_path, s.name, params);
	if (err == -EEXIST) {
		err = preload_remove_stale(s.name);	/* says why if it cannot */
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
