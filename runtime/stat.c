/*
 * stat.c - statistics accumulation, merging, extraction and the ASCII
 * histogram printer.
 */
#include "tap.h"

int tap_hist_spec_init(struct tap_hist_spec *spec)
{
	u64 span, n;

	if (spec->var_shift < 0 || spec->var_shift > 62)
		return -EINVAL;
	switch (spec->type) {
	case TAP_HIST_NONE:
		spec->buckets = 0;
		return 0;
	case TAP_HIST_LOG:
		spec->buckets = TAP_HIST_LOG_BUCKETS;
		return 0;
	case TAP_HIST_LINEAR:
		if (spec->interval <= 0 || spec->stop < spec->start)
			return -EINVAL;
		span = (u64)spec->stop - (u64)spec->start;
		n = div64_u64(span, spec->interval) + 1;
		if (n > 65536)	/* keeps a statistic a few hundred KiB at most */
			return -E2BIG;
		spec->buckets = (int)n + 2;	/* + under- and overflow */
		return 0;
	}
	return -EINVAL;
}

size_t tap_stat_data_size(const struct tap_hist_spec *spec)
{
	return sizeof(struct tap_stat_data) + spec->buckets * sizeof(int64_t);
}

static int tap_msb64(u64 v)
{
	int n = 0;

	while (v >>= 1)
		n++;
	return n;
}

/*
 * Log buckets: 0 in TAP_HIST_LOG_ZERO; v > 0 in ZERO + 1 + msb(v), so 1,
 * 2..3, 4..7 ...; v < 0 mirrored below ZERO by the magnitude.
 * Linear: 0 = below start, 1..N = [start + (i-1)*interval, +interval),
 * N+1 = above.
 */
static int tap_hist_bucket_of(const struct tap_hist_spec *spec, int64_t v)
{
	u64 off;

	if (spec->type == TAP_HIST_LOG) {
		if (v == 0)
			return TAP_HIST_LOG_ZERO;
		if (v > 0)
			return TAP_HIST_LOG_ZERO + 1 + tap_msb64(v);
		return TAP_HIST_LOG_ZERO - 1 - tap_msb64(0 - (u64)v);
	}
	if (v < spec->start)
		return 0;
	off = div64_u64((u64)v - (u64)spec->start, spec->interval);
	if (off >= (u64)spec->buckets - 2)
		return spec->buckets - 1;
	return (int)off + 1;
}

void tap_stat_data_add(const struct tap_hist_spec *spec, struct tap_stat_data *d, int64_t v)
{
	int64_t vs = tap_shl(v, spec->var_shift), delta;

	if (d->count == 0) {
		d->count = 1;
		d->sum = d->min = d->max = v;
		d->avg_s = vs;
		d->m2 = 0;
	} else {
		d->count++;
		d->sum = tap_add(d->sum, v);
		if (v < d->min)
			d->min = v;
		if (v > d->max)
			d->max = v;
		if (!spec->variance)
			goto hist;	/* no division where no @variance reads it */
		/* Welford: the mean moves by delta / n, m2 by delta * (v - mean). */
		delta = tap_sub(vs, d->avg_s);
		d->avg_s = tap_add(d->avg_s, div64_s64(delta, d->count));
		d->m2 = tap_add(d->m2, tap_mul(delta, tap_sub(vs, d->avg_s)));
	}
hist:
	if (spec->type != TAP_HIST_NONE)
		d->hist[tap_hist_bucket_of(spec, v)]++;
}

/*
 * Combine two partials.  The m2 of each stays as it is; what the
 * difference between its running mean a_i and the mean of all values
 * adds (n_i (a_i - A)^2, Chan et al.) is summed at extraction, when A is
 * known: here only sum n_i (a_i - r) and sum n_i (a_i - r)^2 are kept,
 * about a reference r (the first partial's mean), which keeps the squares
 * as small as the variance itself.
 */
