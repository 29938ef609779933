/* timer_delete_sync() replaced del_timer_sync() (upstream 6.2; Debian's
 * 6.1 has it as a backport), and del_timer_sync() went away in 6.15. */
#include <linux/timer.h>

static int __maybe_unused tap_probe(struct timer_list *t)
{
	return timer_delete_sync(t);
}
