/* diag.c - diagnostics: "file:line:col: error: message", the source line
 * and a caret under the column.
 *
 * Bad input must not flood the terminal: the command stops after
 * DIAG_ERROR_LIMIT errors, and a long line is shown clipped around the
 * caret. */
#include "tapc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const Loc NOLOC = { NULL, 0, 0 };

int error_count;
int warning_count;
static bool quiet;

/* Errors shown before tapc gives up (0: never); see DIAG_ERROR_LIMIT. */
static int error_limit;
static int errors_shown;

void diag_set_error_limit(int n)
{
	error_limit = n;
}

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

/* A source line longer than this is shown as this many bytes around the
 * caret, with "..." where it was cut. */
#define SHOWN_WIDTH 120

/* The start of line `line` of f.  Diagnostics mostly come in file order,
 * so the search starts from the last line found when it can. */
static const char *line_start(SrcFile *f, int line)
{
	static SrcFile *last_file;
	static const char *last_p;
	static int last_line;
	const char *p = f->text, *end = f->text + f->len;
	int l = 1;
	if (f == last_file && last_line <= line) {
		p = last_p;
		l = last_line;
	}
	for (; l < line && p < end; p++)
		if (*p == '\n')
			l++;
	last_file = f;
	last_p = p;
	last_line = l;
	return p;
}

/* The length of the well-formed UTF-8 character at p (before end), or 0
 * when the bytes there are not one. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	/* no overlong forms, surrogates or values past U+10FFFF */
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* Print the line of `loc` and a caret under its column.  Tabs before the
 * column are kept so the caret lines up in a terminal, and a UTF-8
 * character takes one place; other control bytes and bytes that are not
 * UTF-8 show as '?' (a binary file must not drive the terminal), and a
 * carriage return ending the line is left out. */
static void show_source_line(Loc loc)
{
	if (!loc.file || loc.line <= 0 || !loc.file->text)
		return;
	const char *p = line_start(loc.file, loc.line);
	const char *end = loc.file->text + loc.file->len;
	const char *eol = memchr(p, '\n', end - p);
	if (!eol)
		eol = end;
	if (eol > p && eol[-1] == '\r')
		eol--;
	size_t len = eol - p;
	size_t caret = loc.col > 1 ? (size_t)loc.col - 1 : 0;
	if (caret > len)
		caret = len;
	size_t from = 0, to = len;
	if (len > SHOWN_WIDTH) {
		from = caret > SHOWN_WIDTH / 2 ? caret - SHOWN_WIDTH / 2 : 0;
		to = from + SHOWN_WIDTH;
		if (to > len) {
			to = len;
			from = len - SHOWN_WIDTH;
		}
	}
	const unsigned char *u = (const unsigned char *)p;
	StrBuf under = { 0 };
	fputs(from ? "    ..." : "    ", stderr);
	sb_puts(&under, from ? "       " : "    ");
	for (size_t i = from, n; i < to; i += n) {
		n = u[i] >= 0x80 ? utf8_len(u + i, u + to) : 1;
		if (n > 1)
			fwrite(u + i, 1, n, stderr);
		else
			fputc(u[i] == '\t' || (u[i] >= 0x20 && u[i] < 0x7f) ? u[i] : '?',
			      stderr);
		n = n ? n : 1;
		if (i < caret)
			sb_putc(&under, u[i] == '\t' ? '\t' : ' ');
	}
	fputs(to < len ? "...\n" : "\n", stderr);
	sb_putc(&under, '^');
	fprintf(stderr, "%s\n", sb_cstr(&under));
	sb_free(&under);
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
 * that was a repeat).  True when it was printed. */
static bool report(Loc loc, const char *what, const char *color, bool dedup,
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
		return false;
	}
	if (loc.file && loc.line > 0)
		fprintf(stderr, "%s:%d:%d: ", loc.file->name, loc.line, loc.col);
	fprintf(stderr, "%s%s:%s %s\n", c ? color : "", what, c ? "\033[0m" : "",
		sb_cstr(&msg));
	sb_free(&msg);
	show_source_line(loc);
	return true;
}

void verror_at(Loc loc, const char *fmt, va_list ap)
{
	error_count++;
	if (quiet)
		return;
	if (report(loc, _("error"), "\033[1;31m", true, fmt, ap) &&
	    error_limit && ++errors_shown >= error_limit)
		fatal(_("stopping after %d errors"), errors_shown);
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
