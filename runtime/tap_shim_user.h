/*
 * tap_shim_user.h - the few kernel facilities the runtime uses, mapped to
 * user space so the runtime's data structures (maps, statistics, printf,
 * strings, regex, context) can be unit-tested as an ordinary program.
 *
 * Only compiled with -DTAP_USER_TEST.  The tests are single-threaded: locks
 * are counters that catch unbalanced use, "CPUs" are simulated by setting
 * tap_test_cpu, and preemption/irq control does nothing.
 */
#ifndef TAP_SHIM_USER_H
#define TAP_SHIM_USER_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <errno.h>
#include <assert.h>
#include <ctype.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define __user
#define __percpu
#define __always_unused __attribute__((unused))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define fallthrough __attribute__((__fallthrough__))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define WARN_ON_ONCE(x) ({ int __w = !!(x); if (__w) fprintf(stderr, "WARN_ON_ONCE %s:%d\n", __FILE__, __LINE__); __w; })
#define S64_MAX INT64_MAX
#define S64_MIN INT64_MIN
#define U64_MAX UINT64_MAX
#define GFP_KERNEL 0
#define GFP_ATOMIC 1

struct pt_regs;
typedef struct { unsigned int val; } kuid_t;

/* Allocation: only through the runtime's allocator (alloc.c), which
 * counts and can fail; no kmalloc/kfree here, so a direct call does not
 * build.  Per-CPU memory: one copy per simulated CPU, this many bytes
 * apart (this_cpu_ptr() in tap_shim_transport.h). */
#define TAP_TEST_PCPU_STRIDE 4096

/* Simulated CPUs. */
extern int tap_test_cpu;
extern int tap_test_ncpus;
#define nr_cpu_ids ((unsigned int)tap_test_ncpus)
#define smp_processor_id() (tap_test_cpu)
#define raw_smp_processor_id() (tap_test_cpu)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < tap_test_ncpus; (cpu)++)
#define preempt_disable() do { } while (0)
#define preempt_enable() do { } while (0)
#define preempt_enable_no_resched() do { } while (0)
#define local_irq_save(f) do { (f) = 0; } while (0)
#define local_irq_restore(f) do { (void)(f); } while (0)
#define in_nmi() 0
#ifndef barrier
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif
#define ndelay(n) do { (void)(n); } while (0)
/* The overload guard's clock: the tests move it by hand. */
extern u64 tap_test_cycles;
#define tap_arch_cycles() (tap_test_cycles)
#define cpu_relax() do { } while (0)

/* Atomics (GCC builtins; the tests are single-threaded anyway). */
typedef struct { int counter; } atomic_t;
typedef struct { long long counter; } atomic64_t;
#define ATOMIC_INIT(i) { (i) }
#ifndef container_of
#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))
#endif
#define atomic_read(v) __atomic_load_n(&(v)->counter, __ATOMIC_SEQ_CST)
#define atomic_set(v, i) __atomic_store_n(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_set_release(v, i) __atomic_store_n(&(v)->counter, (i), __ATOMIC_RELEASE)
#define atomic_inc(v) ((void)__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST))
#define atomic_dec(v) ((void)__atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST))
#define atomic_inc_return(v) __atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_xchg(v, n) __atomic_exchange_n(&(v)->counter, (n), __ATOMIC_SEQ_CST)
static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	__atomic_compare_exchange_n(&v->counter, &old, new, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}
#define atomic64_read(v) __atomic_load_n(&(v)->counter, __ATOMIC_SEQ_CST)
#define atomic64_set(v, i) __atomic_store_n(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic64_inc(v) ((void)__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST))
#define atomic64_inc_return(v) __atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST)

/* Locks: counters, so a test sees an unbalanced lock as a failure. */
typedef struct { int held; } spinlock_t;
typedef struct { int readers; int writer; } rwlock_t;
#define spin_lock_init(l) ((l)->held = 0)
#define spin_lock(l) ((l)->held++)
#define spin_unlock(l) ((l)->held--)
#define spin_lock_irqsave(l, f) do { (f) = 0; (l)->held++; } while (0)
#define spin_unlock_irqrestore(l, f) do { (void)(f); (l)->held--; } while (0)
#define rwlock_init(l) ((l)->readers = (l)->writer = 0)
static inline int read_trylock(rwlock_t *l)
{
	if (l->writer)
		return 0;
	l->readers++;
	return 1;
}
static inline int write_trylock(rwlock_t *l)
{
	if (l->writer || l->readers)
		return 0;
	l->writer = 1;
	return 1;
}
#define read_unlock(l) ((l)->readers--)
#define write_unlock(l) ((l)->writer = 0)

/* 64-bit division helpers (plain C on a 64-bit host). */
static inline s64 div_s64(s64 a, s32 b) { return a / b; }
static inline s64 div64_s64(s64 a, s64 b) { return a / b; }
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }

/* Memory the tests hand to %m: plain reads. */
static inline long copy_from_kernel_nofault(void *dst, const void *src, size_t n)
{
	if (!src)
		return -EFAULT;
	memcpy(dst, src, n);
	return 0;
}

#endif /* TAP_SHIM_USER_H */
