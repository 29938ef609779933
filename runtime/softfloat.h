/*
 * softfloat.h - IEEE 754 binary64 arithmetic in integer code, for the
 * floating point tapset (tapsets/fp.stp).
 *
 * Kernel code may not touch the FPU outside kernel_fpu_begin/end, and
 * the module is built without SSE, so the tapset's doubles are plain
 * 64-bit patterns in script longs and every operation here is done on
 * integers.  Results are correctly rounded (round to nearest, ties to
 * even), with IEEE's special values: the default NaN is x86's
 * (0xfff8000000000000), a NaN operand comes back quieted (the first one
 * when both are), and an out-of-range conversion to an integer gives
 * x86's "integer indefinite" (INT64_MIN).
 *
 * Only shifts, adds, 64x64->128 multiplies and 128-bit compares are
 * used: no 128-bit division (the kernel has no __udivti3).  The header
 * also builds in user space, where testsuite/unit/runtime/test_softfloat.c
 * checks it against the host's doubles.
 */
#ifndef TAP_SOFTFLOAT_H
#define TAP_SOFTFLOAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#endif

#define SF_SIGN		(1ULL << 63)
#define SF_EXP_MASK	0x7ffULL
#define SF_FRAC_MASK	((1ULL << 52) - 1)
#define SF_DEFAULT_NAN	0xfff8000000000000ULL
#define SF_QUIET	(1ULL << 51)
#define SF_INF		(0x7ffULL << 52)
#define SF_I64_MIN	((int64_t)(-0x7fffffffffffffffLL - 1))

enum sf_round {
	SF_ROUND_NEAR_EVEN = 0,
	SF_ROUND_MIN_MAG = 1,
	SF_ROUND_MIN = 2,
	SF_ROUND_MAX = 3,
	SF_ROUND_NEAR_MAX_MAG = 4,
	SF_ROUND_ODD = 6,
};

static inline bool sf_is_nan(uint64_t a)
{
	return ((a >> 52) & SF_EXP_MASK) == SF_EXP_MASK && (a & SF_FRAC_MASK);
}

static inline bool sf_is_inf(uint64_t a)
{
	return (a & ~SF_SIGN) == SF_INF;
}

static inline bool sf_is_zero(uint64_t a)
{
	return !(a << 1);
}

static inline int sf_clz64(uint64_t x)
{
	return x ? __builtin_clzll(x) : 64;
}

/* x >> n, with any bit shifted out ORed into the lowest bit. */
static inline uint64_t sf_shift_right_jam(uint64_t x, int n)
{
	if (n <= 0)
		return x;
	if (n >= 64)
		return x != 0;
	return (x >> n) | ((x & ((1ULL << n) - 1)) != 0);
}

static inline uint64_t sf_nan_of(uint64_t a, uint64_t b)
{
	return sf_is_nan(a) ? (a | SF_QUIET) : (b | SF_QUIET);
}

/*
 * A finite nonzero value as m * 2^e with m < 2^53 (subnormals too);
 * returns the sign.
 */
static inline int sf_unpack(uint64_t a, uint64_t *m, int *e)
{
	int exp = (int)((a >> 52) & SF_EXP_MASK);

	*m = a & SF_FRAC_MASK;
	if (exp) {
		*m |= 1ULL << 52;
		*e = exp - 1075;
	} else {
		*e = -1074;
	}
	return (int)(a >> 63);
}

/* The same with m normalised to [2^52, 2^53) (e may go below -1074). */
static inline int sf_unpack_norm(uint64_t a, uint64_t *m, int *e)
{
	int s = sf_unpack(a, m, e), sh = sf_clz64(*m) - 11;

	*m <<= sh;
	*e -= sh;
	return s;
}

/*
 * The double nearest to r * 2^e (ties to even); the lowest bit of r may
 * be a sticky bit standing for lost lower bits.
 */
