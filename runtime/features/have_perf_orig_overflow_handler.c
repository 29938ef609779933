/* struct perf_event's orig_overflow_handler, which arm64's watchpoint
 * handler reads (uses_default_overflow_handler()) to decide whether it
 * steps over the access itself: 5.x to 6.9 with CONFIG_BPF_SYSCALL (the
 * check since 6.6, backported to 6.1.y); 6.10 dropped the member.
 */
#include <linux/perf_event.h>

#ifndef CONFIG_BPF_SYSCALL
#error no orig_overflow_handler without CONFIG_BPF_SYSCALL
#endif

static bool __maybe_unused tap_probe(struct perf_event *bp, perf_overflow_handler_t h)
{
	bp->orig_overflow_handler = h;
	return uses_default_overflow_handler(bp);
}
