/*
 * stat.h - statistics (x <<< v): count, sum, min, max, a scaled mean and
 * sum of squared deviations for @variance (Welford, integer), and an
 * optional histogram.  Each CPU accumulates its own partial under its own
 * lock (no lock of the global, see tap_cpu_trylock); readers, holding the
 * global's write lock and every CPU's lock, merge them (tap_stat_get) into
 * a snapshot.
 */
#ifndef TAP_STAT_H
#define TAP_STAT_H

enum tap_hist_type { TAP_HIST_NONE, TAP_HIST_LOG, TAP_HIST_LINEAR };

/* What a statistic accumulates; fixed per global by the translator. */
struct tap_hist_spec {
	int type;		/* enum tap_hist_type */
	int64_t start, stop, interval;	/* @hist_linear(v, start, stop, interval) */
	int var_shift;		/* @variance(v, shift): 0..62 */
	int variance;		/* some @variance reads it: keep avg_s and m2 */
	int buckets;		/* filled in by tap_hist_spec_init */
};

#define TAP_HIST_LOG_BUCKETS 128	/* -2^63 .. -1, 0, 1 .. 2^62 */
#define TAP_HIST_LOG_ZERO 64		/* the bucket of 0 */
#define TAP_HIST_WIDTH 50		/* '@' columns of a printed histogram */

struct tap_stat_data {
	int64_t count, sum, min, max;
	int64_t avg_s;		/* mean << var_shift (a merged one: the reference r) */
	int64_t m2;		/* sum of squared deviations, scaled by 4^shift */
	/* merged partials only: sum of n_i (a_i - r) and of n_i (a_i - r)^2
	 * over their running means a_i; 0 in a CPU's own partial */
	int64_t t1, s2;
	int64_t hist[];
};

enum tap_stat_op {
	TAP_STAT_COUNT, TAP_STAT_SUM, TAP_STAT_MIN, TAP_STAT_MAX,
	TAP_STAT_AVG, TAP_STAT_VARIANCE,
};

struct tap_stat {
	struct tap_hist_spec spec;
	size_t dsize;		/* sizeof(struct tap_stat_data) + buckets */
	size_t stride;		/* per-CPU lock + partial, cache-line apart */
	char *cpu;
	struct tap_cpu_locks locks;	/* each CPU's lock word, before its partial */
	struct tap_stat_data *agg;	/* merged snapshot */
};

int tap_hist_spec_init(struct tap_hist_spec *spec);
size_t tap_stat_data_size(const struct tap_hist_spec *spec);
void tap_stat_data_add(const struct tap_hist_spec *spec, struct tap_stat_data *d, int64_t v);
void tap_stat_data_merge(const struct tap_hist_spec *spec, struct tap_stat_data *agg,
			 const struct tap_stat_data *d);

struct tap_stat *tap_stat_create(const struct tap_hist_spec *spec);
void tap_stat_destroy(struct tap_stat *s);
const struct tap_stat_data *tap_stat_get(struct tap_stat *s);
void tap_stat_clear(struct tap_stat *s);

/*
 * A number global only ever added to (a counter, see DESIGN.md): each
 * CPU adds to its own part under its own word (`locks`, the same words
 * as a statistic's); a handler that reads the global holds every word,
 * and its lock table folds (locks.fold) every part into *base, the
 * global's value, which it then reads and writes as any global.
 */
struct tap_counter {
	struct tap_cpu_locks locks;	/* each CPU's word, before its part */
	int64_t *base;
};

struct tap_counter *tap_counter_create(int64_t *base);
void tap_counter_destroy(struct tap_counter *ct);

struct tap_context;
int tap_counter_add_slow(struct tap_context *c, struct tap_counter *ct, int64_t delta);

#define TAP_COUNTER_HDR 8	/* a CPU's word, then its part */

/* x += d; the usual case inline: the handler's lock table holds this
 * CPU's word and no other (it only adds to x). */
static inline int tap_counter_add(struct tap_context *c, struct tap_counter *ct,
				  int64_t delta)
{
	unsigned int cpu = smp_processor_id();
	atomic_t *l = tap_cpu_lock_of(&ct->locks, cpu);
	int64_t *p = (int64_t *)((char *)l + TAP_COUNTER_HDR);

	if (likely(atomic_read(l) == TAP_CPU_OWNER(cpu))) {
		*p = tap_add(*p, delta);
		return 0;
	}
	return tap_counter_add_slow(c, ct, delta);
}

int tap_stat_add_slow(struct tap_context *c, struct tap_stat *s, int64_t v);

/* Each CPU's lock word, then its partial, a cache line apart (stat.c's
 * tap_stat_cpu(); written out here, as a header calls into its .c file
 * and not back, see HACKING.md "Layers"). */
#define TAP_STAT_CPU_HDR 8

/*
 * x <<< v, on every hit: inline where the handler's lock table holds this
 * CPU's word only (its OWNER mark is there) and x keeps no histogram or @variance
 * terms -- a count, a sum, a min and a max; otherwise tap_stat_add_slow()
 * (stat.c) takes the word itself and adds whatever x keeps.
 */
TAP_HOT int tap_stat_add(struct tap_context *c, struct tap_stat *s, int64_t v)
{
	unsigned int cpu = smp_processor_id();
	struct tap_stat_data *d;

	if (unlikely(atomic_read(tap_cpu_lock_of(&s->locks, cpu)) != TAP_CPU_OWNER(cpu) ||
		     s->spec.type != TAP_HIST_NONE || s->spec.variance))
		return tap_stat_add_slow(c, s, v);
	d = (struct tap_stat_data *)(s->cpu + cpu * s->stride + TAP_STAT_CPU_HDR);
	if (unlikely(d->count == 0))
		return tap_stat_add_slow(c, s, v);
	d->count++;
	d->sum = tap_add(d->sum, v);
	if (v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	return 0;
}
int tap_stat_extract(struct tap_context *c, const struct tap_hist_spec *spec,
		     const struct tap_stat_data *d, int op, int64_t *out);
int tap_hist_nbuckets(const struct tap_hist_spec *spec);
int tap_hist_bucket(struct tap_context *c, const struct tap_hist_spec *spec,
		    const struct tap_stat_data *d, int64_t i, int64_t *out);
size_t tap_hist_sprint(char *buf, size_t size, const struct tap_hist_spec *spec,
		       const struct tap_stat_data *d);
void tap_hist_print(struct tap_context *c, const struct tap_hist_spec *spec,
		    const struct tap_stat_data *d);

#endif /* TAP_STAT_H */