static inline uint64_t sf_round_pack(int sign, int e, uint64_t r)
{
	uint64_t s = (uint64_t)sign << 63, q, rest;
	int lz, E;

	if (!r)
		return s;
	lz = sf_clz64(r);
	r <<= lz;
	e -= lz;
	E = e + 63 + 1023;	/* biased exponent of r's top bit */
	if (E > 2046)
		return s | SF_INF;
	if (E <= 0) {
		r = sf_shift_right_jam(r, 1 - E);
		E = 0;
	}
	q = r >> 11;
	rest = r & 0x7ff;
	if (rest > 0x400 || (rest == 0x400 && (q & 1)))
		q++;
	if (E == 0)
		return s | q;	/* q == 2^52 is the smallest normal */
	q = ((uint64_t)(E - 1) << 52) + q;
	if (q >= SF_INF)
		return s | SF_INF;
	return s | q;
}

static inline uint64_t sf_add_sub(uint64_t a, uint64_t b, bool subtract)
{
	uint64_t ma, mb, A, B, R;
	int sa, sb, ea, eb, d, sign;

	if (subtract)
		b ^= SF_SIGN;
	if (sf_is_nan(a) || sf_is_nan(b))
		return sf_nan_of(a, subtract ? b ^ SF_SIGN : b);
	if (sf_is_inf(a) || sf_is_inf(b)) {
		if (sf_is_inf(a) && sf_is_inf(b) && ((a ^ b) & SF_SIGN))
			return SF_DEFAULT_NAN;
		return sf_is_inf(a) ? a : b;
	}
	if (sf_is_zero(a) && sf_is_zero(b))
		return (a & b & SF_SIGN);	/* -0 only for -0 + -0 */
	if (sf_is_zero(a))
		return b;
	if (sf_is_zero(b))
		return a;
	sa = sf_unpack(a, &ma, &ea);
	sb = sf_unpack(b, &mb, &eb);
	if (ea < eb || (ea == eb && ma < mb)) {
		uint64_t tm = ma; int te = ea, ts = sa;

		ma = mb; ea = eb; sa = sb;
		mb = tm; eb = te; sb = ts;
	}
	/* |a| >= |b|: ten guard bits, b aligned with a sticky bit */
	A = ma << 10;
	d = ea - eb;
	B = sf_shift_right_jam(mb << 10, d);
	sign = sa;
	if (sa == sb) {
		R = A + B;
	} else {
		R = A - B;
		if (!R)
			return 0;	/* x - x is +0 */
	}
	return sf_round_pack(sign, ea - 10, R);
}

static inline uint64_t sf_add(uint64_t a, uint64_t b)
{
	return sf_add_sub(a, b, false);
}

static inline uint64_t sf_sub(uint64_t a, uint64_t b)
{
	return sf_add_sub(a, b, true);
}

static inline uint64_t sf_mul(uint64_t a, uint64_t b)
{
	uint64_t ma, mb, s = (a ^ b) & SF_SIGN, hi, lo;
	unsigned __int128 p;
	int ea, eb, sh;

	if (sf_is_nan(a) || sf_is_nan(b))
		return sf_nan_of(a, b);
	if (sf_is_inf(a) || sf_is_inf(b)) {
		if (sf_is_zero(a) || sf_is_zero(b))
			return SF_DEFAULT_NAN;
		return s | SF_INF;
	}
	if (sf_is_zero(a) || sf_is_zero(b))
		return s;
	sf_unpack(a, &ma, &ea);
	sf_unpack(b, &mb, &eb);
	p = (unsigned __int128)ma * mb;
	hi = (uint64_t)(p >> 64);
	lo = (uint64_t)p;
	if (!hi)
		return sf_round_pack(s != 0, ea + eb, lo);
	sh = 64 - sf_clz64(hi);		/* keep the top 64 bits, jam the rest */
	lo = (lo >> sh) | (hi << (64 - sh)) | ((lo & ((1ULL << sh) - 1)) != 0);
	return sf_round_pack(s != 0, ea + eb + sh, lo);
}

