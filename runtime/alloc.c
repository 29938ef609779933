/*
 * alloc.c - the runtime's one allocator (alloc.h).  Included once by
 * tap_runtime.c (or by a hand-made module such as the transport's
 * self-test, before transport.c).
 */
#include "alloc.h"

#ifdef TAP_USER_TEST
long tap_test_alloc_countdown = -1;
long tap_test_alloc_live;

bool tap_test_fail_now(void)
{
	return tap_test_alloc_countdown >= 0 && tap_test_alloc_countdown-- == 0;
}

/* User space: malloc, counted, so the tests see what is left. */
static void *tap_test_alloc(size_t size, bool zero)
{
	void *p;

	if (tap_test_fail_now())
		return NULL;
	p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
	if (p)
		tap_test_alloc_live++;
	return p;
}

void *tap_alloc(size_t size)
{
	return tap_test_alloc(size, true);
}

void *tap_alloc_node(size_t size, int node)
{
	(void)node;
	return tap_test_alloc(size, true);
}

void *tap_alloc_atomic(size_t size)
{
	return tap_test_alloc(size, false);
}

void tap_free(const void *p)
{
	if (!p)
		return;
	tap_test_alloc_live--;
	free((void *)p);
}

/* Per-CPU memory as the shim lays it out: one copy per simulated CPU,
 * TAP_TEST_PCPU_STRIDE bytes apart (see this_cpu_ptr()). */
void *tap_alloc_percpu(size_t size, size_t align)
{
	(void)align;
	if (size > TAP_TEST_PCPU_STRIDE)
		return NULL;
	return tap_test_alloc((size_t)TAP_TEST_PCPU_STRIDE * nr_cpu_ids, true);
}

void tap_free_percpu(void *p)
{
	tap_free(p);
}
#else
void *tap_alloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

void *tap_alloc_node(size_t size, int node)
{
	return kvzalloc_node(size, GFP_KERNEL, node);
}

void *tap_alloc_atomic(size_t size)
{
	return kmalloc(size, GFP_ATOMIC | __GFP_NOWARN);
}

void tap_free(const void *p)
{
	kvfree(p);
}

void __percpu *tap_alloc_percpu(size_t size, size_t align)
{
	return __alloc_percpu(size, align);
}

void tap_free_percpu(void __percpu *p)
{
	free_percpu(p);
}
#endif
