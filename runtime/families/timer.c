/*
 * timer.c - timer probes on hrtimers:
 *
 *   timer.{s,ms,us,ns,jiffies,hz}(N)[.randomize(M)]
 *	one hrtimer per probe.  It fires on whichever CPU it was queued on,
 *	so the handler never runs twice at once for one probe.  The handler
 *	has no registers (CONTEXT->regs is NULL).
 *   timer.profile.tick, timer.profile.freq.hz(N)
 *	one pinned hrtimer per online CPU, every tick (or at the frequency).
 *	The handler sees the registers the timer interrupt interrupted, for
 *	sampling profilers.
 *
 * Pass 3 emits a table of struct _tap_timer, one per probe, with the
 * period already in nanoseconds (jiffies and hz are converted with the
 * target's HZ at compile time), and calls _tap_timers_start() from
 * tap_on_start() and _tap_timers_stop() from tap_on_stop().
 *
 * Limits: a CPU brought online during the run gets no profile timer, and
 * one taken offline hands its timer to another CPU (which then samples
 * twice as often).
 */
/* Included once even when two families share it (kprobe and
 * kernel.function both use kprobes.c). */
#ifndef TAP_PROBES_TIMER_C
#define TAP_PROBES_TIMER_C

#include "probe_common.h"

#include <linux/random.h>
#include <linux/cpu.h>
#include <linux/ktime.h>
#include <asm/irq_regs.h>

/* A shorter period would keep a CPU in the handler; -D can lower it. */
#ifndef TAP_TIMER_MIN_NS
#define TAP_TIMER_MIN_NS 10000
#endif

struct _tap_timer;

struct _tap_timer_cpu {
	struct hrtimer hrt;
	struct _tap_timer *t;
};

struct _tap_timer {
	/* from pass 3 */
	const char *pp;
	void (*fire)(struct pt_regs *regs);
	u64 interval_ns;
	u64 randomize_ns;		/* 0, or less than interval_ns */
	bool profile;			/* per CPU, with the interrupted regs */

	/* run time */
	struct hrtimer hrt;		/* !profile */
	struct _tap_timer_cpu *cpus;	/* profile: nr_cpu_ids of them */
	bool started;
};

/* The next period: the interval plus a uniform draw from
 * [-randomize, +randomize], never below the floor. */
static u64 _tap_timer_period(const struct _tap_timer *t)
{
	u64 ns = t->interval_ns;

	if (t->randomize_ns) {
		u64 r;

		div64_u64_rem(get_random_u64(), 2 * t->randomize_ns + 1, &r);
		ns = ns + r - t->randomize_ns;
	}
	return max_t(u64, ns, TAP_TIMER_MIN_NS);
}

/*
 * Only a running session runs handlers: hits while begin probes still run
 * (or end probes already run) are not "skipped probes", the timer was
 * simply not due yet.
 */
static enum hrtimer_restart _tap_timer_fn(struct hrtimer *h)
{
	struct _tap_timer *t = container_of(h, struct _tap_timer, hrt);

	if (tap_session_state() == TAP_STATE_RUNNING)
		t->fire(NULL);
	hrtimer_forward_now(h, ns_to_ktime(_tap_timer_period(t)));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart _tap_profile_fn(struct hrtimer *h)
{
	struct _tap_timer_cpu *tc = container_of(h, struct _tap_timer_cpu, hrt);

	if (tap_session_state() == TAP_STATE_RUNNING)
		tc->t->fire(get_irq_regs());
	hrtimer_forward_now(h, ns_to_ktime(_tap_timer_period(tc->t)));
	return HRTIMER_RESTART;
}

/* Runs on every online CPU (on_each_cpu): a pinned timer stays there. */
static void _tap_profile_start_here(void *arg)
{
	struct _tap_timer *t = arg;
	struct _tap_timer_cpu *tc = &t->cpus[smp_processor_id()];

	hrtimer_start(&tc->hrt, ns_to_ktime(_tap_timer_period(t)),
		      HRTIMER_MODE_REL_PINNED);
}

static int _tap_profile_start(struct _tap_timer *t)
{
	unsigned int cpu;

	t->cpus = tap_alloc(nr_cpu_ids * sizeof(*t->cpus));
	if (!t->cpus)
		return _tap_probe_failed(t->pp, 0, -ENOMEM, "timer", NULL);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		t->cpus[cpu].t = t;
		_tap_hrtimer_setup(&t->cpus[cpu].hrt, _tap_profile_fn,
				   CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	}
	cpus_read_lock();
	on_each_cpu(_tap_profile_start_here, t, 1);
	cpus_read_unlock();
	return 0;
}

static void _tap_timer_stop_one(struct _tap_timer *t)
{
	unsigned int cpu;

	if (!t->started)
		return;
	if (t->profile) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			hrtimer_cancel(&t->cpus[cpu].hrt);
		tap_free(t->cpus);
		t->cpus = NULL;
	} else {
		hrtimer_cancel(&t->hrt);
	}
	t->started = false;
}

/* Stop the timers of a table; a handler still running is waited for. */
static void _tap_timers_stop(struct _tap_timer *t, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		_tap_timer_stop_one(&t[i]);
}

static int _tap_timers_start(struct _tap_timer *t, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		if (t[i].profile) {
			ret = _tap_profile_start(&t[i]);
			if (ret)
				goto err_stop;
		} else {
			_tap_hrtimer_setup(&t[i].hrt, _tap_timer_fn,
					   CLOCK_MONOTONIC, HRTIMER_MODE_REL);
			hrtimer_start(&t[i].hrt,
				      ns_to_ktime(_tap_timer_period(&t[i])),
				      HRTIMER_MODE_REL);
		}
		t[i].started = true;
	}
	return 0;

err_stop:
	_tap_timers_stop(t, i);
	return ret;
}

#endif /* TAP_PROBES_TIMER_C */
