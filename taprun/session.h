/* session.h - one run of a module (session.c) and its parts, each in a
 * file of its own and called only from above (session.c on top):
 *
 *   preload.c   before loading: parameters, kernel release, a stale module
 *   command.c   the -c command
 *   control.c   the control channel: HELLO, START, STOP, the module's messages
 *   input.c     standard input to the input probes
 *   output.c    trace files to standard output or the -o files
 *   signals.c   the stop signals and SIGCHLD
 */
#ifndef TAPRUN_SESSION_H
#define TAPRUN_SESSION_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "merge.h"
#include "outfile.h"
#include "taprun.h"
#include "tap_wire.h"

#define UNLOAD_WAIT_MS	5000

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
	int start_error;		/* STARTED's -errno, reported after the
					 * output (and the errors in it) */
	int status;			/* exit status so far */
};

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* preload.c */
char *preload_params(void);
int preload_check_params(const struct modinfo *mi);
int preload_check_release(const struct modinfo *mi);
int preload_remove_stale(const char *name);

/* signals.c */
extern volatile sig_atomic_t sig_stop;	/* stop signals received */
extern volatile sig_atomic_t sig_child;
void signals_setup(sigset_t *orig);
void signals_take(void);
void signals_child_defaults(const sigset_t *orig);

/* command.c */
int command_check(const char *cmd);
pid_t command_spawn(const char *cmd, int *go_fd, int *err_fd,
		    const sigset_t *orig);
void command_release(struct session *s);
void command_reap(struct session *s, bool *command_ended);

/* control.c */
const char *control_debugfs_dir(void);
void control_ensure_debugfs(void);
int control_open(struct session *s);
void control_request_stop(struct session *s, const char *why);
void control_module_message(struct session *s, bool error, const char *text,
			    size_t len);
int control_send_start(struct session *s);
int control_read(struct session *s);
int control_wait_hello(struct session *s);

/* input.c */
void input_open(struct session *s);
void input_close(struct session *s);
void input_feed(struct session *s);

/* output.c */
int output_open(struct session *s);
void output_close(struct session *s);
int output_open_traces(struct session *s);
void output_close_traces(struct session *s);
size_t output_read_traces(struct session *s, bool *got);
void output_merge(struct session *s, bool final);
void output_drain(struct session *s);

#endif
