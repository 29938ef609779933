/* struct proc_ops for /proc files (5.6+); older kernels take a struct
 * file_operations in proc_create_data(). */
#include <linux/proc_fs.h>

static const struct proc_ops tap_probe_ops __maybe_unused = {
	.proc_read = NULL,
};
