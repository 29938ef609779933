/* strlcpy() was removed in 6.8; strscpy() exists on every kernel the
 * runtime supports, so this only matters to code that still wants it. */
#include <linux/string.h>

static size_t __maybe_unused tap_probe(char *d, const char *s, size_t n)
{
	return strlcpy(d, s, n);
}
