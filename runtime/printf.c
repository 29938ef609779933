/*
 * printf.c - the format engine (stap's conversions) and the output buffer
 * each handler fills and hands to the transport when it ends.  Formats
 * arrive parsed: tapc's pass 2 parses each one once (translator/format.c)
 * and pass 3 writes it as a table of struct tap_fmt_spec; nothing here
 * parses a script's format.
 *
 * Number formatting follows the classic kernel vsprintf rules stap's
 * runtime inherited (assumption, see the report): '#' puts "0x"/"0X"
 * before any hex number (also 0) and "0" before any octal number (also 0,
 * giving "00"); a precision is a minimum digit count and "%.0d" of 0 still
 * prints "0"; '0' pads after the sign and prefix; '-' wins over '0'; '+'
 * and ' ' apply to %d/%i only.  %p is "%#x" without zero padding.
 */
#include "tap.h"

#define TAP_FMT_MAXFIELD 65536	/* widths/precisions are clamped here */

struct tap_writer {
	char *buf;
	size_t size;		/* 0: count only */
	size_t len;		/* the length the output needs */
	bool fault;
	unsigned long fault_addr;
};

static void tap_put(struct tap_writer *w, const char *p, size_t n)
{
	if (w->len < w->size) {
		size_t room = w->size - 1 - w->len;

		memcpy(w->buf + w->len, p, n < room ? n : room);
	}
	w->len += n;
}

static void tap_pad(struct tap_writer *w, char ch, long n)
{
	if (n <= 0)
		return;
	if (w->len < w->size) {
		size_t room = w->size - 1 - w->len;

		memset(w->buf + w->len, ch, (size_t)n < room ? (size_t)n : room);
	}
	w->len += n;
}

static void tap_fmt_number(struct tap_writer *w, u64 num, const struct tap_fmt_spec *sp,
			   int width, int prec)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	const char *digits = lower;
	char tmp[24], sign = 0;
	const char *prefix = "";
	unsigned int base = 10;
	int flags = sp->flags, i = 0, pfx_len;

	switch (sp->conv) {
	case TAP_CONV_SIGNED:
		if ((int64_t)num < 0) {
			sign = '-';
			num = 0 - num;
		} else if (flags & TAP_FMT_PLUS) {
			sign = '+';
		} else if (flags & TAP_FMT_SPACE) {
			sign = ' ';
		}
		break;
	case TAP_CONV_OCTAL:
		base = 8;
		if (flags & TAP_FMT_ALT)
			prefix = "0";
		break;
	case TAP_CONV_POINTER:
		flags |= TAP_FMT_ALT;	/* stap's %p is %#x, '0' and all */
		fallthrough;
	case TAP_CONV_HEX:
		base = 16;
		if (flags & TAP_FMT_ALT)
			prefix = "0x";
		break;
	case TAP_CONV_HEX_UPPER:
		base = 16;
		digits = upper;
		if (flags & TAP_FMT_ALT)
			prefix = "0X";
		break;
	}
	do {
		tmp[i++] = digits[num % base];
		num /= base;
	} while (num);
	if (prec < i)
		prec = i;
	pfx_len = (int)strlen(prefix);
	width -= prec + pfx_len + (sign != 0);
	if (!(flags & (TAP_FMT_LEFT | TAP_FMT_ZERO)))
		tap_pad(w, ' ', width);
	if (sign)
		tap_put(w, &sign, 1);
	tap_put(w, prefix, pfx_len);
	if ((flags & (TAP_FMT_LEFT | TAP_FMT_ZERO)) == TAP_FMT_ZERO)
		tap_pad(w, '0', width);
	tap_pad(w, '0', prec - i);
	while (i > 0)
		tap_put(w, &tmp[--i], 1);
	if (flags & TAP_FMT_LEFT)
		tap_pad(w, ' ', width);
}

/* A field of n bytes: blanks on the left unless '-', then on the right. */
static void tap_field_begin(struct tap_writer *w, int flags, int width, int n)
{
	if (!(flags & TAP_FMT_LEFT))
		tap_pad(w, ' ', width - n);
}

static void tap_field_end(struct tap_writer *w, int flags, int width, int n)
{
	if (flags & TAP_FMT_LEFT)
		tap_pad(w, ' ', width - n);
}

static int tap_binary_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1;
}

