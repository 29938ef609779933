/* lex.c - pass 1: cut script text into tokens.
 *
 * The whole file is tokenized up front; the preprocessor and the parser
 * then work on the token array.  Script arguments ($1, @1, $#, @#) stay
 * tokens of their own here: the preprocessor substitutes them, so that an
 * argument in a branch that is not taken is never looked at. */
#include "lex.h"

#include <string.h>

bool pass1_soft_errors;
static int p1_error_total;

void p1_error(Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	p1_error_total++;
	if (pass1_soft_errors) {
		/* warning_at has no va_list twin: format first. */
		StrBuf sb = { 0 };
		sb_vprintf(&sb, fmt, ap);
		warning_at(loc, "%s", sb_cstr(&sb));
		sb_free(&sb);
	} else {
		verror_at(loc, fmt, ap);
	}
	va_end(ap);
}

int p1_errors(void)
{
	return p1_error_total;
}

typedef struct Lexer {
	SrcFile *src;
	const char *p, *end;
	int line, col;
	Vec *out;
	bool space;
} Lexer;

static Loc here(Lexer *lx)
{
	Loc l = { lx->src, lx->line, lx->col };
	return l;
}

static void advance(Lexer *lx, size_t n)
{
	while (n-- && lx->p < lx->end) {
		if (*lx->p == '\n') {
			lx->line++;
			lx->col = 1;
		} else {
			lx->col++;
		}
		lx->p++;
	}
}

static bool starts(Lexer *lx, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(lx->end - lx->p) >= n && memcmp(lx->p, s, n) == 0;
}

static void lex_error(Loc loc, const char *fmt, ...) PRINTF(2, 3);
static void lex_error(Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	StrBuf sb = { 0 };
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	p1_error(loc, "%s", sb_cstr(&sb));
	sb_free(&sb);
}

static bool is_ident_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static Token *push(Lexer *lx, TokKind kind, Loc loc)
{
	Token *t = NEW(Token);
	t->kind = kind;
	t->loc = loc;
	t->space_before = lx->space;
	lx->space = false;
	vec_push(lx->out, t);
	return t;
}

/* Skip blanks and the three comment styles.  Returns false at the end. */
static bool skip_space(Lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		    c == '\v') {
			advance(lx, 1);
		} else if (c == '#' || starts(lx, "//")) {
			while (lx->p < lx->end && *lx->p != '\n')
				advance(lx, 1);
		} else if (starts(lx, "/*")) {
			Loc open = here(lx);
			advance(lx, 2);
			while (lx->p < lx->end && !starts(lx, "*/"))
				advance(lx, 1);
			if (lx->p >= lx->end) {
				lex_error(open, _("unterminated comment: no '*/' for this '/*'"));
				return false;
			}
			advance(lx, 2);
		} else {
			return true;
		}
		lx->space = true;
	}
	return false;
}

/* number = decimal | 0 octal | 0x hex.  Values up to 2^64-1 are taken and
 * wrap to negative, as stap does. */
static void lex_number(Lexer *lx)
{
	Loc loc = here(lx);
	const char *s = lx->p;
	const char *e = s;
	while (e < lx->end && is_ident_char((unsigned char)*e))
		e++;
	size_t n = e - s;
	int base = 10;
	const char *d = s;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		d = s + 2;
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		d = s + 1;
	}
	uint64_t v = 0;
	bool bad = d == e, overflow = false;
	for (const char *q = d; q < e && !bad; q++) {
		int c = (unsigned char)*q, dv;
		if (c >= '0' && c <= '9')
			dv = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			dv = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			dv = c - 'A' + 10;
		else
			dv = 99;
		if (dv >= base) {
			bad = true;
			break;
		}
		if (v > (UINT64_MAX - dv) / base)
			overflow = true;
		v = v * base + dv;
	}
	Token *t = push(lx, TK_NUMBER, loc);
	t->text = intern_n(s, n);
	if (bad)
		lex_error(loc, _("invalid %s number '%.*s'"),
			  base == 16 ? _("hexadecimal") : base == 8 ? _("octal") : _("decimal"),
			  (int)n, s);
	else if (overflow)
		lex_error(loc, _("number '%.*s' is too large (the largest is "
				 "18446744073709551615)"), (int)n, s);
	t->num = bad || overflow ? 0 : (int64_t)v;
	t->bad = bad || overflow;
	advance(lx, n);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape after a backslash (lx->p is on the backslash). */
