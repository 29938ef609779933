/* vfs_path_lookup() declared in <linux/namei.h>: 6.4 and later.  It is
 * exported to modules in older kernels too, declared only in the
 * kernel's fs/internal.h; compat.h declares it then.  The uprobe family
 * looks its files up in the loader's root with it.
 * exports: vfs_path_lookup
 */
#include <linux/namei.h>
#include <linux/path.h>

static int __maybe_unused tap_probe(struct path *root, struct path *p)
{
	return vfs_path_lookup(root->dentry, root->mnt, "x", LOOKUP_FOLLOW, p);
}