void tap_stat_data_merge(const struct tap_hist_spec *spec, struct tap_stat_data *agg,
			 const struct tap_stat_data *d)
{
	int64_t delta;
	int i;

	if (d->count == 0)
		return;
	if (agg->count == 0) {
		memcpy(agg, d, tap_stat_data_size(spec));
		return;
	}
	delta = tap_sub(d->avg_s, agg->avg_s);
	agg->s2 = tap_add(tap_add(agg->s2, d->s2),
			  tap_add(tap_mul(tap_mul(2, delta), d->t1),
				  tap_mul(d->count, tap_mul(delta, delta))));
	agg->t1 = tap_add(tap_add(agg->t1, d->t1), tap_mul(d->count, delta));
	agg->m2 = tap_add(agg->m2, d->m2);
	agg->count += d->count;
	agg->sum = tap_add(agg->sum, d->sum);
	if (d->min < agg->min)
		agg->min = d->min;
	if (d->max > agg->max)
		agg->max = d->max;
	for (i = 0; i < spec->buckets; i++)
		agg->hist[i] += d->hist[i];
}

/*
 * The sum of squared deviations: every partial's m2 plus n_i (a_i - A)^2,
 * A being (sum << shift) / count.  A running mean in integers lags (1..5
 * keeps a mean of 1), and this term puts back what that lag left out, so
 * 1..5 gives a variance of 12 with shift 0 and 2 with shift 1, the
 * figures stap's manual shows.
 */
static int64_t tap_stat_m2(const struct tap_hist_spec *spec, const struct tap_stat_data *d)
{
	int64_t mean = div64_s64(tap_shl(d->sum, spec->var_shift), d->count);
	int64_t e = tap_sub(mean, d->avg_s);

	/* sum n_i (a_i - A)^2 = s2 - 2 e t1 + n e^2, with e = A - r */
	return tap_add(tap_add(d->m2, d->s2),
		       tap_sub(tap_mul(d->count, tap_mul(e, e)),
			       tap_mul(tap_mul(2, e), d->t1)));
}

/*
 * Each CPU's part is its lock word then its partial, a stride that is a
 * whole number of cache lines apart from the next CPU's: `<<<` writes
 * only its own CPU's lines.
 */

struct tap_stat *tap_stat_create(const struct tap_hist_spec *spec)
{
	struct tap_stat *s = tap_alloc(sizeof(*s));

	if (!s)
		return NULL;
	if (spec)
		s->spec = *spec;
	if (tap_hist_spec_init(&s->spec))
		goto err_free_stat;
	s->dsize = tap_stat_data_size(&s->spec);
	s->stride = (TAP_STAT_CPU_HDR + s->dsize + 63) & ~(size_t)63;
	s->cpu = tap_alloc(s->stride * nr_cpu_ids);
	if (!s->cpu)
		goto err_free_stat;
	s->locks.base = s->cpu;
	s->locks.stride = s->stride;
	s->agg = tap_alloc(s->dsize);
	if (!s->agg)
		goto err_free_cpu;
	return s;
err_free_cpu:
	tap_free(s->cpu);
err_free_stat:
	tap_free(s);
	return NULL;
}

void tap_stat_destroy(struct tap_stat *s)
{
	if (!s)
		return;
	tap_free(s->cpu);
	tap_free(s->agg);
	tap_free(s);
}

static struct tap_stat_data *tap_stat_cpu(struct tap_stat *s, unsigned int cpu)
{
	return (struct tap_stat_data *)(s->cpu + cpu * s->stride + TAP_STAT_CPU_HDR);
}

/*
 * x <<< v: this CPU's partial, under this CPU's lock of x (taken here, or
 * by the handler's lock table, see tap_cpu_trylock; no lock of x unless
 * the handler reads x too); the context is not reentrant, so no other
 * adder shares the partial.
 */
int tap_stat_add_slow(struct tap_context *c, struct tap_stat *s, int64_t v)
{
	unsigned int cpu = smp_processor_id();
	atomic_t *l = tap_cpu_lock_of(&s->locks, cpu);
	int held = tap_cpu_trylock(c, l);

	if (held < 0)
		return -1;
	tap_stat_data_add(&s->spec, tap_stat_cpu(s, cpu), v);
	if (!held)
		tap_cpu_release(l);
	return 0;
}

