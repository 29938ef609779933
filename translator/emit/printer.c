/* printer.c - pass 3: the printer.  Lines at an indentation, blocks,
 * marks where a line can be inserted later, C string literals, #line
 * directives and fresh names. */
#include "emit_priv.h"

#include <stdlib.h>
#include <string.h>

/* ================= the printer ================= */

static void put_indent(StrBuf *sb, int n)
{
	for (int i = 0; i < n; i++)
		sb_putc(sb, '\t');
}

static void vline(Emitter *e, const char *fmt, va_list ap)
{
	put_indent(e->out, e->indent);
	sb_vprintf(e->out, fmt, ap);
	sb_putc(e->out, '\n');
}

void emit(Emitter *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(e, fmt, ap);
	va_end(ap);
}

void emit_open(Emitter *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(e, fmt, ap);
	va_end(ap);
	e->indent++;
}

void emit_func(Emitter *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(e, fmt, ap);
	va_end(ap);
	emit(e, "{");
	e->indent++;
}

void emit_close(Emitter *e, const char *fmt, ...)
{
	va_list ap;
	if (e->indent > 0)
		e->indent--;
	va_start(ap, fmt);
	vline(e, fmt, ap);
	va_end(ap);
}

void emit_raw(Emitter *e, const char *text)
{
	sb_puts(e->out, text);
	if (e->out->len && e->out->data[e->out->len - 1] != '\n')
		sb_putc(e->out, '\n');
}

void emit_blank(Emitter *e)
{
	sb_putc(e->out, '\n');
}

void emit_line_directive(Emitter *e, Loc loc)
{
	if (!loc.file || loc.line <= 0)
		return;
	sb_printf(e->out, "#line %d %s\n", loc.line, c_string(loc.file->name));
}

/* Back to the C file's own numbering after script-mapped code. */
/* The newlines of one buffer up to pos, counted once: a module of many
 * probes resets #line after each, and counting from the start each time
 * made pass 3 quadratic (45000 statement probes: minutes).  emit_insert
 * keeps it true. */
static struct {
	const StrBuf *buf;
	size_t pos;
	int newlines;
} counted;

static int newlines_before_end(const StrBuf *b)
{
	if (counted.buf != b || counted.pos > b->len) {
		counted.buf = b;
		counted.pos = 0;
		counted.newlines = 0;
	}
	for (size_t i = counted.pos; i < b->len; i++)
		if (b->data[i] == '\n')
			counted.newlines++;
	counted.pos = b->len;
	return counted.newlines;
}

void emit_line_reset(Emitter *e)
{
	/* the #line line itself is 1 before the next */
	int line = 2 + newlines_before_end(e->out);
	sb_printf(e->out, "#line %d %s\n", line, c_string(e->c_name));
}

Mark emit_mark(Emitter *e)
{
	return (Mark){ e->out->len, e->indent };
}

void emit_insert(Emitter *e, Mark m, const char *line)
{
	StrBuf ins = { 0 };
	put_indent(&ins, m.indent);
	sb_puts(&ins, line);
	sb_putc(&ins, '\n');
	StrBuf *o = e->out;
	size_t n = ins.len;
	sb_putn(o, ins.data, n);   /* grow by n */
	memmove(o->data + m.pos + n, o->data + m.pos, o->len - n - m.pos);
	memcpy(o->data + m.pos, ins.data, n);
	if (counted.buf == o && m.pos < counted.pos) {
		counted.pos += n;
		for (size_t i = 0; i < n; i++)
			counted.newlines += ins.data[i] == '\n';
	}
	sb_free(&ins);
}

const char *c_string(const char *s)
{
	StrBuf sb = { 0 };
	sb_putc(&sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': sb_puts(&sb, "\\\""); break;
		case '\\': sb_puts(&sb, "\\\\"); break;
		case '\n': sb_puts(&sb, "\\n"); break;
		case '\t': sb_puts(&sb, "\\t"); break;
		case '\r': sb_puts(&sb, "\\r"); break;
		case '?':
			/* "??x" could be a trigraph to an old compiler */
			sb_puts(&sb, p[1] == '?' ? "\\?" : "?");
			break;
		default:
			if (*p < 32 || *p >= 127)
				sb_printf(&sb, "\\%03o", *p);
			else
				sb_putc(&sb, *p);
		}
	}
	sb_putc(&sb, '"');
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

const char *emit_fresh_name(Emitter *e, const char *prefix)
{
	return xsprintf("%s_%d", prefix, e->fresh++);
}

const char *emit_long_lit(int64_t v)
{
	if (v == INT64_MIN)
		return "(-9223372036854775807LL - 1)";
	if (v < 0)
		return xsprintf("(%lldLL)", (long long)v);
	return xsprintf("%lldLL", (long long)v);
}

const char *emit_loc_text(Loc loc, const char *what)
{
	if (!loc.file || loc.line <= 0)
		return c_string(what);
	return c_string(xsprintf("%s at %s:%d:%d", what, loc.file->name, loc.line,
				 loc.col));
}

void emit_error_at(Emitter *e, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(loc, fmt, ap);
	va_end(ap);
	e->failed = true;
}