/*
 * %b as stap writes it: the precision is the size (1, 2, 4 or 8 bytes,
 * else unset); an unset one is the width's when that is a size, else 8;
 * an unset width is the size.  The field is padded to the width with
 * NUL bytes, on the left unless '-'.
 */
static void tap_fmt_binary(struct tap_writer *w, int64_t v, int width, int prec, int flags)
{
	static const char zeros[8];
	u8 b1 = (u8)v;
	u16 b2 = (u16)v;
	u32 b4 = (u32)v;
	u64 b8 = (u64)v;
	int size = tap_binary_size(prec);

	if (width < 0) {
		size = size < 0 ? 8 : size;
		width = size;
	} else if (size < 0) {
		size = tap_binary_size(width);
		size = size < 0 ? 8 : size;
	}
	if (!(flags & TAP_FMT_LEFT))
		for (; width > size; width--)
			tap_put(w, zeros, 1);
	/* The value's bytes in host order, as a C cast and store would. */
	switch (size) {
	case 1:
		tap_put(w, (const char *)&b1, 1);
		break;
	case 2:
		tap_put(w, (const char *)&b2, 2);
		break;
	case 4:
		tap_put(w, (const char *)&b4, 4);
		break;
	default:
		tap_put(w, (const char *)&b8, 8);
		break;
	}
	for (; width > size; width--)
		tap_put(w, zeros, 1);
}

/* %m / %M: read in chunks so no large buffer sits on the stack. */
static void tap_fmt_memory(struct tap_writer *w, const struct tap_fmt_spec *sp,
			   unsigned long addr, int width, int prec)
{
	static const char hex[] = "0123456789abcdef";
	bool hexout = sp->conv == TAP_CONV_MEMORY_HEX;
	bool user = sp->flags & TAP_FMT_ALT;
	int n = prec > 0 ? prec : 1, done = 0, out_len = hexout ? 2 * n : n;
	u8 chunk[32];
	char hx[64];

	tap_field_begin(w, sp->flags, width, out_len);
	while (done < n) {
		int k = n - done > (int)sizeof(chunk) ? (int)sizeof(chunk) : n - done;
		int r, j;

		if (w->len >= w->size) {	/* nothing more fits: just count */
			w->len += (size_t)(n - done) * (hexout ? 2 : 1);
			break;
		}
		if (user)
			r = tap_read_user(chunk, (const void __user *)(addr + done), k);
		else
			r = tap_read_kernel(chunk, (const void *)(addr + done), k);
		if (r) {
			w->fault = true;
			w->fault_addr = addr + done;
			return;
		}
		if (hexout) {
			for (j = 0; j < k; j++) {
				hx[2 * j] = hex[chunk[j] >> 4];
				hx[2 * j + 1] = hex[chunk[j] & 15];
			}
			tap_put(w, hx, 2 * k);
		} else {
			tap_put(w, (const char *)chunk, k);
		}
		done += k;
	}
	tap_field_end(w, sp->flags, width, out_len);
	if (sp->flags & TAP_FMT_ZERO)	/* stap ends a '0' %m/%M/%s with a NUL */
		tap_put(w, "", 1);
}

static int tap_clamp_field(int64_t v)
{
	return v > TAP_FMT_MAXFIELD ? TAP_FMT_MAXFIELD : (int)v;
}

