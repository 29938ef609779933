/* 6.12: uprobe_register(inode, offset, ref_ctr_offset, consumer) returns a
 * struct uprobe * and is undone by uprobe_unregister_nosync() plus
 * uprobe_unregister_sync().  Before: it returned int, took no
 * ref_ctr_offset (uprobe_register_refctr() did), and uprobe_unregister()
 * took the inode and offset again. */
#include <linux/uprobes.h>

static void __maybe_unused tap_probe(struct inode *inode, loff_t off,
				     struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(inode, off, 0, uc);

	if (!IS_ERR(u)) {
		uprobe_unregister_nosync(u, uc);
		uprobe_unregister_sync();
	}
}