static inline uint64_t sf_div(uint64_t a, uint64_t b)
{
	uint64_t ma, mb, s = (a ^ b) & SF_SIGN, q = 0, r;
	int ea, eb, i;

	if (sf_is_nan(a) || sf_is_nan(b))
		return sf_nan_of(a, b);
	if (sf_is_inf(a)) {
		if (sf_is_inf(b))
			return SF_DEFAULT_NAN;
		return s | SF_INF;
	}
	if (sf_is_inf(b))
		return s;
	if (sf_is_zero(b)) {
		if (sf_is_zero(a))
			return SF_DEFAULT_NAN;
		return s | SF_INF;
	}
	if (sf_is_zero(a))
		return s;
	sf_unpack_norm(a, &ma, &ea);
	sf_unpack_norm(b, &mb, &eb);
	/* 64 quotient bits of ma / mb, the first one of weight 2^0 */
	r = ma;
	for (i = 0; i < 64; i++) {
		q <<= 1;
		if (r >= mb) {
			r -= mb;
			q |= 1;
		}
		r <<= 1;
	}
	return sf_round_pack(s != 0, ea - eb - 63, q | (r != 0));
}

static inline uint64_t sf_sqrt(uint64_t a)
{
	unsigned __int128 M, root = 0, bit, rem;
	uint64_t m;
	int e, sh;

	if (sf_is_nan(a))
		return a | SF_QUIET;
	if (sf_is_zero(a))
		return a;
	if (a & SF_SIGN)
		return SF_DEFAULT_NAN;
	if (sf_is_inf(a))
		return a;
	sf_unpack_norm(a, &m, &e);
	/* m * 2^e with m at bits 52..: move it up to bit 124 or 125 */
	sh = 72;
	if ((e - sh) & 1)
		sh++;
	M = (unsigned __int128)m << sh;
	e -= sh;
	rem = M;
	bit = (unsigned __int128)1 << 126;
	while (bit > rem)
		bit >>= 2;
	while (bit) {
		if (rem >= root + bit) {
			rem -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return sf_round_pack(0, e / 2, (uint64_t)root | (rem != 0));
}

/* IEEE remainder: a - n*b, n the integer nearest a/b (ties to even). */
static inline uint64_t sf_rem(uint64_t a, uint64_t b)
{
	uint64_t mx, my, r, Y;
	int ex, ey, sx, e0, k, q;

	if (sf_is_nan(a) || sf_is_nan(b))
		return sf_nan_of(a, b);
	if (sf_is_inf(a) || sf_is_zero(b))
		return SF_DEFAULT_NAN;
	if (sf_is_inf(b) || sf_is_zero(a))
		return a;
	sx = sf_unpack_norm(a, &mx, &ex);
	sf_unpack_norm(b, &my, &ey);
	if (ex < ey - 1)
		return a;		/* |a| < |b| / 2 */
	if (ex < ey) {
		e0 = ex;
		Y = my << 1;
		r = mx;
		q = 0;
	} else {
		e0 = ey;
		Y = my;
		r = mx;
		q = r >= Y;
		if (q)
			r -= Y;
		for (k = ex - ey; k > 0; k--) {
			r <<= 1;
			q = r >= Y;
			if (q)
				r -= Y;
		}
	}
	/* a = n*b + r*2^e0 with 0 <= r < Y; round the quotient to nearest */
	if (2 * r > Y || (2 * r == Y && q)) {
		r = Y - r;
		sx = !sx;
	}
	if (!r)
		return a & SF_SIGN;
	return sf_round_pack(sx, e0, r);
}

static inline bool sf_eq(uint64_t a, uint64_t b)
{
	if (sf_is_nan(a) || sf_is_nan(b))
		return false;
	return a == b || !((a | b) << 1);
}

static inline bool sf_lt(uint64_t a, uint64_t b)
{
	bool sa = a >> 63, sb = b >> 63;

	if (sf_is_nan(a) || sf_is_nan(b))
		return false;
	if (sa != sb)
		return sa && ((a | b) << 1);
	return a != b && (sa ^ (a < b));
}

static inline bool sf_le(uint64_t a, uint64_t b)
{
	bool sa = a >> 63, sb = b >> 63;

	if (sf_is_nan(a) || sf_is_nan(b))
		return false;
	if (sa != sb)
		return sa || !((a | b) << 1);
	return a == b || (sa ^ (a < b));
}

static inline uint64_t sf_from_i64(int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	return sf_round_pack(v < 0, 0, mag);
}

static inline uint64_t sf_from_f32(uint32_t f)
{
	uint64_t s = (uint64_t)(f >> 31) << 63, frac = f & 0x7fffff;
	int exp = (f >> 23) & 0xff, sh;

	if (exp == 0xff)
		return frac ? (s | SF_INF | SF_QUIET | (frac << 29)) : (s | SF_INF);
	if (!exp) {
		if (!frac)
			return s;
		sh = sf_clz64(frac) - 40;	/* leading bit to bit 23 */
		frac <<= sh;
		exp = 1 - sh;
		frac &= 0x7fffff;
	}
	return s | ((uint64_t)(exp - 127 + 1023) << 52) | (frac << 29);
}

/* The integer of a in the rounding MODE; INT64_MIN when out of range. */
static inline int64_t sf_to_i64(uint64_t a, int mode)
{
	uint64_t m, i, rest = 0, half = 0, mag;
	int e, sign;
	bool up = false;

	if (sf_is_nan(a) || sf_is_inf(a))
		return SF_I64_MIN;
	if (sf_is_zero(a))
		return 0;
	sign = sf_unpack(a, &m, &e);
	if (e >= 0) {
		if (e > 11 || (m << e) > (1ULL << 63) ||
		    ((m << e) == (1ULL << 63) && !sign))
			return SF_I64_MIN;
		mag = m << e;
		return sign ? (int64_t)(0 - mag) : (int64_t)mag;
	}
	if (-e >= 64) {
		i = 0;
		rest = m;		/* below one half: m < 2^53 */
		half = 0;
	} else {
		i = m >> -e;
		rest = m & ((1ULL << -e) - 1);
		half = 1ULL << (-e - 1);
	}
	if (rest) {
		switch (mode) {
		case SF_ROUND_MIN_MAG:
			break;
		case SF_ROUND_MIN:
			up = sign;
			break;
		case SF_ROUND_MAX:
			up = !sign;
			break;
		case SF_ROUND_NEAR_MAX_MAG:
			up = half && rest >= half;
			break;
		case SF_ROUND_ODD:
			up = !(i & 1);
			break;
		default:	/* near even */
			up = half && (rest > half || (rest == half && (i & 1)));
			break;
		}
	}
	i += up;
	if (i > (1ULL << 63) || (i == (1ULL << 63) && !sign))
		return SF_I64_MIN;
	return sign ? (int64_t)(0 - i) : (int64_t)i;
}

/* ---- big unsigned integers for the decimal conversions ---- */

#define SF_BIG_WORDS 64		/* 2048 bits */

struct sf_big {
	uint32_t w[SF_BIG_WORDS];	/* little endian */
	int n;				/* words in use, top word nonzero */
};

static inline void sf_big_set(struct sf_big *x, uint64_t v)
{
	x->w[0] = (uint32_t)v;
	x->w[1] = (uint32_t)(v >> 32);
	x->n = x->w[1] ? 2 : x->w[0] ? 1 : 0;
}

/* x = x * k + add; false when it no longer fits */
static inline bool sf_big_muladd(struct sf_big *x, uint32_t k, uint32_t add)
{
	uint64_t carry = add;
	int i;

	for (i = 0; i < x->n; i++) {
		uint64_t t = (uint64_t)x->w[i] * k + carry;

		x->w[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry) {
		if (x->n == SF_BIG_WORDS)
			return false;
		x->w[x->n++] = (uint32_t)carry;
	}
	return true;
}

static inline int sf_big_bits(const struct sf_big *x)
{
	return x->n ? 32 * (x->n - 1) + 32 - __builtin_clz(x->w[x->n - 1]) : 0;
}

static inline bool sf_big_bit(const struct sf_big *x, int k)
{
	return k >= 0 && k / 32 < x->n && ((x->w[k / 32] >> (k % 32)) & 1);
}

/* x <<= k; false when it no longer fits */
static inline bool sf_big_shl(struct sf_big *x, int k)
{
	int words = k / 32, bits = k % 32, i, n;

	if (!x->n || !k)
		return true;
	n = x->n + words + 1;
	if (n > SF_BIG_WORDS) {
		if (sf_big_bits(x) + k > 32 * SF_BIG_WORDS)
			return false;
		n = SF_BIG_WORDS;
	}
	for (i = n - 1; i >= 0; i--) {
		int src = i - words;
		uint32_t v = 0;

		if (src >= 0 && src < x->n)
			v = x->w[src] << bits;
		if (bits && src - 1 >= 0 && src - 1 < x->n)
			v |= x->w[src - 1] >> (32 - bits);
		x->w[i] = v;
	}
	x->n = n;
	while (x->n && !x->w[x->n - 1])
		x->n--;
	return true;
}

/* x >>= k; returns whether any bit shifted out was set */
static inline bool sf_big_shr(struct sf_big *x, int k)
{
	int words = k / 32, bits = k % 32, i;
	bool lost = false;

	for (i = 0; i < words && i < x->n; i++)
		lost |= x->w[i] != 0;
	if (words >= x->n) {
		x->n = 0;
		return lost;
	}
	if (bits)
		lost |= (x->w[words] & ((1U << bits) - 1)) != 0;
	for (i = 0; i < x->n - words; i++) {
		uint32_t v = x->w[i + words] >> bits;

		if (bits && i + words + 1 < x->n)
			v |= x->w[i + words + 1] << (32 - bits);
		x->w[i] = v;
	}
	x->n -= words;
	while (x->n && !x->w[x->n - 1])
		x->n--;
	return lost;
}

static inline int sf_big_cmp(const struct sf_big *a, const struct sf_big *b)
{
	int i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* a -= b, for a >= b */
static inline void sf_big_sub(struct sf_big *a, const struct sf_big *b)
{
	int64_t borrow = 0;
	int i;

	for (i = 0; i < a->n; i++) {
		int64_t t = (int64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;

		borrow = t < 0;
		a->w[i] = (uint32_t)(t + (borrow ? (1LL << 32) : 0));
	}
	while (a->n && !a->w[a->n - 1])
		a->n--;
}

/* x /= k, returns the remainder */
static inline uint32_t sf_big_divsmall(struct sf_big *x, uint32_t k)
{
	uint64_t rem = 0;
	int i;

	for (i = x->n - 1; i >= 0; i--) {
		uint64_t cur = (rem << 32) | x->w[i];

		x->w[i] = (uint32_t)(cur / k);
		rem = cur % k;
	}
	while (x->n && !x->w[x->n - 1])
		x->n--;
	return (uint32_t)rem;
}

/* The top 64 bits of x with the rest jammed, and their weight's exponent. */
static inline uint64_t sf_big_top64(const struct sf_big *x, int *e)
{
	int bits = sf_big_bits(x), k;
	uint64_t r = 0;
	bool sticky = false;

	*e = bits > 64 ? bits - 64 : 0;
	for (k = bits - 1; k >= *e; k--)
		r = (r << 1) | sf_big_bit(x, k);
	for (k = 0; k < *e && !sticky; k++)
		sticky = sf_big_bit(x, k);
	return r | sticky;
}

#define SF_MAX_PRECISION 40

/*
 * a as printf's "%.*f" prints it (exactly, ties to even), into buf of
 * size len (truncated, always terminated).  PRECISION is clamped to
 * 0..SF_MAX_PRECISION.
 */
static inline void sf_to_decimal(uint64_t a, int precision, char *buf, size_t len)
{
	struct sf_big N, rem;
	char digits[420], out[sizeof(digits) + 4];
	uint64_t m;
	int e, i, nd = 0, o = 0;

	if (!len)
		return;
	if (precision < 0)
		precision = 0;
	if (precision > SF_MAX_PRECISION)
		precision = SF_MAX_PRECISION;
	if (a >> 63)
		out[o++] = '-';
	if (sf_is_nan(a) || sf_is_inf(a)) {
		strcpy(out + o, sf_is_nan(a) ? "nan" : "inf");
		goto done;
	}
	if (sf_is_zero(a)) {
		m = 0;
		e = 0;
	} else {
		sf_unpack(a, &m, &e);
	}
	/* N = m * 10^precision * 2^e, rounded to an integer */
	sf_big_set(&N, m);
	for (i = 0; i < precision; i++)
		sf_big_muladd(&N, 10, 0);
	if (e >= 0) {
		sf_big_shl(&N, e);
	} else {
		bool half, below;

		half = sf_big_bit(&N, -e - 1);
		rem = N;
		/* bits below the half bit */
		below = -e - 1 > 0 && sf_big_shr(&rem, -e - 1);
		sf_big_shr(&N, -e);
		if (half && (below || sf_big_bit(&N, 0)))
			sf_big_muladd(&N, 1, 1);
	}
	/* decimal digits of N, least significant first */
	while (N.n && nd < (int)sizeof(digits) - 9) {
		uint32_t chunk = sf_big_divsmall(&N, 1000000000);

		for (i = 0; i < 9; i++) {
			digits[nd++] = (char)('0' + chunk % 10);
			chunk /= 10;
		}
	}
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	while (nd < precision + 1)
		digits[nd++] = '0';
	for (i = nd - 1; i >= 0; i--) {
		out[o++] = digits[i];
		if (i == precision && precision)
			out[o++] = '.';
	}
	out[o] = '\0';
done:
	strncpy(buf, out, len - 1);
	buf[len - 1] = '\0';
}

/*
 * The double nearest to the decimal number in S ("-12.5e-3", "inf",
 * "nan"; leading and trailing blanks allowed).  Returns false, leaving
 * *out alone, when S is not a number.  Digits after the 40th
 * significant one are dropped.
 */
static inline bool sf_from_decimal(const char *s, uint64_t *out)
{
	struct sf_big D, P, T;
	int sign = 0, ndig = 0, e10 = 0, x = 0, xs = 1, k, s2, i;
	bool any = false;
	uint64_t q;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (*s == '-' || *s == '+')
		sign = *s++ == '-';
	if (!strncmp(s, "inf", 3) || !strncmp(s, "INF", 3)) {
		s += 3;
		*out = ((uint64_t)sign << 63) | SF_INF;
		goto tail;
	}
	if (!strncmp(s, "nan", 3) || !strncmp(s, "NAN", 3)) {
		s += 3;
		*out = ((uint64_t)sign << 63) | SF_INF | SF_QUIET;
		goto tail;
	}
	sf_big_set(&D, 0);
	for (; *s >= '0' && *s <= '9'; s++) {
		any = true;
		if (ndig < SF_MAX_PRECISION) {
			if (D.n || *s != '0')
				ndig++;
			sf_big_muladd(&D, 10, (uint32_t)(*s - '0'));
		} else {
			e10++;
		}
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++) {
			any = true;
			if (ndig < SF_MAX_PRECISION) {
				if (D.n || *s != '0')
					ndig++;
				sf_big_muladd(&D, 10, (uint32_t)(*s - '0'));
				e10--;
			}
		}
	}
	if (!any)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			xs = *s++ == '-' ? -1 : 1;
		if (*s < '0' || *s > '9')
			return false;
		for (; *s >= '0' && *s <= '9'; s++)
			if (x < 100000)
				x = x * 10 + (*s - '0');
	}
	e10 += xs * x;
	if (!D.n) {
		*out = (uint64_t)sign << 63;
		goto tail;
	}
	if (e10 > 400) {
		*out = ((uint64_t)sign << 63) | SF_INF;
		goto tail;
	}
	if (e10 < -400) {
		*out = (uint64_t)sign << 63;
		goto tail;
	}
	if (e10 >= 0) {
		for (i = 0; i < e10; i++)
			sf_big_muladd(&D, 10, 0);
		q = sf_big_top64(&D, &k);
		*out = sf_round_pack(sign, k, q);
		goto tail;
	}
	/* D / 10^-e10: 63 or 64 quotient bits by long division */
	sf_big_set(&P, 1);
	for (i = 0; i < -e10; i++)
		sf_big_muladd(&P, 10, 0);
	s2 = 63 + sf_big_bits(&P) - sf_big_bits(&D);
	if (s2 > 0)
		sf_big_shl(&D, s2);
	else
		sf_big_shl(&P, -s2);
	q = 0;
	for (k = 63; k >= 0; k--) {
		T = P;
		sf_big_shl(&T, k);
		if (sf_big_cmp(&D, &T) >= 0) {
			sf_big_sub(&D, &T);
			q |= 1ULL << k;
		}
	}
	*out = sf_round_pack(sign, -s2, q | (D.n != 0));
tail:
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return *s == '\0';
}

#endif /* TAP_SOFTFLOAT_H */
