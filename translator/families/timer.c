/* timer.c - the timer family: timer.s/ms/us/ns/jiffies(N), timer.hz(N),
 * timer.profile.  No $context variables.
 *
 * Pass 3 writes one callback per probe and a table for
 * runtime/families/timer.c.  Periods go into the table as C expressions
 * in nanoseconds, so jiffies and hz use the HZ of the kernel the module
 * is built for.
 */
#include "emit_glue.h"

#include <string.h>

/* What pass 3 needs of a timer (ResolvedPoint.data). */
/* Timers.  Interval timers count in nanoseconds; jiffies timers in
 * jiffies; hz timers in events per second; profile timers run on every
 * tick (hz = 0) or at a frequency. */
typedef enum TimerKind {
	TIMER_INTERVAL, TIMER_JIFFIES, TIMER_HZ, TIMER_PROFILE_TICK,
	TIMER_PROFILE_FREQ
} TimerKind;

typedef struct TimerData {
	TimerKind kind;
	int64_t interval;       /* ns, jiffies, or hz */
	int64_t randomize;      /* same unit, 0 when none */
} TimerData;

static const struct {
	const char *name;
	int64_t ns;
} time_units[] = {
	{ "s", 1000000000 }, { "sec", 1000000000 },
	{ "ms", 1000000 }, { "msec", 1000000 },
	{ "us", 1000 }, { "usec", 1000 },
	{ "ns", 1 }, { "nsec", 1 },
};

/* The largest jiffies count a timer takes (a bit over an hour at HZ=250). */
#define MAX_JIFFIES 1000000

static int resolve_timer(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *unit = vec_get(&pp->comps, 1);
	ProbePointComp *rnd = pp_comp(pp, "randomize");
	TimerData *d = NEW(TimerData);

	if (!strcmp(unit->name, "profile")) {
		ProbePointComp *hz = pp_comp(pp, "hz");
		d->kind = hz ? TIMER_PROFILE_FREQ : TIMER_PROFILE_TICK;
		if (hz) {
			if (comp_num(hz) <= 0 || comp_num(hz) > 1000000) {
				error_at(hz->loc, _("timer.profile.freq.hz needs a frequency between 1 and 1000000"));
				return -1;
			}
			d->interval = comp_num(hz);
		}
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		return 1;
	}

	int64_t n = comp_num(unit), scale = 1;
	const char *what = pp_names_upto(pp, 1);
	if (n <= 0) {
		error_at(unit->loc, _("%s needs a positive interval, not %lld"),
			 what, (long long)n);
		return -1;
	}
	if (!strcmp(unit->name, "jiffies")) {
		d->kind = TIMER_JIFFIES;
		if (n > MAX_JIFFIES) {
			error_at(unit->loc, _("timer.jiffies interval %lld is too large (at most %d)"),
				 (long long)n, MAX_JIFFIES);
			return -1;
		}
	} else if (!strcmp(unit->name, "hz")) {
		d->kind = TIMER_HZ;
		if (n > 1000000000) {
			error_at(unit->loc, _("timer.hz frequency %lld is too large"),
				 (long long)n);
			return -1;
		}
	} else {
		d->kind = TIMER_INTERVAL;
		for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
			if (!strcmp(time_units[i].name, unit->name))
				scale = time_units[i].ns;
		/* Keep the interval (plus randomisation) within an int64 of
		 * nanoseconds: about 292 years. */
		if (n > INT64_MAX / 2 / scale) {
			error_at(unit->loc, _("%s interval %lld is too large"),
				 what, (long long)n);
			return -1;
		}
	}
	d->interval = n * scale;
	if (rnd) {
		int64_t r = comp_num(rnd);
		if (r < 0 || r >= n) {
			error_at(rnd->loc, _("randomize(%lld) must be at least 0 and less than the interval %lld"),
				 (long long)r, (long long)n);
			return -1;
		}
		d->randomize = r * scale;
	}
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	return 1;
}

/* ---- pass 3 ---- */

/* The period (and randomisation) of a timer as C text, in ns. */
static const char *timer_ns(const TimerData *d, int64_t v)
{
	switch (d->kind) {
	case TIMER_INTERVAL:
		return xsprintf("%lldULL", (long long)v);
	case TIMER_JIFFIES:
		return xsprintf("%lldULL * TICK_NSEC", (long long)v);
	case TIMER_HZ:
	case TIMER_PROFILE_FREQ:
		return xsprintf("NSEC_PER_SEC / %lldULL", (long long)v);
	case TIMER_PROFILE_TICK:
		return "TICK_NSEC";
	}
	return "0";
}

static bool timer_is_profile(const TimerData *d)
{
	return d->kind == TIMER_PROFILE_TICK || d->kind == TIMER_PROFILE_FREQ;
}

static void emit_timer_callback(Emitter *e, const EmitProbe *ep)
{
	const TimerData *d = ep->rp->data;

	emit_void_handler(e, ep, xsprintf("tapt_%d", ep->index), "struct pt_regs *regs",
			  "regs", timer_is_profile(d) ? "profile" : "timer", false, "NULL");
}

static bool emit_timer_decls(Emitter *e, EmitProbe **probes, int n)
{
	(void)probes;
	(void)n;
	emit(e, "#include \"runtime/families/timer.c\"");
	return true;
}

static bool emit_timer_code(Emitter *e, EmitProbe **probes, int n,
			    FamilyCode *out)
{
	for (int i = 0; i < n; i++)
		emit_timer_callback(e, probes[i]);
	emit(e, "static struct _tap_timer _tap_timer_table[] = {");
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		const TimerData *d = ep->rp->data;
		emit(e, "\t{ .pp = %s, .fire = tapt_%d,", ep->pp, ep->index);
		emit(e, "\t  .interval_ns = %s, .randomize_ns = %s, .profile = %s },",
		     timer_ns(d, d->interval),
		     d->randomize ? timer_ns(d, d->randomize) : "0",
		     timer_is_profile(d) ? "true" : "false");
	}
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_timer_family_start(void)");
	emit(e, "{");
	emit(e, "\treturn _tap_timers_start(_tap_timer_table, ARRAY_SIZE(_tap_timer_table));");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_timer_family_stop(void)");
	emit(e, "{");
	emit(e, "\t_tap_timers_stop(_tap_timer_table, ARRAY_SIZE(_tap_timer_table));");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_timer_family_start";
	out->stop_fn = "_tap_timer_family_stop";
	return true;
}

static const char *const timer_shapes[] = {
	"timer.{s(n)|sec(n)|ms(n)|msec(n)|us(n)|usec(n)|ns(n)|nsec(n)|jiffies(n)}"
		"[.randomize(n)]",
	"timer.hz(n)",
	"timer.profile.tick",
	"timer.profile.freq.hz(n)",
	NULL
};

const ProbeFamily family_timer = {
	.name = "timer", .shapes = timer_shapes, .resolve = resolve_timer,
	.emit_decls = emit_timer_decls, .emit_code = emit_timer_code,
};
