/* The uprobe_consumer filter callback lost its "enum uprobe_filter_ctx"
 * argument (6.9): filter(self, mm).  Before: filter(self, ctx, mm). */
#include <linux/uprobes.h>

static bool tap_filter(struct uprobe_consumer *self, struct mm_struct *mm)
{
	return true;
}

static struct uprobe_consumer tap_probe_uc __maybe_unused = {
	.filter = tap_filter,
};