static void lex_escape(Lexer *lx, StrBuf *sb)
{
	Loc loc = here(lx);
	advance(lx, 1);
	if (lx->p >= lx->end)
		return;
	int c = (unsigned char)*lx->p;
	const char *simple = strchr("abfnrtv\\\"'?", c);
	if (simple && c) {
		static const char map[] = "\a\b\f\n\r\t\v\\\"'?";
		sb_putc(sb, map[simple - "abfnrtv\\\"'?"]);
		advance(lx, 1);
	} else if (c >= '0' && c <= '7') {
		int v = 0, k = 0;
		while (k < 3 && lx->p < lx->end && *lx->p >= '0' && *lx->p <= '7') {
			v = v * 8 + (*lx->p - '0');
			advance(lx, 1);
			k++;
		}
		if (v > 255)
			lex_error(loc, _("octal escape '\\%o' is larger than a byte (\\377)"), v);
		else if (v == 0)
			lex_error(loc, _("a string cannot hold a NUL byte ('\\0')"));
		else
			sb_putc(sb, (char)v);
	} else if (c == 'x') {
		advance(lx, 1);
		int v = 0, k = 0;
		while (k < 2 && lx->p < lx->end && hexval((unsigned char)*lx->p) >= 0) {
			v = v * 16 + hexval((unsigned char)*lx->p);
			advance(lx, 1);
			k++;
		}
		if (k == 0)
			lex_error(loc, _("'\\x' escape needs hexadecimal digits"));
		else if (v == 0)
			lex_error(loc, _("a string cannot hold a NUL byte ('\\x0')"));
		else
			sb_putc(sb, (char)v);
	} else if (c == '\n') {
		/* a backslash-newline continues the string on the next line */
		advance(lx, 1);
	} else {
		/* Unknown escapes stay as written (regular expressions use
		 * them: "\." "\d"). */
		sb_putc(sb, '\\');
		sb_putc(sb, (char)c);
		advance(lx, 1);
	}
}

static void lex_string(Lexer *lx)
{
	Loc loc = here(lx);
	StrBuf sb = { 0 };
	advance(lx, 1);
	while (lx->p < lx->end && *lx->p != '"') {
		if (*lx->p == '\\') {
			lex_escape(lx, &sb);
		} else {
			sb_putc(&sb, *lx->p);
			advance(lx, 1);
		}
	}
	if (lx->p >= lx->end)
		lex_error(loc, _("unterminated string: no closing '\"' for this one"));
	else
		advance(lx, 1);
	Token *t = push(lx, TK_STRING, loc);
	t->text = xstrndup(sb_cstr(&sb), sb.len);
	sb_free(&sb);
}

static void lex_embedded(Lexer *lx)
{
	Loc loc = here(lx);
	advance(lx, 2);
	const char *s = lx->p;
	while (lx->p < lx->end && !starts(lx, "%}"))
		advance(lx, 1);
	Token *t = push(lx, TK_EMBEDDED, loc);
	t->text = xstrndup(s, lx->p - s);
	if (lx->p >= lx->end)
		lex_error(loc, _("unterminated embedded C: no '%%}' for this '%%{'"));
	else
		advance(lx, 2);
}

