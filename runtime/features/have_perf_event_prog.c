/* struct perf_event's prog, which __perf_event_overflow() runs itself
 * before the overflow handler (a program returning 0 drops the sample):
 * 6.10 and later, with CONFIG_BPF_SYSCALL.  Before 6.10 the member is
 * there too, but a BPF program replaced the overflow handler instead
 * (orig_overflow_handler, have_perf_orig_overflow_handler.c), so
 * runtime/arch/arm64.h reads this answer only when that one is missing.
 * The hook takes the prog off a disabled event before releasing it:
 * exports: perf_event_disable
 */
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/perf_event.h>

#ifndef CONFIG_BPF_SYSCALL
#error no perf_event prog without CONFIG_BPF_SYSCALL
#endif

static unsigned int tap_probe_fn(const void *ctx, const struct bpf_insn *insn)
{
	const struct bpf_perf_event_data_kern *k = ctx;

	return k->event != NULL;
}

static void __maybe_unused tap_probe(struct perf_event *bp, struct bpf_prog *p)
{
	p->type = BPF_PROG_TYPE_PERF_EVENT;
	p->bpf_func = tap_probe_fn;
	WRITE_ONCE(bp->prog, p);
	perf_event_disable(bp);
}
