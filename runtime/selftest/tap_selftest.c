/* tap_selftest.c - a hand-written stand-in for a generated module, to test
 * the transport and taprun without pass 3.
 *
 * It plays a script like
 *
 *   probe begin { printf("begin target=%d\n", target()) }
 *   probe timer.ms(PERIOD) on every CPU { printf("tick ...") }
 *   probe end { printf("end ...") }
 *
 * and its parameters pick the variations the tests need:
 *   ticks=N      call exit() after N ticks in all (0: run until stopped)
 *   period_ms=N  timer period (default 100)
 *   ordered=1    number the ticks under one lock, so their numbers are in
 *                the order of the records' seq (tests taprun's merge)
 *   flood=N      each tick prints N records of flood_len bytes
 *   flood_len=N
 *   warn=1       begin sends a warning twice, an error and a system()
 *   start_fail=1 tap_on_start() fails with -EINVAL
 *   bench_ms=N   instead of timers, one kernel thread per CPU prints
 *                64-byte records "CPU COUNT   ...\n" as fast as it can
 *                for N ms, then exit()
 *   bench_threads=N  only on the first N CPUs
 *   end_delay_ms=N   the end probe takes N ms more
 *   microbench=N     begin times N prints of 64 bytes (warning: ns each)
 *   end_lines=N      the end probe prints N numbered lines (a report)
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/spinlock.h>

#include "../transport.h"

static unsigned int ticks;
module_param(ticks, uint, 0444);
static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
static bool ordered;
module_param(ordered, bool, 0444);
static unsigned int flood;
module_param(flood, uint, 0444);
static unsigned int flood_len = 100;
module_param(flood_len, uint, 0444);
static bool warn;
module_param(warn, bool, 0444);
static bool start_fail;
module_param(start_fail, bool, 0444);
static unsigned int bench_ms;
module_param(bench_ms, uint, 0444);
static unsigned int bench_threads;
module_param(bench_threads, uint, 0444);
static unsigned int end_delay_ms;
module_param(end_delay_ms, uint, 0444);
static unsigned int microbench;
module_param(microbench, uint, 0444);
static unsigned int end_lines;
module_param(end_lines, uint, 0444);

static DEFINE_PER_CPU(struct hrtimer, st_timer);
static DEFINE_PER_CPU(unsigned long, st_cpu_ticks);
static DEFINE_PER_CPU(struct task_struct *, st_thread);
static atomic_t st_total_ticks;
static atomic_t st_bench_running;
static atomic64_t st_printed;		/* records the probes tried to print */
static DEFINE_SPINLOCK(st_order_lock);
static unsigned long st_order_seq;
static bool st_timers_on;

/* printf into the print buffer: reserve the most, give back the rest. */
static __printf(1, 2) void st_printf(const char *fmt, ...)
{
	enum { MAX = 256 };
	va_list ap;
	char *p = tap_reserve(MAX);
	int n;

	if (!p)
		return;
	va_start(ap, fmt);
	n = vscnprintf(p, MAX, fmt, ap);
	va_end(ap);
	tap_unreserve(MAX - n);
}

static void st_flood(int cpu)
{
	unsigned int i, len = min_t(unsigned int, flood_len, TAP_PRINT_BUFSIZE);

	for (i = 0; i < flood; i++) {
		char *p = tap_reserve(len);

		if (!p)
			return;
		memset(p, 'a' + cpu % 26, len);
		if (len)
			p[len - 1] = '\n';
		tap_commit();
		atomic64_inc(&st_printed);
	}
}

static enum hrtimer_restart st_tick(struct hrtimer *t)
{
	int cpu = smp_processor_id();
	unsigned long flags, n;
	int total;

	/* Timers start inside tap_on_start(), before RUNNING. */
	if (tap_session_state() == TAP_STATE_STARTING)
		goto again;
	if (tap_session_state() != TAP_STATE_RUNNING)
		return HRTIMER_NORESTART;
	n = ++per_cpu(st_cpu_ticks, cpu);
	if (flood) {
		st_flood(cpu);
	} else if (ordered) {
		spin_lock_irqsave(&st_order_lock, flags);
		st_printf("ordered %lu cpu %d\n", ++st_order_seq, cpu);
		tap_commit();
		spin_unlock_irqrestore(&st_order_lock, flags);
		atomic64_inc(&st_printed);
	} else {
		st_printf("tick cpu %d n %lu\n", cpu, n);
		tap_commit();
		atomic64_inc(&st_printed);
	}
	total = atomic_inc_return(&st_total_ticks);
	if (ticks && total == ticks) {
		st_printf("exit after %d ticks\n", total);
		tap_commit();
		tap_exit();
		return HRTIMER_NORESTART;
	}
again:
	hrtimer_forward_now(t, ms_to_ktime(period_ms));
	return HRTIMER_RESTART;
}

