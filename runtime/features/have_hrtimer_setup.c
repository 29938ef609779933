/* hrtimer_setup(timer, function, clock, mode) since 6.13; hrtimer_init()
 * and a separate ->function store were removed in 6.15.  Timer probes
 * (timer.hz, timer.profile, timer.ms) run on hrtimers. */
#include <linux/hrtimer.h>

static enum hrtimer_restart tap_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void __maybe_unused tap_probe(struct hrtimer *t)
{
	hrtimer_setup(t, tap_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
