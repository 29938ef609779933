/*
 * tap_printf.h - stap's printf: the format engine and script output.
 *
 * Pass 3 knows every format at translate time, so it emits the parsed
 * form as a static table and calls tap_printf_spec() with typed args:
 *
 *	static const struct tap_fmt_spec fmt_7[] = {
 *		TAP_FMT_LIT("pid "),
 *		{ .conv = TAP_CONV_SIGNED, .width = -1, .prec = -1 },
 *		TAP_FMT_LIT(" name "),
 *		{ .conv = TAP_CONV_STRING, .flags = TAP_FMT_LEFT, .width = 16, .prec = -1 },
 *		TAP_FMT_LIT("\n"),
 *	};
 *	struct tap_arg a[] = { TAP_ARG_LONG(pid), TAP_ARG_STR(name) };
 *	if (tap_printf_spec(c, fmt_7, 5, a, 2)) goto out;
 *
 * width/prec: -1 = not given, TAP_FMT_STAR = '*' (taken from the next
 * long argument, before the value).  Every conversion but a literal and %%
 * consumes one argument.  The table is the translator's parse of the
 * format (translator/format.c, FmtDirective): the kinds, flags and the star
 * value here are the same numbers.  There is no parser at run time.
 */
#ifndef TAP_PRINTF_H
#define TAP_PRINTF_H

enum tap_conv {
	TAP_CONV_LIT,		/* lit/lit_len copied as is */
	TAP_CONV_PERCENT,	/* %% */
	TAP_CONV_SIGNED,	/* %d %i */
	TAP_CONV_UNSIGNED,	/* %u */
	TAP_CONV_OCTAL,		/* %o */
	TAP_CONV_HEX,		/* %x */
	TAP_CONV_HEX_UPPER,	/* %X */
	TAP_CONV_POINTER,	/* %p */
	TAP_CONV_CHAR,		/* %c */
	TAP_CONV_STRING,	/* %s */
	TAP_CONV_BINARY,	/* %b: width 1/2/4/8 bytes of the value, raw */
	TAP_CONV_MEMORY,	/* %m: precision bytes at the address, raw */
	TAP_CONV_MEMORY_HEX,	/* %M: the same in hex */
};

#define TAP_FMT_LEFT	0x01	/* - */
#define TAP_FMT_PLUS	0x02	/* + */
#define TAP_FMT_SPACE	0x04	/* ' ' */
#define TAP_FMT_ALT	0x08	/* # */
#define TAP_FMT_ZERO	0x10	/* 0 */
#define TAP_FMT_STAR	(-2)

struct tap_fmt_spec {
	u8 conv;
	u8 flags;
	s32 width;
	s32 prec;
	const char *lit;
	u32 lit_len;
};

#define TAP_FMT_LIT(s) { .conv = TAP_CONV_LIT, .width = -1, .prec = -1, \
			 .lit = (s), .lit_len = sizeof(s) - 1 }

struct tap_arg {
	int type;		/* TAP_LONG or TAP_STRING */
	union {
		int64_t l;
		const char *s;
	};
};

#define TAP_ARG_LONG(v) { .type = TAP_LONG, .l = (v) }
#define TAP_ARG_STR(v) { .type = TAP_STRING, .s = (v) }

/* Format into buf (NUL-terminated, cut at size - 1); returns the length
 * the whole output needs, like snprintf.  The output may contain NULs
 * (%b, %m). */
size_t tap_format_spec(char *buf, size_t size, const struct tap_fmt_spec *sp, int nsp,
		       const struct tap_arg *args, int nargs);

struct tap_context;
int tap_printf_spec(struct tap_context *c, const struct tap_fmt_spec *sp, int nsp,
		    const struct tap_arg *args, int nargs);
void tap_print_n(struct tap_context *c, const char *data, size_t len);
__printf(1, 2) void tap_printf(const char *fmt, ...);
/* tap_print(s) is the transport's. */

#endif /* TAP_PRINTF_H */
