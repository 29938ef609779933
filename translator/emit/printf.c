/* printf.c - pass 3: a formatted print as C.  The format's directives
 * (pass 2 parsed printf's; print, println, printd, $$vars and
 * pretty-printing make theirs here) become a static table of struct
 * tap_fmt_spec in the declarations, the values l->a[] in the frame, and
 * one call of the runtime's formatter.
 */
#include "emit_priv.h"

#include <string.h>

/* The runtime's names of FmtConv's kinds, in its order. */
static const char *const conv_names[] = {
	"TAP_CONV_LIT", "TAP_CONV_PERCENT", "TAP_CONV_SIGNED", "TAP_CONV_UNSIGNED",
	"TAP_CONV_OCTAL", "TAP_CONV_HEX", "TAP_CONV_HEX_UPPER", "TAP_CONV_POINTER",
	"TAP_CONV_CHAR", "TAP_CONV_STRING", "TAP_CONV_BINARY", "TAP_CONV_MEMORY",
	"TAP_CONV_MEMORY_HEX",
};

/* Directives pass 3 makes itself: print, println, printd and $$vars have
 * no format to parse. */
void printf_lit(Vec *v, const char *s)
{
	FmtDirective *d = NEW(FmtDirective);
	d->conv = FMT_LIT;
	d->lit = s;
	d->lit_len = strlen(s);
	d->width = d->prec = FMT_UNSET;
	vec_push(v, d);
}

FmtDirective *printf_conv(Vec *v, FmtConv conv)
{
	FmtDirective *d = NEW(FmtDirective);
	d->conv = conv;
	d->width = d->prec = FMT_UNSET;
	vec_push(v, d);
	return d;
}

/* The table as a static const array in the file; returns its name. */
const char *printf_table(Emitter *e, Vec *items)
{
	const char *name = emit_fresh_name(e, "tap_fmt");
	sb_printf(&e->decls, "static const struct tap_fmt_spec %s[] = {\n", name);
	for (int i = 0; i < items->len; i++) {
		const FmtDirective *d = vec_get(items, i);
		if (d->conv == FMT_LIT) {
			sb_printf(&e->decls, "\tTAP_FMT_LIT(%s),\n", c_string(d->lit));
			continue;
		}
		sb_printf(&e->decls, "\t{ .conv = %s, .flags = 0x%x, .width = %s, .prec = %s },\n",
			  conv_names[d->conv], d->flags,
			  d->width == FMT_STAR ? "TAP_FMT_STAR" : xsprintf("%d", d->width),
			  d->prec == FMT_STAR ? "TAP_FMT_STAR" : xsprintf("%d", d->prec));
	}
	if (!items->len)
		sb_puts(&e->decls, "\tTAP_FMT_LIT(\"\"),\n");
	sb_puts(&e->decls, "};\n");
	return name;
}

static bool has_memory_conv(Vec *items)
{
	for (int i = 0; i < items->len; i++) {
		const FmtDirective *d = vec_get(items, i);
		if (d->conv == FMT_MEMORY || d->conv == FMT_MEMORY_HEX)
			return true;
	}
	return false;
}

/* l->a[] from the values; returns how many. */
static int fill_args(Body *b, Node **nodes, Val *vals, int n)
{
	for (int i = 0; i < n; i++) {
		bool str = nodes[i]->type == TY_STRING;
		emit(b->e, "l->a[%d] = (struct tap_arg)%s(%s);", i,
		     str ? "TAP_ARG_STR" : "TAP_ARG_LONG", vals[i].c);
	}
	if (n > b->max_arg)
		b->max_arg = n;
	return n;
}

/* Print the values by items: to the output, or into dst (a string of
 * MAXSTRINGLEN bytes) when dst is not NULL. */
void printf_items(Body *b, Vec *items, Node **nodes, Val *vals, int n,
		   const char *dst, Loc loc)
{
	Emitter *e = b->e;
	const char *tab = printf_table(e, items);
	int na = fill_args(b, nodes, vals, n);
	const char *args = na ? "l->a" : "NULL";
	if (dst) {
		emit(e, "tap_format_spec(%s, MAXSTRINGLEN, %s, %d, %s, %d);", dst, tab,
		     items->len ? items->len : 1, args, na);
		return;
	}
	if (has_memory_conv(items))
		body_where(b, loc, "identifier 'printf'");
	body_fail_if(b, xsprintf("tap_printf_spec(c, %s, %d, %s, %d)", tab,
				 items->len ? items->len : 1, args, na));
}
