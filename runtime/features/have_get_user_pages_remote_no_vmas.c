/* get_user_pages_remote() lost its "vmas" argument in 6.5.  Reading
 * another process's memory (process probes with -x/-c) pins pages with it. */
#include <linux/mm.h>

static long __maybe_unused tap_probe(struct mm_struct *mm, unsigned long addr,
				     struct page **page)
{
	int locked = 1;

	return get_user_pages_remote(mm, addr, 1, 0, page, &locked);
}
