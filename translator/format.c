/* format.c - pass 2: a printf format string parsed into directives, once.
 *
 * The directives are what the pass-2 checks (types.c), pass 3's format
 * tables (emit/expr.c) and the runtime's format engine all work from, so
 * none of them can read a format differently.
 *
 * The syntax is stap's: %[flags][width][.precision][l]conversion, flags
 * among "-+ #0", width and precision a number or '*' (a long value taken
 * before the converted one), the conversions d i u o x X p c s b m M and
 * %%.  As in stap 4.8, the only length modifier is one 'l', which changes
 * nothing (values are 64-bit); h, hh, ll, L, q, j, z and t are errors, and
 * so is "%%" with anything between its two '%'.  Unlike stap 4.8, which
 * takes one flag only, several flags may be combined (as in C).
 */
#include "elab.h"

#include <string.h>

/* Widths and precisions are clamped here (as the runtime clamps '*'). */
#define FMT_MAXFIELD 65536

static int parse_number(const char **pp)
{
	const char *p = *pp;
	int v = 0;
	while (*p >= '0' && *p <= '9') {
		if (v < FMT_MAXFIELD)
			v = v * 10 + (*p - '0');
		p++;
	}
	*pp = p;
	return v > FMT_MAXFIELD ? FMT_MAXFIELD : v;
}

static FmtDirective *new_directive(PrintFormat *pf, FmtConv conv)
{
	FmtDirective *d = NEW(FmtDirective);
	d->conv = conv;
	d->width = d->prec = FMT_UNSET;
	vec_push(&pf->dirs, d);
	return d;
}

PrintFormat *parse_format(const char *text)
{
	static const char letters[] = "diuoxXpcsbmM";
	static const FmtConv convs[] = { FMT_SIGNED, FMT_SIGNED, FMT_UNSIGNED, FMT_OCTAL,
		FMT_HEX, FMT_HEX_UPPER, FMT_POINTER, FMT_CHAR, FMT_STRING, FMT_BINARY,
		FMT_MEMORY, FMT_MEMORY_HEX };
	PrintFormat *pf = NEW(PrintFormat);
	const char *p = text ? text : "";
	while (*p) {
		if (*p != '%') {
			const char *s = p;
			while (*p && *p != '%')
				p++;
			FmtDirective *d = new_directive(pf, FMT_LIT);
			d->lit = xstrndup(s, p - s);
			d->lit_len = p - s;
			continue;
		}
		const char *start = p++;
		int flags = 0, width = FMT_UNSET, prec = FMT_UNSET, stars = 0;
		for (;; p++) {
			if (*p == '-') flags |= FMT_LEFT;
			else if (*p == '+') flags |= FMT_PLUS;
			else if (*p == ' ') flags |= FMT_SPACE;
			else if (*p == '#') flags |= FMT_ALT;
			else if (*p == '0') flags |= FMT_ZERO;
			else break;
		}
		if (*p == '*') {
			width = FMT_STAR;
			stars++;
			p++;
		} else if (*p >= '0' && *p <= '9') {
			width = parse_number(&p);
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				prec = FMT_STAR;
				stars++;
				p++;
			} else {
				prec = parse_number(&p);
			}
		}
		if (*p == 'l')
			p++;
		if (!*p) {
			pf->error = _("incomplete conversion at the end of the format string");
			return pf;
		}
		if (*p == '%') {
			if (p != start + 1) {
				pf->error = _("'%%' in a format takes no flags, width, precision "
					      "or length");
				return pf;
			}
			new_directive(pf, FMT_PERCENT)->letter = '%';
			p++;
			continue;
		}
		const char *l = strchr(letters, *p);
		if (!l) {
			if (strchr("hlLqjzt", *p))
				pf->error = xsprintf(_("invalid length modifier '%c' in the format "
						       "string (only one 'l' is allowed, and it "
						       "changes nothing)"), *p);
			else
				pf->error = xsprintf(_("invalid conversion '%%%c' in the format "
						       "string"), *p);
			return pf;
		}
		FmtDirective *d = new_directive(pf, convs[l - letters]);
		d->letter = *p++;
		d->flags = flags;
		d->width = width;
		d->prec = prec;
		pf->nargs += stars + 1;
	}
	return pf;
}
