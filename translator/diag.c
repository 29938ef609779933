/* diag.c - diagnostics: "file:line:col: error: message", the source line
 * and a caret under the column. */
#include "tapc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int error_count;
int warning_count;
static bool quiet;

void diag_set_quiet(bool q)
{
	quiet = q;
}

bool diag_is_quiet(void)
{
	return quiet;
}

static bool use_color(void)
{
	if (sess.color == 1)
		return true;
	if (sess.color == 0)
		return false;
	return isatty(2) && getenv("TERM") && strcmp(getenv("TERM"), "dumb") != 0;
}

/* Print the line of `loc` and a caret under its column.  Tabs before the
 * column are kept so the caret lines up in a terminal. */
static void show_source_line(Loc loc)
{
	if (!loc.file || loc.line <= 0 || !loc.file->text)
		return;
	const char *p = loc.file->text, *end = p + loc.file->len;
	for (int l = 1; l < loc.line && p < end; p++)
		if (*p == '\n')
			l++;
	const char *eol = memchr(p, '\n', end - p);
	if (!eol)
		eol = end;
	fprintf(stderr, "    %.*s\n    ", (int)(eol - p), p);
	for (int i = 1; i < loc.col && p + i - 1 < eol; i++)
		fputc(p[i - 1] == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
}

static void report(Loc loc, const char *what, const char *color,
		   const char *fmt, va_list ap)
{
	bool c = use_color();
	if (loc.file && loc.line > 0)
		fprintf(stderr, "%s:%d:%d: ", loc.file->name, loc.line, loc.col);
	fprintf(stderr, "%s%s:%s ", c ? color : "", what, c ? "\033[0m" : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	show_source_line(loc);
}

void verror_at(Loc loc, const char *fmt, va_list ap)
{
	error_count++;
	if (!quiet)
		report(loc, _("error"), "\033[1;31m", fmt, ap);
}

void error_at(Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(loc, fmt, ap);
	va_end(ap);
}

void warning_at(Loc loc, const char *fmt, ...)
{
	va_list ap;
	/* -w wins over -W, as with stap. */
	if (sess.suppress_warnings)
		return;
	va_start(ap, fmt);
	if (sess.warnings_are_errors) {
		verror_at(loc, fmt, ap);
	} else {
		warning_count++;
		if (!quiet)
			report(loc, _("warning"), "\033[1;35m", fmt, ap);
	}
	va_end(ap);
}

void note_at(Loc loc, const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	va_start(ap, fmt);
	report(loc, _("note"), "\033[1;36m", fmt, ap);
	va_end(ap);
}

void error_plain(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(NOLOC, fmt, ap);
	va_end(ap);
}

void warning_plain(const char *fmt, ...)
{
	va_list ap;
	if (sess.suppress_warnings)
		return;
	va_start(ap, fmt);
	if (sess.warnings_are_errors) {
		verror_at(NOLOC, fmt, ap);
	} else {
		warning_count++;
		if (!quiet)
			report(NOLOC, _("warning"), "\033[1;35m", fmt, ap);
	}
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tapc: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void internal_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tapc: internal error at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputs("\nThis is a bug in tapc; please report it with the script.\n", stderr);
	va_end(ap);
	abort();
}

void verbose(int level, const char *fmt, ...)
{
	va_list ap;
	if (sess.verbose < level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
