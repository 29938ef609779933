/* kallsyms_lookup_name() was exported to modules until 5.7; later the
 * runtime finds it another way (through a kprobe on it).
 * exports: kallsyms_lookup_name */
#include <linux/kallsyms.h>

static unsigned long __maybe_unused tap_probe(void)
{
	return kallsyms_lookup_name("jiffies");
}
