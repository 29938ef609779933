/* uprobe_register(inode, offset, ref_ctr_offset, consumer) returning the
 * struct uprobe *, and uprobe_unregister_nosync() plus
 * uprobe_unregister_sync() to undo it: 6.12 (uprobe_register_refctr()
 * and the int-returning uprobe_register() were removed).  Uprobes
 * (process(...).function, .statement, .plt, .mark) use them.
 * exports: uprobe_register uprobe_unregister_nosync uprobe_unregister_sync
 */
#include <linux/uprobes.h>
#include <linux/err.h>

static struct uprobe_consumer tap_uc;

static void __maybe_unused tap_probe(struct inode *inode)
{
	struct uprobe *u = uprobe_register(inode, 0, 0, &tap_uc);

	if (!IS_ERR(u)) {
		uprobe_unregister_nosync(u, &tap_uc);
		uprobe_unregister_sync();
	}
}