/* One conversion; *ai is the next argument.  Missing arguments read as 0/"". */
static void tap_fmt_one(struct tap_writer *w, const struct tap_fmt_spec *sp,
			const struct tap_arg *args, int nargs, int *ai)
{
	struct tap_fmt_spec s = *sp;
	int width = sp->width, prec = sp->prec;
	int64_t v = 0;
	const char *str = "";
	char esc[5];
	int n;

	if (sp->conv == TAP_CONV_LIT) {
		tap_put(w, sp->lit, sp->lit_len);
		return;
	}
	if (sp->conv == TAP_CONV_PERCENT) {
		tap_put(w, "%", 1);
		return;
	}
	if (width == TAP_FMT_STAR) {
		v = *ai < nargs ? args[*ai].l : 0;
		if (v < 0) {	/* a negative '*' width means '-' */
			s.flags |= TAP_FMT_LEFT;
			v = v == S64_MIN ? S64_MAX : -v;
		}
		width = tap_clamp_field(v);
		v = 0;
		(*ai)++;
	}
	if (prec == TAP_FMT_STAR) {
		/* stap clamps a negative '*' precision to 0 */
		prec = *ai < nargs && args[*ai].l > 0 ? tap_clamp_field(args[*ai].l) : 0;
		(*ai)++;
	}
	width = tap_clamp_field(width);
	if (*ai < nargs) {
		if (args[*ai].type == TAP_STRING)
			str = args[*ai].s ? args[*ai].s : "";
		else
			v = args[*ai].l;
	}
	(*ai)++;

	switch (sp->conv) {
	case TAP_CONV_STRING:
		n = (int)strnlen(str, prec >= 0 ? (size_t)prec : (size_t)TAP_FMT_MAXFIELD);
		tap_field_begin(w, s.flags, width, n);
		tap_put(w, str, n);
		tap_field_end(w, s.flags, width, n);
		if (s.flags & TAP_FMT_ZERO)	/* stap ends a '0' %s with a NUL */
			tap_put(w, "", 1);
		break;
	case TAP_CONV_CHAR:
		/* %#c escapes what is not printable ASCII, ' and \ (not ") */
		if ((s.flags & TAP_FMT_ALT) && (unsigned char)v != '"') {
			n = (int)tap_escape_char(esc, (unsigned char)v);
		} else {
			esc[0] = (char)v;
			n = 1;
		}
		tap_field_begin(w, s.flags, width, n);
		tap_put(w, esc, n);
		tap_field_end(w, s.flags, width, n);
		break;
	case TAP_CONV_BINARY:
		tap_fmt_binary(w, v, sp->width == -1 ? -1 : width, prec, s.flags);
		break;
	case TAP_CONV_MEMORY:
	case TAP_CONV_MEMORY_HEX:
		tap_fmt_memory(w, &s, (unsigned long)v, width, prec);
		break;
	default:
		tap_fmt_number(w, (u64)v, &s, width, prec < 0 ? 1 : tap_clamp_field(prec));
		break;
	}
}

static size_t tap_format_w(struct tap_writer *w, const struct tap_fmt_spec *sp, int nsp,
			   const struct tap_arg *args, int nargs)
{
	int i, ai = 0;

	for (i = 0; i < nsp && !w->fault; i++)
		tap_fmt_one(w, &sp[i], args, nargs, &ai);
	if (w->size)
		w->buf[w->len < w->size ? w->len : w->size - 1] = '\0';
	return w->len;
}

size_t tap_format_spec(char *buf, size_t size, const struct tap_fmt_spec *sp, int nsp,
		       const struct tap_arg *args, int nargs)
{
	struct tap_writer w = { .buf = buf, .size = size };

	return tap_format_w(&w, sp, nsp, args, nargs);
}

/* ---- output: into the transport's per-CPU print buffer ---- */

void tap_print_n(struct tap_context *c, const char *data, size_t len)
{
	(void)c;
	tap_write(data, len);
}

/*
 * Measure first (a count-only pass reads no memory), then reserve exactly
 * that much plus the formatter's NUL and format again into the reserved
 * room.  Output longer than one record is cut at TAP_PRINT_BUFSIZE - 1.
 */
int tap_printf_spec(struct tap_context *c, const struct tap_fmt_spec *sp, int nsp,
		    const struct tap_arg *args, int nargs)
{
	struct tap_writer w = { .size = 0 };
	size_t need;

	tap_format_w(&w, sp, nsp, args, nargs);
	need = w.len + 1 > TAP_PRINT_BUFSIZE ? TAP_PRINT_BUFSIZE : w.len + 1;
	w = (struct tap_writer){ .buf = tap_reserve(need), .size = need };
	if (!w.buf)
		return 0;	/* no transport (NMI, not up): nothing to do */
	tap_format_w(&w, sp, nsp, args, nargs);
	/* keep what was formatted, give back the NUL and what a fault left */
	tap_unreserve(need - (w.len < need ? w.len : need - 1));
	if (w.fault) {
		tap_error(c, "read fault at 0x%lx", w.fault_addr);
		return -1;
	}
	return 0;
}

/* STAP_PRINTF for embedded C: kernel printf conventions. */
void tap_printf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= TAP_PRINT_BUFSIZE)
		n = TAP_PRINT_BUFSIZE - 1;
	p = tap_reserve(n + 1);
	if (!p)
		return;
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	tap_unreserve(1);
}
