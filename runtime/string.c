/*
 * string.c - bounded string operations for script strings.
 */
#include "tap.h"

/* Copy at most size - 1 bytes and terminate; returns the bytes copied. */
size_t tap_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = 0;

	if (!size)
		return 0;
	n = strnlen(src, size - 1);
	memmove(dst, src, n);
	dst[n] = '\0';
	return n;
}

void tap_str_assign(char *dst, const char *src)
{
	if (dst != src)
		tap_strlcpy(dst, src, MAXSTRINGLEN);
}

void tap_str_append(char *dst, const char *src)
{
	size_t n = strnlen(dst, MAXSTRINGLEN - 1);

	tap_strlcpy(dst + n, src, MAXSTRINGLEN - n);
}

/* dst = a . b, where dst may be a or b (s = s . x, s = x . s). */
void tap_str_concat(char *dst, const char *a, const char *b)
{
	size_t la = strnlen(a, MAXSTRINGLEN - 1);
	size_t lb = strnlen(b, MAXSTRINGLEN - 1);

	if (lb > MAXSTRINGLEN - 1 - la)
		lb = MAXSTRINGLEN - 1 - la;
	/* Move b first: when dst == b its bytes would be overwritten by a. */
	memmove(dst + la, b, lb);
	memmove(dst, a, la);
	dst[la + lb] = '\0';
}

void tap_long_to_str(char *dst, int64_t v)
{
	snprintf(dst, MAXSTRINGLEN, "%lld", (long long)v);
}

static int tap_digit_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A' + 10;
	return 99;
}

/*
 * strtol: leading blanks, a sign, "0x" for base 16 (or base 0, which also
 * takes a leading 0 as octal); stops at the first character that is not
 * a digit of the base; wraps on overflow.  *end (if given) is where it
 * stopped, == s when there were no digits.
 */
int64_t tap_strtol(const char *s, int base, const char **end)
{
	const char *p = s, *digits;
	bool neg = false;
	u64 v = 0;

	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    tap_digit_value(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p[0] == '0' ? 8 : 10;
	}
	digits = p;
	if (base >= 2 && base <= 36)
		while (tap_digit_value(*p) < base)
			v = v * base + tap_digit_value(*p++);
	if (end)
		*end = p == digits ? s : p;
	return neg ? (int64_t)(0 - v) : (int64_t)v;
}

/* substr(s, start, len): start counts from 0; out of range gives "". */
void tap_substr(char *dst, const char *src, int64_t start, int64_t len)
{
	int64_t n = strnlen(src, MAXSTRINGLEN - 1);

	if (start < 0 || start >= n || len <= 0) {
		dst[0] = '\0';
		return;
	}
	if (len > n - start)
		len = n - start;
	memmove(dst, src + start, len);
	dst[len] = '\0';
}

/*
 * One character as %#c prints it: C escapes for the usual controls,
 * \ooo octal for other non-printing bytes, the byte itself otherwise.
 * dst needs 5 bytes; returns the length written (not NUL-terminated).
 */
size_t tap_escape_char(char *dst, unsigned char ch)
{
	static const char plain[] = "\a\b\f\n\r\t\v\"'\\";
	static const char named[] = "abfnrtv\"'\\";
	const char *p;

	if (ch && (p = strchr(plain, ch)) != NULL) {
		dst[0] = '\\';
		dst[1] = named[p - plain];
		return 2;
	}
	if (ch < 32 || ch >= 127) {
		dst[0] = '\\';
		dst[1] = '0' + ((ch >> 6) & 7);
		dst[2] = '0' + ((ch >> 3) & 7);
		dst[3] = '0' + (ch & 7);
		return 4;
	}
	dst[0] = ch;
	return 1;
}
