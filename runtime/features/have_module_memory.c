/* struct module describes its text and data as mem[MOD_TEXT] ... since
 * 6.4; before, core_layout and init_layout.  Address-to-module lookups
 * (module("x").function probes, symbol names) read these. */
#include <linux/module.h>

static unsigned long __maybe_unused tap_probe(struct module *m)
{
	return (unsigned long)m->mem[MOD_TEXT].base + m->mem[MOD_TEXT].size;
}
