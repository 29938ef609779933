/* msg.c - taprun's messages on stderr (ERROR:, WARNING:, taprun:), in
 * color when asked, each after the output is flushed: the output and
 * stderr may share a terminal.  Every other file of taprun calls it; it
 * calls nothing of theirs (it reads the options, options.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taprun.h"

static FILE *cur_out;

void msg_set_output(FILE *out)
{
	cur_out = out;
}

void msg_flush_output(void)
{
	if (cur_out)
		fflush(cur_out);
}

static const char *color_error = "", *color_warning = "", *color_reset = "";

void msg_set_color(const char *when)
{
	const char *term = getenv("TERM");
	bool on;

	if (!strcmp(when, "always"))
		on = true;
	else if (!strcmp(when, "never"))
		on = false;
	else
		on = isatty(2) && term && strcmp(term, "dumb");
	if (on) {
		color_error = "\033[01;31m";
		color_warning = "\033[01;35m";
		color_reset = "\033[0m";
	} else {
		color_error = color_warning = color_reset = "";
	}
}

static void vmsg(const char *color, const char *prefix, const char *fmt,
		 va_list ap)
{
	msg_flush_output();
	fprintf(stderr, "%s%s%s ", color, prefix, color_reset);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(color_error, _("ERROR:"), fmt, ap);
	va_end(ap);
}

void msg_warning(const char *fmt, ...)
{
	va_list ap;

	if (opt.no_warnings)
		return;
	va_start(ap, fmt);
	vmsg(color_warning, _("WARNING:"), fmt, ap);
	va_end(ap);
}

void msg_verbose(int level, const char *fmt, ...)
{
	va_list ap;

	if (opt.verbose < level)
		return;
	va_start(ap, fmt);
	vmsg("", "taprun:", fmt, ap);
	va_end(ap);
}

void msg_from_module(bool error, const char *text, size_t len)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\0'))
		len--;
	if (error)
		msg_error("%.*s", (int)len, text);
	else
		msg_warning("%.*s", (int)len, text);
}
