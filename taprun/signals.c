/* signals.c - the signals of a run: the stop signals (INT, TERM, HUP,
 * QUIT) and SIGCHLD are blocked except inside the loop's ppoll(), their
 * handlers only count them (sig_stop, sig_child), and signals_take()
 * takes those that came while blocked (see session.c); a child (the -c
 * command, a system() command) gets the defaults back.
 */
#include "config.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "session.h"

volatile sig_atomic_t sig_stop;	/* stop signals received */
volatile sig_atomic_t sig_child;
static sigset_t loop_signals;		/* blocked outside ppoll() */

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

/* Block the signals the loop handles; ppoll() unblocks them. */
void signals_setup(sigset_t *orig)
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
void signals_take(void)
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

void signals_child_defaults(const sigset_t *orig)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, orig, NULL);
}
