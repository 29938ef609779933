/*
 * test_softfloat.c - runtime/softfloat.h (the fp tapset's integer
 * IEEE 754 arithmetic) against the host's doubles: special values,
 * hand-picked edge cases and a few hundred thousand random operands of
 * every magnitude, subnormals included.  Every result must be bit for
 * bit what the FPU gives (ties to even), and the decimal conversions
 * what glibc's strtod and "%.*f" give.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "softfloat.h"

static int failures;

static uint64_t bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double dbl(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* NaNs compare by being NaN: payload rules are checked separately */
static void check(const char *op, uint64_t a, uint64_t b, uint64_t got, uint64_t want)
{
	if (got == want || (sf_is_nan(got) && isnan(dbl(want))))
		return;
	if (failures++ < 20)
		fprintf(stderr, "FAIL %s(%016" PRIx64 ", %016" PRIx64 ") = %016" PRIx64
			", want %016" PRIx64 "\n", op, a, b, got, want);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* a random double: any bits, or near 1, or subnormal, or a small integer */
static uint64_t rnd_double(void)
{
	uint64_t r = rnd();

	switch (r % 6) {
	case 0:
		return rnd();
	case 1:
		return bits((double)(int64_t)(rnd() % 2000) - 1000);
	case 2:
		return (rnd() & (SF_SIGN | SF_FRAC_MASK));	/* subnormal */
	case 3:
		return (rnd() & (SF_SIGN | SF_FRAC_MASK)) | (1023ULL << 52);
	case 4:
		return (rnd() & (SF_SIGN | SF_FRAC_MASK)) |
		       ((uint64_t)(1023 - 40 + rnd() % 80) << 52);
	default:
		return rnd() & (SF_SIGN | SF_FRAC_MASK | (3ULL << 52));
	}
}

static const uint64_t specials[] = {
	0, SF_SIGN, SF_INF, SF_INF | SF_SIGN, SF_DEFAULT_NAN, 0x7ff8000000000000ULL,
	1, SF_FRAC_MASK, 1ULL << 52, 0x7fefffffffffffffULL, 0x3ff0000000000000ULL,
	0xbff0000000000000ULL, 0x4000000000000000ULL, 0x3fe0000000000000ULL,
	0x43e0000000000000ULL, 0xc3e0000000000000ULL, 0x3ff8000000000000ULL,
	0x4004000000000000ULL,
};

static void check_pair(uint64_t a, uint64_t b)
{
	double x = dbl(a), y = dbl(b);

	check("add", a, b, sf_add(a, b), bits(x + y));
	check("sub", a, b, sf_sub(a, b), bits(x - y));
	check("mul", a, b, sf_mul(a, b), bits(x * y));
	check("div", a, b, sf_div(a, b), bits(x / y));
	check("rem", a, b, sf_rem(a, b), bits(remainder(x, y)));
	check("eq", a, b, sf_eq(a, b), x == y);
	check("lt", a, b, sf_lt(a, b), x < y);
	check("le", a, b, sf_le(a, b), x <= y);
}

static void check_one(uint64_t a)
{
	double x = dbl(a);
	char got[1024], want[1024];
	uint64_t back = 0;
	int p;

	check("sqrt", a, 0, sf_sqrt(a), bits(sqrt(x)));
	if (!isnan(x) && fabs(x) < 9.2e18) {
		check("to_i64 near_even", a, 0, (uint64_t)sf_to_i64(a, SF_ROUND_NEAR_EVEN),
		      (uint64_t)llrint(x));
		check("to_i64 min_mag", a, 0, (uint64_t)sf_to_i64(a, SF_ROUND_MIN_MAG),
		      (uint64_t)(int64_t)x);
		check("to_i64 min", a, 0, (uint64_t)sf_to_i64(a, SF_ROUND_MIN),
		      (uint64_t)(int64_t)floor(x));
		check("to_i64 max", a, 0, (uint64_t)sf_to_i64(a, SF_ROUND_MAX),
		      (uint64_t)(int64_t)ceil(x));
		check("to_i64 near_max_mag", a, 0,
		      (uint64_t)sf_to_i64(a, SF_ROUND_NEAR_MAX_MAG), (uint64_t)(int64_t)round(x));
	}
	p = (int)(rnd() % 21);
	sf_to_decimal(a, p, got, sizeof(got));
	snprintf(want, sizeof(want), "%.*f", p, x);
	if (strcmp(got, want) && failures++ < 20)
		fprintf(stderr, "FAIL to_decimal(%016" PRIx64 ", %d) = %s, want %s\n",
			a, p, got, want);
	if (!isnan(x) && !isinf(x)) {
		snprintf(want, sizeof(want), "%.17g", x);
		if (!sf_from_decimal(want, &back))
			back = 1;
		check("from_decimal", a, 0, back, bits(strtod(want, NULL)));
	}
}

static void check_decimal(const char *s, bool ok)
{
	uint64_t got = 0;
	bool r = sf_from_decimal(s, &got);

	if (r != ok && failures++ < 20)
		fprintf(stderr, "FAIL from_decimal(\"%s\") accepted %d\n", s, r);
	if (ok)
		check(s, 0, 0, got, bits(strtod(s, NULL)));
}

int main(void)
{
	size_t i, j, n = sizeof(specials) / sizeof(specials[0]);
	float f;

	for (i = 0; i < n; i++) {
		check_one(specials[i]);
		for (j = 0; j < n; j++)
			check_pair(specials[i], specials[j]);
	}
	for (i = 0; i < 300000; i++) {
		uint64_t a = rnd_double(), b = rnd_double();

		check_pair(a, b);
		check_one(a);
	}
	for (i = 0; i < 2000; i++) {
		int64_t v = (int64_t)rnd() >> (rnd() % 64);

		check("from_i64", (uint64_t)v, 0, sf_from_i64(v), bits((double)v));
	}
	check("from_i64", 0, 0, sf_from_i64(INT64_MIN), bits((double)INT64_MIN));
	for (i = 0; i < 2000; i++) {
		uint32_t u = (uint32_t)rnd();

		memcpy(&f, &u, sizeof(f));
		check("from_f32", u, 0, sf_from_f32(u), bits((double)f));
	}
	check("to_i64 overflow", 0, 0, (uint64_t)sf_to_i64(bits(1e19), 0), (uint64_t)INT64_MIN);
	check("to_i64 nan", 0, 0, (uint64_t)sf_to_i64(SF_DEFAULT_NAN, 0), (uint64_t)INT64_MIN);
	check("to_i64 -2^63", 0, 0, (uint64_t)sf_to_i64(bits(-9223372036854775808.0), 0),
	      (uint64_t)INT64_MIN);
	check("to_i64 odd", 0, 0, (uint64_t)sf_to_i64(bits(2.5), SF_ROUND_ODD), 3);
	check("to_i64 odd", 0, 0, (uint64_t)sf_to_i64(bits(3.0), SF_ROUND_ODD), 3);
	check_decimal("3.14159", true);
	check_decimal("  -0.1  ", true);
	check_decimal("1e308", true);
	check_decimal("1e309", true);
	check_decimal("2.2250738585072011e-308", true);
	check_decimal("4.9e-324", true);
	check_decimal("2e-324", true);
	check_decimal("123456789012345678901234567890", true);
	check_decimal("0.000000000000000000000000000001", true);
	check_decimal("-inf", true);
	check_decimal("", false);
	check_decimal("abc", false);
	check_decimal("1.5x", false);
	check_decimal("1e", false);
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("test_softfloat: ok\n");
	return 0;
}
