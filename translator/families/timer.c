/* timer.c - the timer family: timer.s/ms/us/ns/jiffies(N), timer.hz(N),
 * timer.profile.  No $context variables. */
#include "pointdata.h"

#include <string.h>

/* What pass 3 needs of a timer: TimerData (pointdata.h). */

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

static const char *const timer_shapes[] = {
	"timer.{s(n)|sec(n)|ms(n)|msec(n)|us(n)|usec(n)|ns(n)|nsec(n)|jiffies(n)}"
		"[.randomize(n)]",
	"timer.hz(n)",
	"timer.profile.tick",
	"timer.profile.freq.hz(n)",
	NULL
};

const ProbeFamily family_timer = { "timer", timer_shapes, resolve_timer };