/* Runs on each CPU (IPI), so each timer is pinned to its CPU. */
static void st_start_timer(void *unused)
{
	struct hrtimer *t = this_cpu_ptr(&st_timer);

	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	t->function = st_tick;
	hrtimer_start(t, ms_to_ktime(period_ms), HRTIMER_MODE_REL_PINNED);
}

/* Prints as fast as it can; reports its own rate as a warning (the
 * output itself may go to /dev/null). */
static int st_bench_thread(void *arg)
{
	unsigned long end = jiffies + msecs_to_jiffies(bench_ms);
	u64 t0 = ktime_get_ns(), ns;
	unsigned long i = 0;

	while (time_before(jiffies, end) && !kthread_should_stop()) {
		char num[32];
		int n = scnprintf(num, sizeof(num), "%d %lu",
				  raw_smp_processor_id(), i++);
		char *p;

		preempt_disable();
		p = tap_reserve(64);
		if (p) {
			memset(p, ' ', 63);
			memcpy(p, num, n);
			p[63] = '\n';
			tap_commit();
		}
		preempt_enable();
		atomic64_inc(&st_printed);
		if ((i & 63) == 0)
			cond_resched();
	}
	ns = ktime_get_ns() - t0;
	tap_warn("bench cpu %d: %lu prints in %llu ms, %llu ns each",
		 raw_smp_processor_id(), i, ns / 1000000,
		 i ? ns / i : 0);
	/* The last thread to finish ends the run, as exit() would. */
	if (atomic_dec_and_test(&st_bench_running))
		tap_exit();
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static int st_start_bench(void)
{
	unsigned int n = num_online_cpus();
	int cpu;

	if (bench_threads && bench_threads < n)
		n = bench_threads;
	atomic_set(&st_bench_running, n);
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (n-- == 0)
			break;

		t = kthread_create_on_cpu(st_bench_thread, NULL, cpu,
					  "tap_bench/%u");
		if (IS_ERR(t))
			return PTR_ERR(t);
		per_cpu(st_thread, cpu) = t;
		wake_up_process(t);
	}
	return 0;
}

static void st_stop_bench(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct task_struct *t = per_cpu(st_thread, cpu);

		if (t)
			kthread_stop(t);
		per_cpu(st_thread, cpu) = NULL;
	}
}

/* The producer's cost alone: N records in a row, nobody competing. */
static void st_microbench(void)
{
	unsigned int i;
	u64 t0, ns;

	preempt_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < microbench; i++) {
		char *p = tap_reserve(64);

		if (p) {
			memset(p, 'm', 63);
			p[63] = '\n';
			tap_commit();
		}
	}
	ns = ktime_get_ns() - t0;
	preempt_enable();
	tap_warn("microbench: %u prints, %llu ns each", microbench,
		 ns / microbench);
}

int tap_on_start(void)
{
	if (start_fail) {
		tap_msg_error("selftest: start_fail=1 given");
		return -EINVAL;
	}
	preempt_disable();
	st_printf("begin target %d\n", tap_target_pid);
	tap_commit();
	preempt_enable();
	if (warn) {
		tap_warn("selftest warning %d", 1);
		tap_warn("selftest warning %d", 1);
		tap_msg_error("selftest error");
		tap_count_error();
		tap_system("echo system ran");
	}
	if (microbench)
		st_microbench();
	if (bench_ms)
		return st_start_bench();
	st_timers_on = true;
	on_each_cpu(st_start_timer, NULL, 1);
	return 0;
}

void tap_on_stop(void)
{
	unsigned int i;
	int cpu;

	if (st_timers_on) {
		for_each_online_cpu(cpu)
			hrtimer_cancel(per_cpu_ptr(&st_timer, cpu));
		st_timers_on = false;
	}
	st_stop_bench();
	if (end_delay_ms)
		msleep(end_delay_ms);
	for (i = 1; i <= end_lines; i++) {
		preempt_disable();
		st_printf("report line %u of %u ..........................................\n",
			  i, end_lines);
		tap_commit();
		preempt_enable();
	}
	preempt_disable();
	st_printf("end printed %lld\n", (long long)atomic64_read(&st_printed));
	tap_commit();
	preempt_enable();
}

#include "../alloc.c"
#include "../transport.c"

static int __init st_init(void)
{
	return tap_transport_init(KBUILD_MODNAME);
}

static void __exit st_exit(void)
{
	tap_transport_exit();
}

module_init(st_init);
module_exit(st_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tapc transport self-test");
