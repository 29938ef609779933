/* emit_timer.c - pass 3 for timer probes: one callback per probe and a
 * table for runtime/families/timer.c.
 *
 * Periods go into the table as C expressions in nanoseconds, so jiffies
 * and hz use the HZ of the kernel the module is built for.
 */
#include "pointdata.h"

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

	emit(e, "static void tapt_%d(struct pt_regs *regs)", ep->index);
	emit(e, "{");
	emit(e, "\tstruct tap_context *c = tap_context_enter(%s, TAP_STATE_RUNNING);",
	     ep->pp);
	emit_blank(e);
	emit(e, "\tif (!c)");
	emit(e, "\t\treturn;");
	emit_context_fill(e, "regs", timer_is_profile(d) ? "profile" : "timer", false);
	emit(e, "\t%s(c, NULL);", ep->body_fn);
	emit(e, "\ttap_context_exit(c);");
	emit(e, "}");
	emit_blank(e);
}

bool emit_timer_probes(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
		       EmitProbe **probes, int n, FamilyCode *out)
{
	(void)fam;
	if (phase == EMIT_DECLS) {
		emit(e, "#include \"runtime/families/timer.c\"");
		return true;
	}
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
