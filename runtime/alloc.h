/*
 * alloc.h - the runtime's one allocator.  Every allocation of runtime code
 * (maps, statistics, contexts, regex, the probe families, the transport)
 * goes through these, so the user-space tests (TAP_USER_TEST) can fail
 * the n-th one and walk every unwind path, and count what is still
 * allocated to find leaks.
 *
 *   tap_alloc(size)          process context; zeroed; kmalloc or vmalloc
 *   tap_alloc_node(size, n)  the same, preferably on NUMA node n
 *   tap_alloc_atomic(size)   any context but NMI; not zeroed; small sizes
 *   tap_free(p)              any of the three (NULL is fine)
 *   tap_alloc_percpu(size)   per-CPU memory, zeroed (alloc_percpu)
 *   tap_free_percpu(p)
 */
#ifndef TAP_ALLOC_H
#define TAP_ALLOC_H

#ifdef TAP_USER_TEST
#include "tap_shim_user.h"
/* Fail the n-th allocation (or transport resource) from now; -1: none. */
extern long tap_test_alloc_countdown;
/* Allocations (and resources) not freed yet. */
extern long tap_test_alloc_live;
bool tap_test_fail_now(void);
#else
#include <linux/types.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#endif

void *tap_alloc(size_t size);
void *tap_alloc_node(size_t size, int node);
void *tap_alloc_atomic(size_t size);
void tap_free(const void *p);
void __percpu *tap_alloc_percpu(size_t size, size_t align);
void tap_free_percpu(void __percpu *p);

#endif /* TAP_ALLOC_H */
