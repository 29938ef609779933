/* Needs nothing: if this fails the kernel build tree itself is broken. */
#include <linux/kernel.h>
#include <linux/types.h>

static int __maybe_unused tap_probe(int x)
{
	return x + 1;
}