/* ---- counters: each CPU's word then its part, a cache line each ---- */

#define TAP_COUNTER_STRIDE 64

static int64_t *tap_counter_part(struct tap_cpu_locks *pl, unsigned int cpu)
{
	return (int64_t *)(pl->base + cpu * pl->stride + TAP_COUNTER_HDR);
}

/* The reader holds every CPU's word: the parts go into the value. */
static void tap_counter_fold(struct tap_cpu_locks *pl)
{
	struct tap_counter *ct = container_of(pl, struct tap_counter, locks);
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		int64_t *p = tap_counter_part(pl, cpu);

		*ct->base = tap_add(*ct->base, *p);
		*p = 0;
	}
}

struct tap_counter *tap_counter_create(int64_t *base)
{
	struct tap_counter *ct = tap_alloc(sizeof(*ct));

	if (!ct)
		return NULL;
	ct->base = base;
	ct->locks.stride = TAP_COUNTER_STRIDE;
	ct->locks.fold = tap_counter_fold;
	ct->locks.base = tap_alloc(nr_cpu_ids * ct->locks.stride);
	if (!ct->locks.base) {
		tap_free(ct);
		return NULL;
	}
	return ct;
}

void tap_counter_destroy(struct tap_counter *ct)
{
	if (!ct)
		return;
	tap_free(ct->locks.base);
	tap_free(ct);
}

/*
 * x += d but for an adder's own lock table (tap_counter_add): this CPU's
 * part, under its word taken here; a handler holding every word (it
 * reads x too) has folded the parts already and adds to the value
 * itself, so it reads its own adds.
 */
int tap_counter_add_slow(struct tap_context *c, struct tap_counter *ct, int64_t delta)
{
	unsigned int cpu = smp_processor_id();
	atomic_t *l = tap_cpu_lock_of(&ct->locks, cpu);
	int held = tap_cpu_trylock(c, l);
	int64_t *p;

	if (held < 0)
		return -1;
	p = held == 2 ? ct->base : tap_counter_part(&ct->locks, cpu);
	*p = tap_add(*p, delta);
	if (!held)
		tap_cpu_release(l);
	return 0;
}

/* Readers hold x's write lock and every CPU's lock of x (the lock table). */
const struct tap_stat_data *tap_stat_get(struct tap_stat *s)
{
	unsigned int cpu;

	memset(s->agg, 0, s->dsize);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		tap_stat_data_merge(&s->spec, s->agg, tap_stat_cpu(s, cpu));
	return s->agg;
}

void tap_stat_clear(struct tap_stat *s)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		memset(tap_stat_cpu(s, cpu), 0, s->dsize);
	memset(s->agg, 0, s->dsize);
}

/*
 * @count and @sum of nothing are 0; the others are an error, as in stap.
 * @variance divides the sum of squared deviations (tap_stat_m2) by n - 1,
 * then removes the scaling 2^shift twice (each a truncating division); one
 * sample has variance 0.
 */
int tap_stat_extract(struct tap_context *c, const struct tap_hist_spec *spec,
		     const struct tap_stat_data *d, int op, int64_t *out)
{
	int64_t v;

	if (op == TAP_STAT_COUNT) {
		*out = d ? d->count : 0;
		return 0;
	}
	if (op == TAP_STAT_SUM) {
		*out = d ? d->sum : 0;
		return 0;
	}
	if (!d || d->count == 0) {
		tap_error(c, "empty aggregate");
		return -1;
	}
	switch (op) {
	case TAP_STAT_MIN:
		*out = d->min;
		return 0;
	case TAP_STAT_MAX:
		*out = d->max;
		return 0;
	case TAP_STAT_AVG:
		*out = div64_s64(d->sum, d->count);
		return 0;
	case TAP_STAT_VARIANCE:
		if (!spec->variance) {
			/* pass 3 sets .variance wherever a @variance reads it */
			tap_error(c, "@variance of a statistic kept without it");
			return -1;
		}
		if (d->count < 2) {
			*out = 0;
			return 0;
		}
		v = div64_s64(tap_stat_m2(spec, d), d->count - 1);
		v = div64_s64(v, (int64_t)1 << spec->var_shift);
		*out = div64_s64(v, (int64_t)1 << spec->var_shift);
		return 0;
	}
	tap_error(c, "unknown statistic operation %d", op);
	return -1;
}

