/*
 * memory.c - reads and writes of kernel and user memory that cannot
 * fault, and the strings read through them, for embedded C and the rest
 * of the runtime (declarations in tapset_support.h).  Kernel only, like
 * tapset_support.c: the user-space unit tests bring their own stand-ins.
 *
 * It calls nothing else of the runtime, so everything above it (printf's
 * %m, the user unwinder of usyms.c) may use it.
 */
#include "tap.h"

int tap_read_kernel(void *dst, const void *src, size_t n)
{
	return copy_from_kernel_nofault(dst, src, n) ? -EFAULT : 0;
}

/*
 * copy_to_kernel_nofault() is not exported; the per-byte store with an
 * exception-table fixup is what it does.  Only kernel addresses: a user
 * address is not what a guru function means to change here.
 */
int tap_write_kernel(void *dst, const void *src, size_t n)
{
	unsigned long a = (unsigned long)dst;
	size_t i;

	if (a < TASK_SIZE_MAX + PAGE_SIZE || a + n < a)
		return -EFAULT;
	pagefault_disable();
	for (i = 0; i < n; i++)
		__put_kernel_nofault((u8 *)dst + i, (const u8 *)src + i, u8,
				     err_fault);
	pagefault_enable();
	return 0;
err_fault:
	pagefault_enable();
	return -EFAULT;
}

/* A user address means the current task's, and a kernel thread has
 * none. */
static bool _tap_user_access_ok(void)
{
	return current->mm && !(current->flags & PF_KTHREAD);
}

int tap_read_user(void *dst, const void __user *src, size_t n)
{
	if (!_tap_user_access_ok())
		return -EFAULT;
	return copy_from_user_nofault(dst, src, n) ? -EFAULT : 0;
}

int tap_write_user(void __user *dst, const void *src, size_t n)
{
	if (!_tap_user_access_ok())
		return -EFAULT;
	return copy_to_user_nofault(dst, src, n) ? -EFAULT : 0;
}

/*
 * Strings are copied a page at a time: a page is readable or not as a
 * whole, so reading past the NUL up to the page's end cannot fault where
 * the string itself did not.
 */
static long _tap_strncpy(char *dst, unsigned long src, size_t n, bool user)
{
	size_t done = 0;

	if (n == 0)
		return -EINVAL;
	while (done < n - 1) {
		size_t chunk = min_t(size_t, n - 1 - done,
				     PAGE_SIZE - offset_in_page(src + done));
		const char *nul;
		int r = user ? tap_read_user(dst + done,
					     (const void __user *)(src + done), chunk)
			     : tap_read_kernel(dst + done, (const void *)(src + done),
					       chunk);

		if (r) {
			dst[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(dst + done, '\0', chunk);
		if (nul)
			return nul - dst;
		done += chunk;
	}
	dst[n - 1] = '\0';
	return n - 1;
}

long tap_strncpy_kernel(char *dst, const char *src, size_t n)
{
	return _tap_strncpy(dst, (unsigned long)src, n, false);
}

long tap_strncpy_user(char *dst, const char __user *src, size_t n)
{
	return _tap_strncpy(dst, (unsigned long)src, n, true);
}