/* $N @N $# @#, or $name @name (identifiers). */
static void lex_dollar_at(Lexer *lx)
{
	Loc loc = here(lx);
	char sigil = *lx->p;
	const char *s = lx->p;
	const char *e = s + 1;
	if (e < lx->end && *e == '#') {
		Token *t = push(lx, TK_ARG, loc);
		t->text = intern_n(s, 2);
		advance(lx, 2);
		return;
	}
	if (e < lx->end && is_digit((unsigned char)*e)) {
		while (e < lx->end && is_digit((unsigned char)*e))
			e++;
		const char *digits_end = e;
		while (e < lx->end && is_ident_char((unsigned char)*e))
			e++;
		Token *t = push(lx, TK_ARG, loc);
		t->text = intern_n(s, e - s);
		int64_t n = 0;
		for (const char *q = s + 1; q < digits_end && n < 1000000; q++)
			n = n * 10 + (*q - '0');
		t->num = n;
		if (digits_end != e) {
			lex_error(loc, _("invalid script argument '%.*s': expected %c and a "
					 "number"), (int)(e - s), s, sigil);
			t->num = 0;
		}
		else if (n == 0)
			lex_error(loc, _("invalid script argument '%.*s': arguments count "
					 "from %c1"), (int)(e - s), s, sigil);
		advance(lx, e - s);
		return;
	}
	if (sigil == '@') {
		if (e < lx->end && is_ident_start((unsigned char)*e)) {
			while (e < lx->end && is_ident_char((unsigned char)*e))
				e++;
		} else {
			lex_error(loc, _("stray '@': expected a name or number after it"));
			advance(lx, 1);
			return;
		}
	} else {
		while (e < lx->end && is_ident_char((unsigned char)*e))
			e++;
	}
	Token *t = push(lx, TK_IDENT, loc);
	t->text = intern_n(s, e - s);
	advance(lx, e - s);
}

/* Longest first. */
static const char *const operators[] = {
	">>>=", "<<<", ">>>", "<<=", ">>=",
	"%(", "%?", "%:", "%)",
	"==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=",
	"%=", "&=", "|=", "^=", ".=", "<<", ">>", "->", "=~", "!~",
	"=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "?",
	":", ";", ",", ".", "(", ")", "[", "]", "{", "}",
	NULL,
};

static void lex_operator(Lexer *lx)
{
	/* Operators grouped by first character (longest first within each
	 * group), with lengths and interned texts worked out once: this runs
	 * for every punctuation token of every tapset parsed. */
	enum { NOPS = sizeof operators / sizeof operators[0], PER_CHAR = 12 };
	static unsigned char len[NOPS];
	static const char *text[NOPS];
	static signed char by_first[256][PER_CHAR];
	if (!text[0]) {
		memset(by_first, -1, sizeof by_first);
		for (int i = 0; operators[i]; i++) {
			len[i] = strlen(operators[i]);
			text[i] = intern(operators[i]);
			signed char *slot = by_first[(unsigned char)operators[i][0]];
			int k = 0;
			while (slot[k] >= 0)
				k++;
			ASSERT(k < PER_CHAR - 1);
			slot[k] = i;
		}
	}
	Loc loc = here(lx);
	size_t left = lx->end - lx->p;
	const signed char *slot = by_first[(unsigned char)*lx->p];
	for (int k = 0; slot[k] >= 0; k++) {
		int i = slot[k];
		if (left < len[i] || memcmp(lx->p, operators[i], len[i]) != 0)
			continue;
		Token *t = push(lx, TK_OP, loc);
		t->text = text[i];
		advance(lx, len[i]);
		return;
	}
	unsigned char c = *lx->p;
	if (c >= 0x20 && c < 0x7f)
		lex_error(loc, _("unexpected character '%c'"), c);
	else
		lex_error(loc, _("unexpected byte 0x%02x"), c);
	advance(lx, 1);
	lx->space = true;
}

Vec *lex_file(SrcFile *src)
{
	Lexer lx = { 0 };
	lx.src = src;
	lx.p = src->text;
	lx.end = src->text + src->len;
	lx.line = lx.col = 1;
	lx.out = NEW(Vec);
	lx.space = true;
	while (skip_space(&lx)) {
		unsigned char c = *lx.p;
		if (is_digit(c))
			lex_number(&lx);
		else if (is_ident_start(c)) {
			const char *e = lx.p;
			while (e < lx.end && is_ident_char((unsigned char)*e))
				e++;
			Token *t = push(&lx, TK_IDENT, here(&lx));
			t->text = intern_n(lx.p, e - lx.p);
			advance(&lx, e - lx.p);
		} else if (c == '"')
			lex_string(&lx);
		else if (c == '$' || c == '@')
			lex_dollar_at(&lx);
		else if (starts(&lx, "%{"))
			lex_embedded(&lx);
		else if (c == 0) {
			lex_error(here(&lx), _("unexpected NUL byte"));
			advance(&lx, 1);
		} else
			lex_operator(&lx);
	}
	Token *eof = push(&lx, TK_EOF, here(&lx));
	eof->text = intern("end of file");
	return lx.out;
}