int tap_hist_nbuckets(const struct tap_hist_spec *spec)
{
	return spec->buckets;
}

/* @hist_xxx(v)[i]: the raw bucket; for linear, 0 and N+1 are out of range. */
int tap_hist_bucket(struct tap_context *c, const struct tap_hist_spec *spec,
		    const struct tap_stat_data *d, int64_t i, int64_t *out)
{
	if (i < 0 || i >= spec->buckets) {
		tap_error(c, "histogram index %lld out of range", (long long)i);
		return -1;
	}
	*out = d ? d->hist[i] : 0;
	return 0;
}

/* ---- the histogram printer ---- */

struct tap_hist_sink {
	struct tap_context *c;	/* print to this context's output, or */
	char *buf;		/* into buf */
	size_t size, len;
};

static void tap_sink_put(struct tap_hist_sink *s, const char *p, size_t n)
{
	size_t room;

	if (s->c) {
		tap_print_n(s->c, p, n);
		return;
	}
	room = s->size ? s->size - 1 - s->len : 0;
	if (n > room)
		n = room;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void tap_sink_repeat(struct tap_hist_sink *s, char ch, int n)
{
	char chunk[64];

	memset(chunk, ch, sizeof(chunk));
	while (n > 0) {
		int k = n > (int)sizeof(chunk) ? (int)sizeof(chunk) : n;

		tap_sink_put(s, chunk, k);
		n -= k;
	}
}

static int tap_max3(int a, int b, int c)
{
	int m = a > b ? a : b;

	return m > c ? m : c;
}

static int tap_num_width(int64_t v)
{
	char tmp[24];

	return snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
}

/* The value a row stands for (a log bucket's smallest magnitude, a
 * linear bucket's low end) and its prefix: "<" underflow, ">" overflow. */
static int64_t tap_hist_value(const struct tap_hist_spec *spec, int i, const char **prefix)
{
	*prefix = "";
	if (spec->type == TAP_HIST_LOG) {
		if (i == TAP_HIST_LOG_ZERO)
			return 0;
		if (i > TAP_HIST_LOG_ZERO)
			return 1LL << (i - TAP_HIST_LOG_ZERO - 1);
		if (i == 0)
			return LLONG_MIN;
		return -(1LL << (TAP_HIST_LOG_ZERO - 1 - i));	/* -2^(63-i) */
	}
	if (i == 0) {
		*prefix = "<";
		return spec->start;
	}
	if (i == spec->buckets - 1) {
		*prefix = ">";
		i--;
	}
	return (int64_t)((u64)spec->start + (u64)spec->interval * (u64)(i - 1));
}

/*
 * stap's layout, byte for byte:
 *	" value |-------------------------------------------------- count"
 *	"     8 |@@@@                                                4"
 *	"       ~"
 * Rows run from two buckets before the first non-empty one to two after
 * the last, but a log histogram of values >= 0 starts at the 0 row at
 * the lowest, and empty linear under/overflow rows are left out.  An
 * empty row whose neighbours within HIST_ELISION rows (inside that
 * range) are all empty is elided; a run of elided rows is one "~" line
 * where printing resumes (a negative HIST_ELISION elides nothing).  The
 * value column is as wide as the widest of the first and last rows'
 * values (for a linear histogram, of start and of start + interval *
 * the last row's index, plus one for a "<" or ">" row), at least
 * "value".  Bars are count / scale '@'s, scale = ceil(max / 50) once the
 * largest count exceeds 50; counts are right-aligned to the widest one.
 * A blank line ends the histogram.
 */
static void tap_hist_render(struct tap_hist_sink *s, const struct tap_hist_spec *spec,
			    const struct tap_stat_data *d)
{
	char num[24];
	const char *prefix;
	int64_t max = 0, scale = 1, v;
	int i, k, lo = -1, hi = 0, val_space, cnt_space, bar, n;
	bool eliding = false, under = false, over = false;

	for (i = 0; i < spec->buckets; i++) {
		if (d->hist[i] > 0 && lo < 0)
			lo = i;
		if (d->hist[i] > 0)
			hi = i;
		if (d->hist[i] > max)
			max = d->hist[i];
	}
	if (lo >= 0) {
		for (k = 0; k < 2; k++) {
			if (lo > 0 && (spec->type != TAP_HIST_LOG || lo != TAP_HIST_LOG_ZERO))
				lo--;
			if (hi < spec->buckets - 1)
				hi++;
		}
		if (spec->type == TAP_HIST_LINEAR) {
			if (lo == 0 && !d->hist[0])
				lo++;
			if (hi == spec->buckets - 1 && !d->hist[hi])
				hi--;
			under = lo == 0;
			over = hi == spec->buckets - 1;
		}
	}
	if (max > TAP_HIST_WIDTH)
		scale = div64_s64(max + TAP_HIST_WIDTH - 1, TAP_HIST_WIDTH);
	cnt_space = tap_num_width(max);
	val_space = 5;		/* "value" */
	if (lo >= 0 && spec->type == TAP_HIST_LINEAR) {
		n = tap_num_width(spec->start) + under;
		k = tap_num_width((int64_t)((u64)spec->start + (u64)spec->interval * (u64)hi)) + over;
		val_space = tap_max3(val_space, n, k);
	} else if (lo >= 0) {
		n = tap_num_width(tap_hist_value(spec, lo, &prefix));
		k = tap_num_width(tap_hist_value(spec, hi, &prefix));
		val_space = tap_max3(val_space, n, k);
	}

	tap_sink_repeat(s, ' ', val_space - 5);
	tap_sink_put(s, "value |", 7);
	tap_sink_repeat(s, '-', TAP_HIST_WIDTH);
	tap_sink_put(s, " count\n", 7);

	for (i = lo; lo >= 0 && i <= hi; i++) {
		if (HIST_ELISION >= 0) {
			int reach = HIST_ELISION < spec->buckets ? HIST_ELISION : spec->buckets;
			int from = i - reach > lo ? i - reach : lo;
			int to = i + reach < hi ? i + reach : hi;
			bool empty = true;

			for (k = from; k <= to; k++)
				if (d->hist[k])
					empty = false;
			if (empty) {
				eliding = true;
				continue;
			}
			if (eliding) {
				tap_sink_repeat(s, ' ', val_space + 1);
				tap_sink_put(s, "~\n", 2);
				eliding = false;
			}
		}
		v = tap_hist_value(spec, i, &prefix);
		n = tap_num_width(v);
		tap_sink_repeat(s, ' ', val_space - n - (int)strlen(prefix));
		tap_sink_put(s, prefix, strlen(prefix));
		tap_sink_put(s, num, snprintf(num, sizeof(num), "%lld", (long long)v));
		tap_sink_put(s, " |", 2);
		bar = (int)div64_s64(d->hist[i], scale);
		tap_sink_repeat(s, '@', bar);
		tap_sink_repeat(s, ' ', TAP_HIST_WIDTH - bar + 1 + cnt_space -
				tap_num_width(d->hist[i]));
		tap_sink_put(s, num, snprintf(num, sizeof(num), "%lld", (long long)d->hist[i]));
		tap_sink_put(s, "\n", 1);
	}
	tap_sink_put(s, "\n", 1);
}

size_t tap_hist_sprint(char *buf, size_t size, const struct tap_hist_spec *spec,
		       const struct tap_stat_data *d)
{
	struct tap_hist_sink s = { .buf = buf, .size = size };

	if (!size)
		return 0;
	if (spec->type != TAP_HIST_NONE && d)
		tap_hist_render(&s, spec, d);
	buf[s.len] = '\0';
	return s.len;
}

void tap_hist_print(struct tap_context *c, const struct tap_hist_spec *spec,
		    const struct tap_stat_data *d)
{
	struct tap_hist_sink s = { .c = c };

	if (spec->type != TAP_HIST_NONE && d)
		tap_hist_render(&s, spec, d);
}
