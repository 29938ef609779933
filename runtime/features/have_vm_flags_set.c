/* vma->vm_flags became read-only in 6.3; writers use vm_flags_set(). */
#include <linux/mm.h>

static void __maybe_unused tap_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
}
