/* dummy.c - a stand-in module for kprobe.module() tests.  Its name is one
 * Debian's kernel has (drivers/net/dummy.ko), so pass 2 knows the module;
 * this one only offers /proc/dummy, whose read calls dummy_show(). */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static int reads;

static noinline int dummy_show(struct seq_file *m, void *v)
{
	seq_printf(m, "read %d\n", ++reads);
	return 0;
}

static int dummy_open(struct inode *inode, struct file *file)
{
	return single_open(file, dummy_show, NULL);
}

/* proc_ops since 5.6, as the runtime itself needs */
static const struct proc_ops dummy_fops = {
	.proc_open = dummy_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

static int __init dummy_init(void)
{
	return proc_create("dummy", 0444, NULL, &dummy_fops) ? 0 : -ENOMEM;
}

static void __exit dummy_exit(void)
{
	remove_proc_entry("dummy", NULL);
}

module_init(dummy_init);
module_exit(dummy_exit);
MODULE_LICENSE("GPL");
