/* tapc_selftest.c - a hand-written module that proves the VM harness
 * before pass 3 exists: it is built through pass 4 (build.c), loaded
 * with insmod, prints with printk and through a /proc file, and with
 * warn=1 hits a WARN_ON_ONCE so the harness shows it catches kernel-log
 * problems. */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static char *greeting = "world";
module_param(greeting, charp, 0444);
MODULE_PARM_DESC(greeting, "who the /proc file greets");

static int warn;
module_param(warn, int, 0444);
MODULE_PARM_DESC(warn, "1: raise a kernel warning at load");

static int reads;

static int selftest_show(struct seq_file *m, void *v)
{
	reads++;
	seq_printf(m, "hello, %s\nreads: %d\n", greeting, reads);
	return 0;
}

static int selftest_open(struct inode *inode, struct file *file)
{
	return single_open(file, selftest_show, NULL);
}

/* proc_ops since 5.6, as the runtime itself needs */
static const struct proc_ops selftest_fops = {
	.proc_open = selftest_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

static int __init selftest_init(void)
{
	if (!proc_create("tapc_selftest", 0444, NULL, &selftest_fops))
		return -ENOMEM;
	pr_info("tapc_selftest: loaded, greeting %s\n", greeting);
	WARN_ON_ONCE(warn);
	return 0;
}

static void __exit selftest_exit(void)
{
	remove_proc_entry("tapc_selftest", NULL);
	pr_info("tapc_selftest: unloaded after %d reads\n", reads);
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tapc VM harness self-test");
