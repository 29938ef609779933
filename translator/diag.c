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

/*
 * Messages already printed, as interned "file:line:col: what: text" keys
 * (the file by its SrcFile, so two inputs of one name stay apart) in
 * an open-addressing set of pointers.  One handler expanded into many
 * probes (syscall.*, an alias) is checked once per probe; the same message
 * at the same place is printed once, and the notes after a repeat are
 * dropped with it.
 */
static const char **seen;
static size_t seen_cap, seen_count;
static bool repeat_dropped;

static size_t seen_slot(const char **tab, size_t cap, const char *key)
{
	size_t j = ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ull & (cap - 1);
	while (tab[j] && tab[j] != key)
		j = (j + 1) & (cap - 1);
	return j;
}

/* true the first time KEY is offered */
static bool first_time(const char *key)
{
	if (seen_count * 2 >= seen_cap) {
		size_t ncap = seen_cap ? seen_cap * 2 : 256;
		const char **ntab = xrealloc_heap(NULL, ncap * sizeof *ntab);
		memset(ntab, 0, ncap * sizeof *ntab);
		for (size_t i = 0; i < seen_cap; i++)
			if (seen[i])
				ntab[seen_slot(ntab, ncap, seen[i])] = seen[i];
		free(seen);
		seen = ntab;
		seen_cap = ncap;
	}
	size_t j = seen_slot(seen, seen_cap, key);
	if (seen[j])
		return false;
	seen[j] = key;
	seen_count++;
	return true;
}

/* An error or a warning (dedup) or a note (printed after its own, unless
 * that was a repeat). */
static void report(Loc loc, const char *what, const char *color, bool dedup,
		   const char *fmt, va_list ap)
{
	bool c = use_color();
	StrBuf msg = { 0 };
	sb_vprintf(&msg, fmt, ap);
	const char *key = !dedup ? NULL : intern(xsprintf("%p:%d:%d: %s: %s",
					  (void *)loc.file, loc.line, loc.col, what,
					  sb_cstr(&msg)));
	if (dedup)
		repeat_dropped = !first_time(key);
	if (dedup && repeat_dropped) {
		sb_free(&msg);
		return;
	}
	if (loc.file && loc.line > 0)
		fprintf(stderr, "%s:%d:%d: ", loc.file->name, loc.line, loc.col);
	fprintf(stderr, "%s%s:%s %s\n", c ? color : "", what, c ? "\033[0m" : "",
		sb_cstr(&msg));
	sb_free(&msg);
	show_source_line(loc);
}

void verror_at(Loc loc, const char *fmt, va_list ap)
{
	error_count++;
	if (!quiet)
		report(loc, _("error"), "\033[1;31m", true, fmt, ap);
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
			report(loc, _("warning"), "\033[1;35m", true, fmt, ap);
	}
	va_end(ap);
}

void note_at(Loc loc, const char *fmt, ...)
{
	va_list ap;
	if (quiet || repeat_dropped)
		return;
	va_start(ap, fmt);
	report(loc, _("note"), "\033[1;36m", false, fmt, ap);
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
			report(NOLOC, _("warning"), "\033[1;35m", true, fmt, ap);
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
