/* The uprobe consumer's filter(self, ctx, mm) with an enum
 * uprobe_filter_ctx argument: up to 6.9; 6.10 dropped ctx, leaving
 * filter(self, mm).  The uprobe family's consumer filter (process(PID),
 * -c/-x) is written for both.
 */
#include <linux/uprobes.h>

static bool tap_filter(struct uprobe_consumer *self, enum uprobe_filter_ctx ctx,
		       struct mm_struct *mm)
{
	return ctx != UPROBE_FILTER_UNREGISTER && mm != NULL;
}

static struct uprobe_consumer tap_uc __maybe_unused = {
	.filter = tap_filter,
};
