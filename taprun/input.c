/* input.c - standard input to the input probes.
 *
 * A script with input.char/input.line probes has the procfs file
 * /proc/systemtap/NAME/__stdin (their alias, in the input tapset): our
 * standard input is fed to it from the start on, one byte per write,
 * which fires input.char once per character (input.line gathers them).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "taprun.h"
#include "session.h"

/* A script with input.char/input.line probes has the procfs file
 * /proc/systemtap/NAME/__stdin (their alias, in the input tapset): our
 * standard input is fed to it from the start on, one byte per write,
 * which fires input.char once per character (input.line gathers them). */
void input_open(struct session *s)
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

void input_close(struct session *s)
{
	if (s->input >= 0)
		close(s->input);
	s->input = -1;
}

/* Standard input is readable: pass what it has on.  End of file (or an
 * error) ends the feed, not the run. */
void input_feed(struct session *s)
{
	char buf[4096];
	ssize_t n = read(0, buf, sizeof(buf)), i;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		input_close(s);
		return;
	}
	for (i = 0; i < n; i++) {
		if (write(s->input, buf + i, 1) != 1) {
			if (errno == EINTR) {
				i--;
				continue;
			}
			/* the module stopped: its file is gone */
			input_close(s);
			return;
		}
	}
}
